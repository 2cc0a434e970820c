"""Benchmark of the K/V Gossip node on loopback with real Serf agents (`make bench-kv`).

1. Write propagation: a value written on node a, timed until both b and c report it (each
   watched over its control socket), repeated `--writes` times, optionally with `--preload`
   keys already on every node (a session's pass offers every key, so this grows with it).
2. Catch-up: a fresh node joins a node holding `--keys` keys, timed until it holds them all.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from swarmconf.spec.kvgossip.fixtures import ALICE, ROOT
from swarmconf.spec.kvgossip.grants import issue_grant
from swarmconf.spec.kvgossip.records import Record, make_record
from swarmconf.spec.kvgossip.state import receive_record

from .control import Watch, watch
from .localcluster import LocalCluster
from .store import SqliteStore

WRITER_GRANT = issue_grant(ROOT.seed, ALICE.pk, "/bench/**", subgrant=False, issued_at=1)
"""The benchmark writes as a non-root writer, so every record carries a one-grant chain."""


def _ms() -> int:
    return time.time_ns() // 1_000_000


def bench_record(key: str, ts: int, value: bytes) -> Record:
    """A record as the benchmark writes it: signed by the writer, its grant attached."""
    return make_record(ALICE.seed, key, ts, value, [WRITER_GRANT])


async def _first_change(changes: Watch) -> float:
    async for _ in changes:
        break
    changes.close()
    return time.perf_counter()


async def propagation(cluster: LocalCluster, writes: int) -> list[float]:
    """Seconds from each write on a until both b and c store it."""
    a, b, c = cluster.nodes["a"], cluster.nodes["b"], cluster.nodes["c"]
    results = []
    for i in range(writes):
        key = f"/bench/propagation/{i}"
        watches = [await watch(node.data_dir, key) for node in (b, c)]
        arrivals = asyncio.gather(*(_first_change(w) for w in watches))
        record = bench_record(key, _ms(), b"value %d" % i)
        started = time.perf_counter()
        await a.call({"op": "put", "record": record.encode()})
        done = max(await asyncio.wait_for(arrivals, 300))
        results.append(done - started)
    return results


def seed_store(path: Path, keys: int, now: int) -> None:
    """Fill a node's store with `keys` records with one-grant chains, stamped before `now`."""
    store = SqliteStore(path, ROOT.pk, synchronous="OFF")
    with store.transaction():
        for i in range(keys):
            record = bench_record(f"/bench/bulk/{i:05d}", now - keys + i, b"v" * 64)
            receive_record(store, record.encode(), ROOT.pk, now)
    store.close()


async def catch_up(cluster: LocalCluster, keys: int) -> float:
    """Seconds from a fresh node's start until it holds all `keys` keys of node s."""
    source = await cluster.add("s", start=False)
    seed_store(source.data_dir / "store.db", keys, _ms())
    await source.agent.start()
    await source.start()
    fresh = await cluster.add("f", start=False)
    await fresh.agent.start()
    started = time.perf_counter()
    await fresh.start()
    while int((await fresh.status())["keys"]) < keys:
        await asyncio.sleep(0.25)
    return time.perf_counter() - started


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="kv-bench-") as tmp:
        cluster = LocalCluster(Path(tmp) / "p", ROOT.pk, resync_interval=600)
        now = _ms()
        try:
            for name in "abc":
                node = await cluster.add(name, start=False)
                seed_store(node.data_dir / "store.db", args.preload, now)
                await node.agent.start()
                await node.start()
            await cluster.converged()
            times = await propagation(cluster, args.writes)
        finally:
            await cluster.close()
        ms = sorted(t * 1000 for t in times)
        print(
            f"write on a -> stored on b and c ({len(ms)} writes, {args.preload} keys already "
            "on every node, real Serf, loopback):"
        )
        print(
            f"  median {statistics.median(ms):.0f} ms, p90 {ms[int(len(ms) * 0.9) - 1]:.0f} ms, "
            f"min {ms[0]:.0f} ms, max {ms[-1]:.0f} ms"
        )
        if not args.keys:
            return
        cluster = LocalCluster(Path(tmp) / "s", ROOT.pk, resync_interval=600)
        try:
            seconds = await catch_up(cluster, args.keys)
        finally:
            await cluster.close()
        print(f"fresh node syncing {args.keys} keys from one peer (start to all stored):")
        print(f"  {seconds:.1f} s ({args.keys / seconds:.0f} keys/s)")


def cli() -> None:
    """Parse arguments and run the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writes", type=int, default=20)
    parser.add_argument("--keys", type=int, default=10_000, help="keys to catch up (0: skip)")
    parser.add_argument(
        "--preload", type=int, default=0, help="keys every node holds before the writes"
    )
    asyncio.run(main(parser.parse_args()))


if __name__ == "__main__":
    cli()
