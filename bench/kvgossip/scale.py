"""K/V Gossip at 32 real nodes in network namespaces (`make bench-kv-scale`, as root).

Each node is a `swarmconf kv agent` with its own Serf agent in a namespace of the fault
harness's mesh (`testbed.fault_net`); bytes are read from the veth counters, memory from
/proc. The parts (`--only` runs some):

1. `curve`: fresh clusters of 3, 8, 16 and 32 nodes (`--sizes`): start-up time, each node's
   resident memory (node and Serf agent), bytes each node sends a second while idle, then
   writes on n0 timed until every other node stores them, next to raw Serf user events timed
   the same way (fired through n0's agent, until every other agent has streamed them), with
   the bytes each node sent per write and the CPU time each node spent on one.
2. `keys`: 31 nodes holding `--keys` keys; a fresh 32nd joins (time to hold them all, bytes
   it pulled, from how many peers); then writes and Serf events at 32 nodes holding them;
   then 8 fresh nodes join at once.
3. `faults`: the fault harness's drawn schedules (pause, isolate, majority/minority, bridge,
   crash, skew) at 32 nodes.
4. `partition`: a 16/16 partition with writers on both sides, then the heal: acknowledged
   writes lost, seconds to one tree hash, and the bytes the heal cost against the bytes the
   differing records make.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from bench.kvgossip.propagation import percentile, propagation_between, seed_store
from bench.kvgossip.testbed.fault_cluster import SERF_RPC_PORT, FaultCluster
from bench.kvgossip.testbed.fault_net import Traffic
from bench.kvgossip.testbed.fault_run import RunSettings, ScheduleResult, linked, run
from bench.kvgossip.testbed.fault_schedule import Fault
from swarmconf.reference.kvgossip.privacy import private_file
from swarmconf.reference.kvgossip.serf_rpc import SerfRPC, Stream, UserEvent
from swarmconf.spec.kvgossip.fixtures import ROOT

PARTS = ("curve", "keys", "faults", "partition")
EVENT = "bench-ev"
MIB = 1 << 20


def _ms() -> int:
    return time.time_ns() // 1_000_000


def load() -> str:
    """The load average now, for every figure."""
    one, five, _ = os.getloadavg()
    return f"load {one:.1f}/{five:.1f}"


async def _until(check: Callable[[], Awaitable[bool]], timeout: float, what: str) -> None:
    try:
        async with asyncio.timeout(timeout):
            while not await check():
                await asyncio.sleep(0.2)
    except TimeoutError as exc:
        raise TimeoutError(f"{what} not within {timeout} s") from exc


def traffic(cluster: FaultCluster) -> dict[int, Traffic]:
    """Every node's link counters now."""
    return {node.index: cluster.mesh.traffic(node.index) for node in cluster.nodes}


def sent_since(cluster: FaultCluster, before: dict[int, Traffic], nodes: list[int]) -> list[int]:
    """Bytes each of `nodes` sent since `before`."""
    return [(cluster.mesh.traffic(i) - before[i]).sent for i in nodes]


@dataclass
class Timings:
    """Propagation times (seconds) and what they cost the nodes."""

    seconds: list[float]
    bytes_per_node: float
    """Bytes each node sent per write (or event), the idle rate taken off."""
    cpu_per_node: float = 0.0
    """CPU seconds each node (and its agent) spent per write, the idle rate taken off."""

    def line(self, label: str) -> str:
        ms = [t * 1000 for t in self.seconds]
        cpu = f"{self.cpu_per_node * 1000:.2f}" if self.cpu_per_node else ""
        return (
            f"| {label} | {len(ms)} | {statistics.median(ms):.1f} | {percentile(ms, 0.99):.1f} "
            f"| {max(ms):.1f} | {self.bytes_per_node:,.0f} | {cpu} |"
        )


TIMING_HEADER = [
    "| case | n | p50 ms | p99 ms | max ms | bytes sent per node each | CPU ms per node each |",
    "|---|---:|---:|---:|---:|---:|---:|",
]


async def idle_rate(cluster: FaultCluster, seconds: float) -> tuple[float, float]:
    """Bytes a second and CPU seconds a second each running node spends while nothing is
    written (medians over the nodes)."""
    nodes = cluster.running
    before, cpu = traffic(cluster), [n.cpu_seconds() for n in nodes]
    started = time.monotonic()
    await asyncio.sleep(seconds)
    took = time.monotonic() - started
    sent = sent_since(cluster, before, [n.index for n in nodes])
    used = [n.cpu_seconds() - c for n, c in zip(nodes, cpu, strict=True)]
    return statistics.median(sent) / took, statistics.median(used) / took


async def kv_writes(
    cluster: FaultCluster, writes: int, idle: tuple[float, float], prefix: str
) -> Timings:
    """Writes on n0 timed until every other running node stores them."""
    nodes = cluster.running
    before, cpu = traffic(cluster), [n.cpu_seconds() for n in nodes]
    started = time.monotonic()
    seconds = await propagation_between(
        nodes[0].data_dir, [n.data_dir for n in nodes[1:]], writes, key_prefix=prefix
    )
    return _costs(cluster, seconds, writes, before, cpu, time.monotonic() - started, idle)


def _costs(
    cluster: FaultCluster,
    seconds: list[float],
    count: int,
    before: dict[int, Traffic],
    cpu: list[float],
    took: float,
    idle: tuple[float, float],
) -> Timings:
    nodes = cluster.running
    sent = sum(sent_since(cluster, before, [n.index for n in nodes])) / len(nodes)
    used = sum(n.cpu_seconds() - c for n, c in zip(nodes, cpu, strict=True)) / len(nodes)
    return Timings(
        seconds,
        max(0.0, sent - idle[0] * took) / count,
        max(0.0, used - idle[1] * took) / count,
    )


async def serf_events(cluster: FaultCluster, events: int, idle: tuple[float, float]) -> Timings:
    """Raw Serf user events fired through n0's agent, timed until every other running agent
    has streamed them to a client, as `kv_writes` times a write until every node stores it."""
    nodes = cluster.running
    clients = [await _serf_client(cluster, n.index) for n in nodes]
    try:
        streams = [await c.stream(f"user:{EVENT}") for c in clients[1:]]
        before, cpu = traffic(cluster), [n.cpu_seconds() for n in nodes]
        started, seconds = time.monotonic(), []
        for i in range(events):
            payload = b"%d" % i
            arrivals = asyncio.gather(*(_arrival(s, payload) for s in streams))
            sent = time.perf_counter()
            await clients[0].event(EVENT, payload)
            seconds.append(max(await asyncio.wait_for(arrivals, 60)) - sent)
        took = time.monotonic() - started
        return _costs(cluster, seconds, events, before, cpu, took, idle)
    finally:
        for client in clients:
            await client.close()


async def _serf_client(cluster: FaultCluster, node: int) -> SerfRPC:
    sock = await asyncio.to_thread(cluster.mesh.connect, node, SERF_RPC_PORT)
    token = cluster.key.rpc_token
    return await SerfRPC.connect("", 0, auth=token, sock=sock)


async def _arrival(stream: Stream, payload: bytes) -> float:
    async for record in stream:
        if isinstance(record, UserEvent) and record.payload == payload:
            return time.perf_counter()
    raise ConnectionError("the Serf stream ended")


def memory_lines(cluster: FaultCluster) -> list[str]:
    """Resident memory of every running node and its agent: median and max, MiB."""
    sizes = [node.resident() for node in cluster.running]
    kv = [s[0] / MIB for s in sizes]
    serf = [s[1] / MIB for s in sizes if len(s) > 1]
    both = [sum(s) / MIB for s in sizes]
    return [
        f"  resident memory per node, MiB (median / max): node {statistics.median(kv):.1f} / "
        f"{max(kv):.1f}, Serf agent {statistics.median(serf):.1f} / {max(serf):.1f}, "
        f"both {statistics.median(both):.1f} / {max(both):.1f}; all {len(sizes)} nodes "
        f"{sum(both) / 1024:.2f} GiB",
    ]


async def part_curve(args: argparse.Namespace, base: Path) -> None:
    print("## Cluster size curve (empty stores)\n", flush=True)
    rows = []
    for size in args.sizes:
        cluster = FaultCluster(base / f"curve{size}", ROOT.pk, size, args.resync)
        started = time.monotonic()
        await cluster.start()
        try:
            await linked(cluster, 300)
            took = time.monotonic() - started
            print(f"{size} nodes: started and linked in {took:.1f} s ({load()})")
            print("\n".join(memory_lines(cluster)), flush=True)
            idle = await idle_rate(cluster, args.idle)
            print(
                f"  idle: {idle[0]:,.0f} bytes/s sent per node (median over {args.idle:.0f} s), "
                f"{idle[1] * 1000:.1f} ms CPU/s per node ({load()})",
                flush=True,
            )
            writes = args.writes if size == max(args.sizes) else args.small_writes
            kv = await kv_writes(cluster, writes, idle, f"/bench/curve{size}/")
            serf = await serf_events(cluster, writes, idle)
            rows.append((size, took, idle, kv, serf, load()))
            print(*TIMING_HEADER, sep="\n")
            print(kv.line(f"K/V write, {size} nodes, 0 keys"))
            print(serf.line(f"Serf user event, {size} nodes"))
            print(f"  p99 ratio K/V / Serf: {_ratio(kv, serf):.2f} ({load()})\n", flush=True)
        finally:
            await cluster.close()
    print("| nodes | start-up s | idle bytes/s per node | idle CPU ms/s per node | write p99 ms "
          "| Serf event p99 ms | p99 ratio | bytes per node per write | load |")  # fmt: skip
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for size, took, idle, kv, serf, when in rows:
        print(
            f"| {size} | {took:.1f} | {idle[0]:,.0f} | {idle[1] * 1000:.1f} "
            f"| {percentile(kv.seconds, 0.99) * 1000:.1f} "
            f"| {percentile(serf.seconds, 0.99) * 1000:.1f} | {_ratio(kv, serf):.2f} "
            f"| {kv.bytes_per_node:,.0f} | {when} |"
        )
    print(flush=True)


def _ratio(kv: Timings, serf: Timings) -> float:
    return percentile(kv.seconds, 0.99) / percentile(serf.seconds, 0.99)


def place(template: Path, data_dir: Path) -> None:
    """Give a node a copy of a seeded store."""
    target = data_dir / "store.db"
    private_file(target)
    shutil.copyfile(template, target)


async def keys_of(cluster: FaultCluster, index: int) -> int:
    try:
        return int((await cluster.nodes[index].call({"op": "status"}))["status"]["keys"])
    except Exception:  # not answering yet: starting, or busy applying
        return -1


async def joiners(
    cluster: FaultCluster, fresh: list[int], keys: int, timeout: float
) -> list[tuple[float, int, int, list[int]]]:
    """Start the `fresh` nodes at once; for each, seconds until it held `keys` keys, bytes it
    received, from how many peers (more than 64 KiB), and its bytes from each of those."""
    before = traffic(cluster)
    started = time.monotonic()
    done: dict[int, float] = {}

    async def one(index: int) -> None:
        await cluster.nodes[index].start()
        while await keys_of(cluster, index) < keys:
            await asyncio.sleep(0.2)
        done[index] = time.monotonic() - started

    await asyncio.wait_for(asyncio.gather(*(one(i) for i in fresh)), timeout)
    results = []
    for index in fresh:
        got = cluster.mesh.traffic(index) - before[index]
        sources = sorted((rx for _, rx in got.by_peer.values() if rx > 64 << 10), reverse=True)
        results.append((done[index], got.received, len(sources), sources))
    return results


def _join_lines(label: str, results: list[tuple[float, int, int, list[int]]]) -> list[str]:
    lines = []
    for index, (seconds, received, peers, sources) in enumerate(results):
        top = ", ".join(f"{b / MIB:.1f}" for b in sources[:4])
        lines.append(
            f"  {label} {index}: {seconds:.1f} s, pulled {received / MIB:.1f} MiB from {peers} "
            f"peer(s) (largest MiB: {top})"
        )
    return lines


async def part_keys(args: argparse.Namespace, base: Path) -> None:
    holders, joining = args.nodes - 1, 8
    print(f"## {args.nodes} nodes holding {args.keys:,} keys\n", flush=True)
    template = base / "template.db"
    started = time.monotonic()
    seed_store(template, args.keys, _ms())
    print(f"store of {args.keys:,} keys seeded in {time.monotonic() - started:.1f} s, "
          f"{template.stat().st_size / MIB:.0f} MiB", flush=True)  # fmt: skip
    cluster = FaultCluster(base / "keys", ROOT.pk, holders + joining, args.resync)
    cluster.prepare()
    try:
        for i in range(holders):
            place(template, cluster.nodes[i].data_dir)
        started = time.monotonic()
        await cluster.launch(range(holders))
        await linked(cluster, 300)
        print(f"{holders} nodes holding {args.keys:,} keys started and linked in "
              f"{time.monotonic() - started:.1f} s ({load()})")  # fmt: skip
        print("\n".join(memory_lines(cluster)), flush=True)
        result = await joiners(cluster, [holders], args.keys, args.join_timeout)
        print(f"A fresh node joining {holders} ({load()}):")
        print("\n".join(_join_lines("fresh node", result)), flush=True)
        await linked(cluster, 120)
        print("\n".join(memory_lines(cluster)), flush=True)
        idle = await idle_rate(cluster, args.idle)
        print(f"  idle at {args.nodes} nodes holding {args.keys:,} keys: {idle[0]:,.0f} bytes/s, "
              f"{idle[1] * 1000:.1f} ms CPU/s per node ({load()})")  # fmt: skip
        kv = await kv_writes(cluster, args.writes, idle, "/bench/keys/")
        serf = await serf_events(cluster, args.writes, idle)
        print(*TIMING_HEADER, sep="\n")
        print(kv.line(f"K/V write, {args.nodes} nodes, {args.keys:,} keys"))
        print(serf.line(f"Serf user event, {args.nodes} nodes"))
        print(f"  p99 ratio K/V / Serf: {_ratio(kv, serf):.2f} ({load()})\n", flush=True)
        fresh = cluster.nodes[holders]
        await fresh.stop()
        shutil.rmtree(fresh.data_dir)
        fresh.data_dir.mkdir(mode=0o700)
        everyone = [*range(holders, holders + joining)]
        result = await joiners(cluster, everyone, args.keys, args.join_timeout)
        print(f"{joining} fresh nodes joining {holders} at once ({load()}):")
        print("\n".join(_join_lines("fresh node", result)), flush=True)
        print()
    finally:
        await cluster.close()


def _lost(result: ScheduleResult) -> int:
    return sum(f.startswith("acknowledged write") for f in result.findings)


async def part_faults(args: argparse.Namespace, base: Path) -> None:
    print(f"## Fault schedules at {args.nodes} nodes\n", flush=True)
    settings = RunSettings(
        size=args.nodes, schedules=args.schedules, length=args.length, bound=args.bound,
        seed=args.seed, pace=args.pace,
    )  # fmt: skip
    results = await run(base / "faults", ROOT.pk, settings, _progress)
    _tally(results)


async def part_partition(args: argparse.Namespace, base: Path) -> None:
    half = args.nodes // 2
    print(f"## {half}/{args.nodes - half} partition for {args.partition:.0f} s, writers on both "
          "sides, then the heal\n", flush=True)  # fmt: skip
    settings = RunSettings(
        size=args.nodes, schedules=args.partitions, length=args.partition + 1, bound=args.bound,
        seed=args.seed, pace=args.pace, quiet_heal=True,
        plan=(Fault("majority", 1.0, args.partition, tuple(range(half))),),
    )  # fmt: skip
    results = await run(base / "partition", ROOT.pk, settings, _progress)
    _tally(results)
    for r in results:
        if r.heal_bytes is not None and r.crossing_bytes:
            print(
                f"  schedule {r.index}: the heal sent {r.heal_bytes / MIB:.2f} MiB in all; the "
                f"records written during the partition make {r.crossing_bytes / MIB:.2f} MiB "
                f"across the cut ({r.heal_bytes / r.crossing_bytes:.1f}x)"
            )


def _progress(result: ScheduleResult) -> None:
    converged = "never" if result.converged is None else f"{result.converged:.2f} s"
    print(
        f"schedule {result.index}: {len(result.faults)} faults "
        f"({', '.join(a.fault.kind for a in result.faults)}), {result.acknowledged} writes "
        f"acknowledged, one tree hash {converged} after the heal, {_lost(result)} acknowledged "
        f"lost, {len(result.findings)} findings ({load()})",
        flush=True,
    )
    for finding in result.findings[:5]:
        print(f"    {finding}")


def _tally(results: list[ScheduleResult]) -> None:
    times = [r.converged for r in results if r.converged is not None]
    print(
        f"{len(results)} schedules: {sum(r.acknowledged for r in results):,} writes acknowledged,"
        f" {sum(_lost(r) for r in results)} lost, {sum(len(r.findings) for r in results)} "
        f"findings; converged {len(times)} of {len(results)}"
        + (f", median {statistics.median(times):.2f} s, max {max(times):.2f} s" if times else ""),
        flush=True,
    )


async def main(args: argparse.Namespace) -> None:
    print(f"`{' '.join(['python -m bench.kvgossip.scale', *sys.argv[1:]])}`, "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores, "
          f"{load()}\n", flush=True)  # fmt: skip
    parts = {
        "curve": part_curve,
        "keys": part_keys,
        "faults": part_faults,
        "partition": part_partition,
    }
    task = asyncio.current_task()
    assert task is not None
    for signum in (signal.SIGINT, signal.SIGTERM):  # stop the nodes, remove the namespaces
        asyncio.get_running_loop().add_signal_handler(signum, task.cancel)
    with tempfile.TemporaryDirectory(prefix="kv-scale-") as tmp:
        for name in args.only or PARTS:
            started = time.monotonic()
            await parts[name](args, Path(tmp))
            print(f"({name}: {(time.monotonic() - started) / 60:.1f} min)\n", flush=True)


def cli() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=PARTS, help="run only these parts")
    parser.add_argument("--nodes", type=int, default=32)
    parser.add_argument("--sizes", type=int, nargs="+", default=[3, 8, 16, 32])
    parser.add_argument("--keys", type=int, default=100_000)
    parser.add_argument("--writes", type=int, default=100, help="writes at the largest size")
    parser.add_argument("--small-writes", type=int, default=30, help="writes at smaller sizes")
    parser.add_argument("--idle", type=float, default=30.0, help="seconds of idle measured")
    parser.add_argument("--resync", type=float, default=30.0, help="the nodes' --resync")
    parser.add_argument("--join-timeout", type=float, default=600.0)
    parser.add_argument("--schedules", type=int, default=3)
    parser.add_argument("--length", type=float, default=10.0, help="seconds of faults")
    parser.add_argument("--partition", type=float, default=20.0, metavar="SECONDS")
    parser.add_argument("--partitions", type=int, default=1)
    parser.add_argument("--pace", type=float, default=2.0, help="seconds between one client's ops")
    parser.add_argument("--bound", type=float, default=120.0, help="seconds to converge")
    parser.add_argument("--seed", type=int, default=1)
    with contextlib.suppress(asyncio.CancelledError):
        asyncio.run(main(parser.parse_args()))


if __name__ == "__main__":
    cli()
