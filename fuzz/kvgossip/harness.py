"""Running one scenario and checking the convergence properties (notes section 5 case 32).

After every scripted operation, the partition's end and the churned node's return, the run
goes on until the honest nodes agree and no session is running (or a time limit passes). Then:
- every honest node has the same records and the same revocation set;
- every key holds the oracle's record: the LWW maximum, compared as plain `(ts, entry_hash)`
  tuples, over the records honest nodes created whose chain holds no revoked grant (under the
  full set of revocations ever made) and that were not superseded everywhere by a newer record;
- no session is left running.
The safety checks of `world.World` run on every store change throughout.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from swarmconf.spec.kvgossip.grants import grant_id_of
from swarmconf.spec.kvgossip.records import Record

from .attacker import FORGERIES, attack
from .node import SimNode
from .scenario import T0, Op, Scenario
from .world import World

CHECK_PERIOD_MS = 1000
DRAIN_MS = 60_000


def build_world(scenario: Scenario) -> World:
    """The world of a scenario, with every node joined and every operation scheduled."""
    world = World(scenario.seed, scenario.root, scenario.faults)
    world.scheduler.now = 0
    world.network.latency = dict(scenario.latency)
    for name, identity in scenario.identities.items():
        offset = scenario.offsets[name] + T0
        world.nodes[name] = SimNode(name, identity, scenario.grants, offset, world)
        if name != scenario.attacker:
            world.honest.add(name)
    sched = world.scheduler
    if scenario.churn is not None:
        name, leave, back = scenario.churn
        sched.at(leave, world.nodes[name].leave)
        sched.at(back, world.nodes[name].join)
    for op in scenario.ops:
        sched.at(op.at, partial(_perform, world, scenario, op))
    if scenario.partition is not None:
        start, end, groups = scenario.partition
        sched.at(start, lambda: setattr(world.network, "groups", groups))
        sched.at(end, lambda: setattr(world.network, "groups", []))
    for i, node in enumerate(world.nodes.values()):
        periodic_query(
            world, node, first=(i * 997) % scenario.query_period_ms, period=scenario.query_period_ms
        )
    return world


def _perform(world: World, scenario: Scenario, op: Op) -> None:
    nodes = world.nodes
    if op.kind == "write":
        nodes[op.node].write(op.key, op.value)
    elif op.kind == "conflict":
        ts = nodes[op.node].clock()
        nodes[op.node].write(op.key, op.value, ts)
        nodes[op.other].write(op.key, b"c" if op.value != b"c" else b"d", ts)
    elif op.kind == "revoke":
        holder = scenario.issuers[op.grant]
        nodes[holder].revoke(scenario.grants[op.grant], scenario.identities[holder])
    elif op.kind == "attack":
        attack(nodes[op.node], FORGERIES[op.pick % len(FORGERIES)], op.pick, op.other)


def periodic_query(world: World, node: SimNode, first: int, period: int) -> None:
    """`node` sends a state query at `first` and every `period` ms after."""

    def tick() -> None:
        node.state_query()
        world.scheduler.after(period, tick)

    world.scheduler.at(first, tick)


def honest_states(world: World) -> dict[str, dict[str, bytes]]:
    return {
        n: {k: r.entry_hash for k, r in world.nodes[n].store.records.items()}
        for n in sorted(world.honest)
    }


def agreed(world: World) -> bool:
    states = list(honest_states(world).values())
    revsets = [world.nodes[n].store.revoked_ids() for n in world.honest]
    return all(s == states[0] for s in states) and all(r == revsets[0] for r in revsets)


def oracle(world: World) -> dict[str, bytes]:
    """The record every key must hold, computed from ground truth alone."""
    revoked = set(world.revocations)
    best: dict[str, Record] = {}
    for eh, record in world.created_records.items():
        if {grant_id_of(g) for g in record.chain} & revoked or eh in world.superseded:
            continue
        current = best.get(record.key)
        if current is None or (record.ts, eh) > (current.ts, current.entry_hash):
            best[record.key] = record
    return {k: r.entry_hash for k, r in best.items()}


def run_scenario(scenario: Scenario) -> dict[str, Any]:
    """Run a scenario to quiescence and check it; the JSON-able result."""
    world = build_world(scenario)
    last = max(
        [op.at for op in scenario.ops]
        + [scenario.partition[1] if scenario.partition else 0]
        + [scenario.churn[2] if scenario.churn else 0]
    )
    world.scheduler.run_until(last)
    deadline = last + scenario.settle_limit_ms
    calm = 0
    while world.scheduler.now < deadline and calm < 2:
        world.scheduler.run_until(world.scheduler.now + CHECK_PERIOD_MS)
        calm = calm + 1 if agreed(world) and world.quiet() else 0
    settle = world.scheduler.now - last
    # Drain: nothing new starts; every running session must end on its own.
    world.draining = True
    world.scheduler.run_until(world.scheduler.now + DRAIN_MS, lambda: not world.connections)
    states = honest_states(world)
    if not agreed(world):
        world.violation("honest nodes still disagree after healing")
    expected = oracle(world)
    for name, state in states.items():
        if state != expected:
            world.violation(f"{name} differs from the oracle on {sorted(_diff(state, expected))}")
    if world.connections:
        world.violation(f"{len(world.connections)} sessions never ended")
    return {
        "seed": scenario.seed,
        "violations": world.violations,
        "churn": scenario.churn is not None,
        "nodes": len(world.honest),
        "attacker": scenario.attacker is not None,
        "ops": len(scenario.ops),
        "sessions": world.sessions_run,
        "events": world.scheduler.executed,
        "settle_ms": settle,
        "keys": len(expected),
    }


def _diff(a: dict[str, bytes], b: dict[str, bytes]) -> set[str]:
    return {k for k in a.keys() | b.keys() if a.get(k) != b.get(k)}
