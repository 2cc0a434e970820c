"""Benchmark of the K/V Gossip node on loopback with real Serf agents (`make bench-kv`).

Prints every figure issue 15 sets a target for:
1. Write propagation: a value written on node a, timed until both b and c store it (each watched
   over its control socket), with 0, 2,000 and 100,000 keys already on every node; p50 and p99.
2. The backup path alone: the same with pushes off on a, so b and c learn of each write from
   the `kvg-ch` event and fetch it.
3. Catch-up: a fresh node joins a node holding 100,000 keys, timed until it holds them all.
4. Reconciliation traffic, counted on the spec's messages (no I/O): round trips and bytes to
   find d differing keys among 100,000, and per key for an empty peer.
Every record carries a one-grant chain (a writer granted `/bench/**` by the root).
`--only` runs some parts, and `--keys` sets the large store, e.g. a quick catch-up at 20,000
keys: `python -m bench.kvgossip.propagation --only catch-up --keys 20000`.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from bench.kvgossip.testbed.localcluster import LocalCluster
from swarmconf.reference.kvgossip.control import Watch, call, watch
from swarmconf.reference.kvgossip.privacy import private_file
from swarmconf.reference.kvgossip.store import SqliteStore
from swarmconf.spec.kvgossip import recon
from swarmconf.spec.kvgossip.crypto import sha256
from swarmconf.spec.kvgossip.fixtures import ALICE, ROOT
from swarmconf.spec.kvgossip.grants import issue_grant
from swarmconf.spec.kvgossip.records import Record, make_record
from swarmconf.spec.kvgossip.state import receive_record

WRITER_GRANT = issue_grant(ROOT.seed, ALICE.pk, "/bench/**", subgrant=False, issued_at=1)
"""The benchmark writes as a non-root writer, so every record carries a one-grant chain."""


def _ms() -> int:
    return time.time_ns() // 1_000_000


def bench_record(key: str, ts: int, value: bytes) -> Record:
    """A record as the benchmark writes it: signed by the writer, its grant attached."""
    return make_record(ALICE.seed, key, ts, value, [WRITER_GRANT])


def percentile(values: list[float], q: float) -> float:
    """The `q` quantile of `values` (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _first_change(changes: Watch) -> float:
    async for _ in changes:
        break
    changes.close()
    return time.perf_counter()


async def propagation(
    cluster: LocalCluster, writes: int, round_trips: list[float] | None = None
) -> list[float]:
    """Seconds from each write on a until both b and c store it.

    Before each write, the round trip of an empty control request to a goes to `round_trips`,
    what one hop between two processes costs on the machine at that time, the floor under
    every propagation figure.
    """
    dirs = [cluster.nodes[name].data_dir for name in "abc"]
    return await propagation_between(dirs[0], dirs[1:], writes, round_trips)


async def propagation_between(
    writer: Path,
    readers: list[Path],
    writes: int,
    round_trips: list[float] | None = None,
    key_prefix: str = "/bench/propagation/",
) -> list[float]:
    """`propagation` on the nodes of these data directories: written on the first, timed until
    every reader stores it."""
    results = []
    for i in range(writes):
        if round_trips is not None:
            started = time.perf_counter()
            await call(writer, {"op": "status"})
            round_trips.append(time.perf_counter() - started)
        key = f"{key_prefix}{i}"
        watches = [await watch(reader, key) for reader in readers]
        arrivals = asyncio.gather(*(_first_change(w) for w in watches))
        record = bench_record(key, _ms(), b"value %d" % i)
        started = time.perf_counter()
        await call(writer, {"op": "put", "record": record.encode()})
        done = max(await asyncio.wait_for(arrivals, 300))
        results.append(done - started)
    return results


def propagation_apart(writer: Path, readers: list[Path], writes: int) -> list[float]:
    """`propagation_between` in a process of its own (run it in a process pool): an honest
    client that shares no event loop and no interpreter lock with whatever else is running."""
    return asyncio.run(propagation_between(writer, readers, writes))


def seed_store(path: Path, keys: int, now: int) -> None:
    """Fill a store with `keys` records with one-grant chains, stamped before `now`."""
    store = SqliteStore(path, ROOT.pk, synchronous="OFF")
    with store.transaction():
        for i in range(keys):
            record = bench_record(f"/bench/bulk/{i:06d}", now - keys + i, b"v" * 64)
            receive_record(store, record.encode(), ROOT.pk, now)
    store.close()


def place(template: Path, data_dir: Path) -> None:
    """Give a node a copy of a seeded store (its node id comes from its own identity key)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    target = data_dir / "store.db"
    private_file(target)  # the copy keeps the 0600 the node insists on
    shutil.copyfile(template, target)


async def propagation_at(
    base: Path, template: Path | None, writes: int, round_trips: list[float], *, push: bool = True
) -> list[float]:
    """Propagation times on a fresh 3-node cluster whose nodes start from `template`."""
    cluster = LocalCluster(base, ROOT.pk, resync_interval=600)
    try:
        for name in "abc":
            node = await cluster.add(name, start=False, push=push or name != "a")
            if template is not None:
                place(template, node.data_dir)
            await node.agent.start()
            await node.start()
        await cluster.converged(timeout=120)
        await cluster.linked()  # no write may land before the nodes see each other
        return await propagation(cluster, writes, round_trips)
    finally:
        await cluster.close()


async def catch_up(base: Path, template: Path, keys: int) -> float:
    """Seconds from a fresh node's start until it holds all `keys` keys of node s."""
    cluster = LocalCluster(base, ROOT.pk, resync_interval=600)
    try:
        source = await cluster.add("s", start=False)
        place(template, source.data_dir)
        await source.agent.start()
        await source.start()
        fresh = await cluster.add("f", start=False)
        await fresh.agent.start()
        started = time.perf_counter()
        await fresh.start()
        while int((await fresh.status())["keys"]) < keys:
            await asyncio.sleep(0.05)
        return time.perf_counter() - started
    finally:
        await cluster.close()


def reconcile_cost(mine: list[recon.Item], theirs: list[recon.Item]) -> tuple[int, int]:
    """Round trips and bytes (both ways) until the initiator holding `mine` is done."""
    message: bytes | None = recon.initiate(mine)
    rounds = sent = 0
    while message is not None:
        reply = recon.step(theirs, message, initiator=False).reply or b""
        rounds, sent = rounds + 1, sent + len(message) + len(reply)
        message = recon.step(mine, reply, initiator=True).reply
    return rounds, sent


def recon_table(n: int, seed: int = 1) -> list[tuple[str, int, int, float]]:
    """(case, round trips, bytes, bytes per differing key) at `n` items."""
    rng = random.Random(seed)
    base = sorted((1_700_000_000_000 + i, sha256(b"%d" % i)) for i in range(n))
    rows = []
    for d in (1, 10, 100, 1000):
        theirs = list(base)
        for k in rng.sample(range(n), d):  # the peer holds a newer version of d random keys
            theirs[k] = (base[k][0] + 1, sha256(b"new %d" % k))
        rounds, sent = reconcile_cost(base, sorted(theirs))
        rows.append((f"{d} differing key(s) of {n:,}", rounds, sent, sent / d))
    rounds, sent = reconcile_cost([], base)
    rows.append((f"empty peer, {n:,} keys", rounds, sent, sent / n))
    return rows


def _line(label: str, seconds: list[float]) -> str:
    ms = [t * 1000 for t in seconds]
    return (
        f"| {label} | {len(ms)} | {statistics.median(ms):.1f} | {percentile(ms, 0.99):.1f} "
        f"| {max(ms):.1f} |"
    )


PARTS = ("recon", "propagation", "backup", "catch-up")


async def main(args: argparse.Namespace) -> None:
    parts = set(args.only or PARTS)
    if "recon" in parts:
        print_recon(args.keys)
    if parts == {"recon"}:
        return
    with tempfile.TemporaryDirectory(prefix="kv-bench-") as tmp:
        root, now = Path(tmp), _ms()
        templates: dict[int, Path | None] = {0: None}
        round_trips: list[float] = []
        sizes = {args.small, args.keys} if "propagation" in parts else {args.keys}
        for keys in sorted(sizes):
            templates[keys] = root / f"template-{keys}.db"
            seed_store(root / f"template-{keys}.db", keys, now)
        print()
        if parts & {"propagation", "backup"}:
            print("Write on a, stored on b and c (3 nodes, real Serf agents, loopback; ms;")
            print("targets: p50 <= 5 and p99 <= 25 with push, p50 <= 150 for the backup path):")
            print("| case | writes | p50 | p99 | max |")
            print("|---|---:|---:|---:|---:|")
        if "propagation" in parts:
            for keys, template in templates.items():
                times = await propagation_at(root / f"p{keys}", template, args.writes, round_trips)
                print(_line(f"push, {keys:,} keys on every node", times), flush=True)
        if "backup" in parts:
            times = await propagation_at(
                root / "backup", None, args.backup_writes, round_trips, push=False
            )
            print(_line("backup path alone (kvg-ch, then fetch), 0 keys", times), flush=True)
        if round_trips:
            print(_line("for scale: an empty control request to a, round trip", round_trips))
        if "catch-up" in parts:
            template = templates[args.keys]
            assert template is not None
            seconds = await catch_up(root / "catch-up", template, args.keys)
            print()
            print(f"Fresh node pulling {args.keys:,} keys with one-grant chains (target <= 15 s):")
            print(f"  {seconds:.1f} s ({args.keys / seconds:,.0f} keys/s)")


def print_recon(keys: int) -> None:
    """The reconciliation table."""
    print("Reconciliation, counted on the spec's messages (targets: <= 3 round trips and")
    print("<= 4 KB per isolated differing key at 100,000 keys, <= 40 B per key for an empty peer):")
    print("| case | round trips | bytes | bytes per differing key |")
    print("|---|---:|---:|---:|")
    for case, rounds, sent, per_key in recon_table(keys):
        print(f"| {case} | {rounds} | {sent:,} | {per_key:,.0f} |")


def cli() -> None:
    """Parse arguments and run the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writes", type=int, default=200, help="writes per propagation case")
    parser.add_argument("--backup-writes", type=int, default=30)
    parser.add_argument("--small", type=int, default=2_000, help="keys of the small store")
    parser.add_argument("--keys", type=int, default=100_000, help="keys of the large store")
    parser.add_argument("--only", nargs="+", choices=PARTS, help="run only these parts")
    asyncio.run(main(parser.parse_args()))


if __name__ == "__main__":
    cli()
