"""Fault schedules run one after another on one cluster in namespaces, each judged after its heal.

For each schedule: its clients start (`fault_workload`), its faults are applied one by one
(`fault_schedule`, `fault_cluster`), the clients stop, and once the last fault has ended
(links up, every node running) the nodes are polled until every acknowledged write so far is on
every node and all agree on their hashes, or `bound` seconds pass. Then the checker
(`fault_history`) judges the whole history so far. A fault the harness cannot apply is reported
as a finding of its schedule, never raised.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from swarmconf.reference.kvgossip.control import ControlError

from .fault_cluster import FaultCluster, FaultNode
from .fault_history import FORGED, GRANTED, WRITE, Final, History, Op, lost_writes, violations
from .fault_schedule import KINDS, Fault, draw
from .fault_workload import PACE, Workload


@dataclass
class Applied:
    """A fault as it happened: begun and ended, in seconds since the run began."""

    fault: Fault
    began: float
    ended: float


@dataclass
class ScheduleResult:
    """One schedule's timeline, tallies and findings."""

    index: int
    began: float
    faults: list[Applied] = field(default_factory=list)
    healed: float = 0.0
    converged: float | None = None
    """Seconds from the heal until every acknowledged write was everywhere and all nodes
    agreed; None if not within the bound."""
    acknowledged: int = 0
    unanswered: int = 0
    forged_refused: int = 0
    reads: int = 0
    findings: list[str] = field(default_factory=list)
    heal_bytes: int | None = None
    """Bytes every node sent from the heal until it converged (read off the links)."""
    crossing_bytes: int = 0
    """Bytes of the records acknowledged during a partition times the nodes on the other side
    of the cut: what the heal has to move at the least."""


@dataclass
class RunSettings:
    """What a run does: `schedules` schedules of about `length` seconds of faults each."""

    size: int = 3
    schedules: int = 1
    length: float = 8.0
    bound: float = 60.0
    seed: int = 1
    kinds: tuple[str, ...] = KINDS
    resync_interval: float = 30.0
    plan: tuple[Fault, ...] = ()
    """Faults every schedule applies, instead of drawn ones."""
    quiet_heal: bool = False
    """Stop the clients before the last fault ends: the convergence and the bytes after the
    heal are then the heal's alone."""
    pace: float = PACE
    """Seconds between one client's operations."""


async def run(
    base_dir: Path,
    root: bytes,
    settings: RunSettings,
    report: Callable[[ScheduleResult], None] = lambda result: None,
) -> list[ScheduleResult]:
    """Run the schedules on a fresh cluster; the namespaces are gone when this returns."""
    cluster = FaultCluster(base_dir, root, settings.size, settings.resync_interval)
    await cluster.start()
    loop = asyncio.get_running_loop()
    origin = loop.time()

    def clock() -> float:
        return loop.time() - origin

    history, results = History(), []
    try:
        await linked(cluster, settings.bound)
        for index in range(settings.schedules):
            result = await _schedule(cluster, history, index, settings, clock)
            results.append(result)
            report(result)
    finally:
        await cluster.close()
    return results


async def _schedule(
    cluster: FaultCluster,
    history: History,
    index: int,
    settings: RunSettings,
    clock: Callable[[], float],
) -> ScheduleResult:
    rng = random.Random(settings.seed * 100_003 + index)
    faults = list(settings.plan) or draw(rng, settings.size, settings.length, settings.kinds)
    workload = Workload(cluster, history, index, rng, clock, settings.pace)
    first_op = len(history.ops)
    result = ScheduleResult(index, clock())
    clients = [
        asyncio.create_task(task)
        for task in workload.tasks(rng.uniform(0.2, 0.8) * settings.length)
    ]
    for n, fault in enumerate(faults, start=1):
        await asyncio.sleep(max(0.0, result.began + fault.start - clock()))
        began = clock()
        try:
            await cluster.begin(fault)
            await asyncio.sleep(fault.duration)
        except Exception as exc:  # a finding, not a crash of the run
            result.findings.append(f"could not apply {fault.describe(settings.size)}: {exc!r}")
        finally:
            if settings.quiet_heal and n == len(faults):
                workload.stop.set()
                await asyncio.gather(*clients)
            try:
                await cluster.end(fault)
            except Exception as exc:
                result.findings.append(f"could not end {fault.describe(settings.size)}: {exc!r}")
        result.faults.append(Applied(fault, began, clock()))
    workload.stop.set()
    await asyncio.gather(*clients)
    result.healed = clock()
    before = [cluster.mesh.traffic(i).sent for i in range(cluster.size)]
    finals = await _settled(cluster, history, settings.bound)
    if finals is not None:
        result.converged = clock() - result.healed
        after = [cluster.mesh.traffic(i).sent for i in range(cluster.size)]
        result.heal_bytes = sum(after) - sum(before)
    else:
        finals = await _finals(cluster) or {}
        result.findings.append(f"not converged within {settings.bound} s of the heal")
    result.findings += violations(history, finals)
    ops = history.ops[first_op:]
    result.acknowledged = sum(op.kind in (WRITE, GRANTED) and op.outcome == "ok" for op in ops)
    result.unanswered = sum(op.kind in (WRITE, GRANTED) and op.outcome == "unknown" for op in ops)
    result.forged_refused = sum(op.kind == FORGED and op.outcome == "fail" for op in ops)
    result.reads = sum(op.kind == "read" for op in ops)
    result.crossing_bytes = _crossing(ops, result.faults, cluster.size)
    return result


def _crossing(ops: list[Op], faults: list[Applied], size: int) -> int:
    """Bytes of the writes acknowledged during a partition, each times the nodes on the other
    side of the cut."""
    total = 0
    for applied in faults:
        if applied.fault.kind != "majority":
            continue
        side = set(applied.fault.nodes)
        for op in ops:
            acknowledged = op.kind in (WRITE, GRANTED) and op.outcome == "ok"
            if acknowledged and applied.began <= op.start and op.end <= applied.ended:
                total += op.size * (size - len(side) if op.node in side else len(side))
    return total


async def linked(cluster: FaultCluster, timeout: float) -> None:
    """Wait until every running node sees every other one alive in Serf (and so pushes to its
    nearest): the membership is complete."""
    nodes = cluster.running
    async with asyncio.timeout(timeout):
        while True:
            try:
                statuses = [(await n.call({"op": "status"}))["status"] for n in nodes]
            except (ControlError, TimeoutError, OSError):
                statuses = []
            if statuses and all(s["peers_alive"] == len(nodes) - 1 for s in statuses):
                return
            await asyncio.sleep(0.2)


async def _finals(cluster: FaultCluster) -> dict[int, Final] | None:
    """Every node's values and hashes now, or None while one does not answer or changes
    while it is read (its hashes are read before and after its values)."""
    finals = {}
    for node in cluster.nodes:
        try:
            before = await _hashes(node)
            records = (await node.call({"op": "list", "prefix": "/"}))["records"]
            if await _hashes(node) != before:
                return None
        except (ControlError, TimeoutError, OSError):
            return None
        values = {r["key"]: bytes(r["value"]) if r["state"] == "set" else None for r in records}
        finals[node.index] = Final(values, before)
    return finals


async def _hashes(node: FaultNode) -> tuple[str, str]:
    status = (await node.call({"op": "status"}))["status"]
    return str(status["tree_hash"]), str(status["revset_hash"])


async def _settled(
    cluster: FaultCluster, history: History, bound: float
) -> dict[int, Final] | None:
    """The final states once every acknowledged write is everywhere and all nodes agree, or
    None after `bound` seconds."""
    try:
        async with asyncio.timeout(bound):
            while True:
                finals = await _finals(cluster)
                if (
                    finals is not None
                    and len({f.hashes for f in finals.values()}) == 1
                    and not lost_writes(history, finals)
                ):
                    return finals
                await asyncio.sleep(0.2)
    except TimeoutError:
        return None
