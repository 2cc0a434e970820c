"""Honest writes while one node is under attack (`make bench-kv`, after the sync figures).

Three nodes with real Serf agents on loopback. For each kind of attack, `--hostile` hostile
connections (or notices) hit node a while `--writes` honest writes on a are timed until both b
and c store them, by a client in a process of its own (the attacks run in this one); the
resident size of every node is sampled before and during the attack, and
strangers (no cluster key) try to open sessions. Targets: p50 <= 10 ms, p99 <= 50 ms, every
node under 2x its baseline RSS, no stranger answered. Between rows it waits until every node is
back near its baseline RSS, so that no row times the release of the previous one's memory.

The two attacks that repeat run at the rates of the threat they stand for, on the same two
cores as the nodes: the reconnect storm's 200 strangers make 2,000 connects a second in all (the
rate measured against the unprotected node: 61,035 connects in 30 s), and the forged change
notices come as a round of 200 every second. `--storm-rate 0` and `--notice-rate 0` run them
unpaced, as fast as this process can; then most of what the honest writes wait for is the
attacker's own CPU and, for the notices, the Serf agent that gossips them (`--cpu` shows the
split). `--only WORDS` runs only the matching rows.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import multiprocessing
import os
import tempfile
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ProcessPoolExecutor
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path

from bench.kvgossip.propagation import propagation, propagation_apart
from bench.kvgossip.testbed import attacks
from bench.kvgossip.testbed.localcluster import LocalCluster, LocalNode
from swarmconf.reference.kvgossip.identity import Identity
from swarmconf.spec.kvgossip.fixtures import ROOT

MIB = 1 << 20
SETTLED_RSS = 1.2
SETTLE_TIMEOUT = 10.0
Attack = Callable[[LocalCluster, LocalNode, int], AbstractAsyncContextManager[None]]


async def _repeat(
    stop: asyncio.Event, round_: Callable[[], Awaitable[object]], period: float
) -> None:
    while not stop.is_set():
        started = time.monotonic()
        await round_()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), period - (time.monotonic() - started))


@asynccontextmanager
async def _until_stopped(
    make_round: Callable[[], Awaitable[object]], period: float = 0.0
) -> AsyncIterator[None]:
    """Run attack rounds while the block runs: one every `period` seconds, or back to back."""
    stop = asyncio.Event()
    task = asyncio.create_task(_repeat(stop, make_round, period))
    try:
        yield
    finally:
        stop.set()
        await task


@asynccontextmanager
async def idle(cluster: LocalCluster, a: LocalNode, count: int) -> AsyncIterator[None]:
    held = await attacks.idle_strangers(await _port(a), count)
    yield
    attacks.close_all(held)


@asynccontextmanager
async def stranger_hellos(cluster: LocalCluster, a: LocalNode, count: int) -> AsyncIterator[None]:
    held = await attacks.stranger_hellos(await _port(a), count)
    yield
    attacks.close_all(held)


@asynccontextmanager
async def storm(
    cluster: LocalCluster, a: LocalNode, count: int, rate: float = 0.0
) -> AsyncIterator[None]:
    """`count` strangers connecting and dropping, `rate` connects a second in all (0: as fast
    as they can)."""
    stop = asyncio.Event()
    task = asyncio.create_task(attacks.reconnect_storm(await _port(a), count, stop, rate))
    yield
    stop.set()
    await task


@asynccontextmanager
async def squatters(cluster: LocalCluster, a: LocalNode, count: int) -> AsyncIterator[None]:
    port = await _port(a)
    identity = Identity.generate()
    await cluster.add_member("squatter", identity)
    directory = await cluster.directory()
    held = await attacks.member_squatters(port, cluster.key, identity, directory, count)
    yield
    attacks.close_all(held)


@asynccontextmanager
async def impostors(cluster: LocalCluster, a: LocalNode, count: int) -> AsyncIterator[None]:
    port = await _port(a)
    identity = Identity.generate()
    await cluster.add_member("impostor", identity)
    directory = await cluster.directory()

    def round_() -> Awaitable[object]:
        impostor = attacks.Impostor(identity.seed, claimed=os.urandom(16))
        return attacks.member_squatters(port, cluster.key, impostor, directory, count)

    async with _until_stopped(round_):
        yield


@asynccontextmanager
async def garbage(cluster: LocalCluster, a: LocalNode, count: int) -> AsyncIterator[None]:
    port = await _port(a)
    async with _until_stopped(lambda: attacks.garbage_frames(port, count, 4 * MIB - 1)):
        yield


@asynccontextmanager
async def control_flood(cluster: LocalCluster, a: LocalNode, count: int) -> AsyncIterator[None]:
    held = await attacks.control_flood(a.data_dir, count, 2 * MIB)
    attacks.close_all(held)  # the writes need the control socket too; the burst is the attack
    yield


@asynccontextmanager
async def notices(
    cluster: LocalCluster, a: LocalNode, count: int, rate: float = 0.0
) -> AsyncIterator[None]:
    """Rounds of `count` notices naming a, through b's agent: `rate` notices a second in all
    (a round every `count / rate` seconds), or back to back for rate 0."""
    a_id = bytes.fromhex((await a.status())["node_id"])
    rpc = await cluster.nodes["b"].agent.connect()
    try:
        async with _until_stopped(
            lambda: attacks.forged_notices(rpc, a_id, count, time.time_ns() // 1_000_000),
            count / rate if rate else 0.0,
        ):
            yield
    finally:
        await rpc.close()


@asynccontextmanager
async def nothing(cluster: LocalCluster, a: LocalNode, count: int) -> AsyncIterator[None]:
    yield


STORM = "reconnect storm (strangers)"
NOTICES = "forged change notices (member)"
ATTACKS: dict[str, Attack] = {
    "no attack (for comparison)": nothing,
    "idle connections (strangers)": idle,
    "HELLO without the key (strangers)": stranger_hellos,
    STORM: storm,
    "slot squatting (one member)": squatters,
    "claiming ids not its own (one member)": impostors,
    "4 MiB garbage frames (strangers)": garbage,
    "2 MiB control requests (local)": control_flood,
    NOTICES: notices,
}


async def honest_writes(
    cluster: LocalCluster, writes: int, pool: ProcessPoolExecutor
) -> list[float]:
    """Propagation times measured by a client in another process: the attacks run on this
    process's event loop, which must not delay the honest client's own reads and writes."""
    dirs = [cluster.nodes[name].data_dir for name in "abc"]
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(pool, propagation_apart, dirs[0], dirs[1:], writes)


async def _port(node: LocalNode) -> int:
    return int((await node.status())["sync_port"])


def _rss(node: LocalNode) -> int:
    assert node.process is not None
    return attacks.rss_bytes(node.process.pid)


@asynccontextmanager
async def _sampling(nodes: list[LocalNode], peak: dict[str, int]) -> AsyncIterator[None]:
    """Keep the highest RSS of each node in `peak`, sampled every 20 ms while the block runs."""

    async def sample() -> None:
        while True:
            for node in nodes:
                peak[node.name] = max(peak[node.name], _rss(node))
            await asyncio.sleep(0.02)

    task = asyncio.create_task(sample())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """A process's user and system CPU time so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICKS


def _processes(nodes: list[LocalNode]) -> dict[str, int]:
    """The processes whose CPU `--cpu` reports: each node, each Serf agent, and this one
    (where the attacks run)."""
    pids = {"attacker": os.getpid()}
    for node in nodes:
        assert node.process is not None and node.agent.pid is not None
        pids[f"node {node.name}"] = node.process.pid
        pids[f"serf {node.name}"] = node.agent.pid
    return pids


async def _settle(nodes: list[LocalNode], baseline: dict[str, int]) -> None:
    """Wait (at most `SETTLE_TIMEOUT` s) until every node is back near its baseline RSS, so
    the aftermath of one attack (the release of a burst's memory) is not timed in the next."""
    deadline = time.monotonic() + SETTLE_TIMEOUT
    while time.monotonic() < deadline:
        if all(_rss(n) < SETTLED_RSS * baseline[n.name] for n in nodes):
            return
        await asyncio.sleep(0.05)


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="kv-bench-attack-") as tmp:
        cluster = LocalCluster(Path(tmp) / "x", ROOT.pk, resync_interval=600)
        pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
        try:
            nodes = [await cluster.add(name) for name in "abc"]
            await cluster.converged()
            await cluster.linked()
            await propagation(cluster, 3)  # warm up
            await honest_writes(cluster, 3, pool)  # and the measuring process started
            a = nodes[0]
            baseline = {n.name: _rss(n) for n in nodes}
            print(
                f"honest writes on a -> stored on b and c while {args.hostile} hostile "
                f"connections of one kind hit a ({args.writes} writes each; targets p50 <= 10 ms, "
                "p99 <= 50 ms, RSS < 2x baseline, strangers answered: 0; reconnect storm: "
                f"{args.storm_rate:g} connects/s, forged notices: {args.notice_rate:g}/s; 0: "
                "unpaced):"
            )
            print(
                "  baseline RSS: " + ", ".join(f"{k} {v / MIB:.0f} MB" for k, v in baseline.items())
            )
            pids = _processes(nodes)
            rows: dict[str, Attack] = {
                **ATTACKS,
                STORM: functools.partial(storm, rate=args.storm_rate),
                NOTICES: functools.partial(notices, rate=args.notice_rate),
            }
            for name, attack in rows.items():
                if args.only and not any(word in name for word in args.only):
                    continue
                peak = dict(baseline)
                async with _sampling(nodes, peak), attack(cluster, a, args.hostile):
                    started = time.monotonic()
                    cpu = {k: cpu_seconds(pid) for k, pid in pids.items()}
                    times = await honest_writes(cluster, args.writes, pool)
                    elapsed = time.monotonic() - started
                    cpu = {k: cpu_seconds(pid) - cpu[k] for k, pid in pids.items()}
                    answered = await attacks.stranger_replies(await _port(a), 20)
                await _settle(nodes, baseline)
                ms = [t * 1000 for t in times]
                ratio = max(peak[k] / baseline[k] for k in peak)
                print(
                    f"  {name:38s} p50 {_percentile(ms, 0.5):6.1f} ms  "
                    f"p99 {_percentile(ms, 0.99):6.1f} ms  max RSS {ratio:.2f}x  "
                    f"strangers answered {answered}/20"
                )
                if args.cpu:
                    shares = ", ".join(f"{k} {v / elapsed:.0%}" for k, v in cpu.items())
                    print(f"    CPU over the {elapsed:.1f} s of honest writes: {shares}")
            status = await a.status()
            print(f"  node a refused connections: {status['refused_connections']}")
        finally:
            pool.shutdown()
            await cluster.close()


def cli() -> None:
    """Parse arguments and run the benchmark."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writes", type=int, default=50, help="honest writes per attack")
    parser.add_argument("--hostile", type=int, default=200, help="hostile connections per attack")
    parser.add_argument(
        "--storm-rate",
        type=float,
        default=2000.0,
        help="connects a second of the reconnect storm, in all (0: as fast as they can)",
    )
    parser.add_argument(
        "--notice-rate",
        type=float,
        default=200.0,
        help="forged change notices a second (0: rounds of --hostile back to back)",
    )
    parser.add_argument(
        "--only",
        action="append",
        metavar="WORDS",
        help="run only the attacks whose name contains WORDS (repeatable)",
    )
    parser.add_argument(
        "--cpu",
        action="store_true",
        help="print each process's CPU use (share of one core) while the writes are timed",
    )
    asyncio.run(main(parser.parse_args()))


if __name__ == "__main__":
    cli()
