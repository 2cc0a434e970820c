"""The simulation at size: one write spreading through `n` simulated nodes, measured.

A run builds `n` honest nodes on a plane (link latency 1-60 ms by distance), each holding the
same `preload` records, lets every node run its periodic state queries for one period, counts
one idle period, then has one node write one key and runs until every node holds the record
and no session is left, in whole periods. It measures, per node: the messages and bytes of the
write (the write's periods minus as many idle periods) and the idle bytes per second, by kind
(see `network.Traffic`, `serf`, `world`); the time each node first held the write; and the
rounds: the most message hops the record took from its writer to any node (push, relayed
push, fetch reply or session frame).

Two rule sets (`PROFILES`): `sim`, the rules the fuzz campaigns run (a state query every 5 s
and after every write, Serf events in one hop), and `node`, the rules of the node in
`reference/kvgossip` (a sweep every `resync_interval` of 30 s, none after a write, Serf
broadcasts through an epidemic tree of gossip ticks).
"""

from __future__ import annotations

import math
import random
import statistics
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache, partial

from swarmconf.reference.kvgossip.sizing import resync_interval
from swarmconf.spec.kvgossip.fixtures import Entity, entity
from swarmconf.spec.kvgossip.grants import Grant, issue_grant
from swarmconf.spec.kvgossip.records import Record, make_record

from ..heap import collector_paused
from .harness import periodic_query
from .network import Faults
from .node import Connection, SimNode
from .scenario import ISSUED, T0
from .serf import Gossip, membership_bytes_per_second
from .world import World

VALUE = b"v" * 64
WRITE_KEY = "/w/key"
MAX_PERIODS = 200
SPREAD = 59 / math.sqrt(2)
"""Milliseconds of latency per unit of distance: 59 ms across the square's diagonal."""


@dataclass(frozen=True)
class Profile:
    """The discovery rules a run uses."""

    name: str
    query_period_ms: int
    query_after_write: bool
    gossip: bool
    """Serf broadcasts through gossip ticks (the node's Serf) or in one hop (the fuzz model)."""
    push_tree: bool = False
    sized: bool = False
    """The node's sizing rules (`World.sized`), the sweep period scaled too."""


PROFILES = {
    "sim": Profile("sim", 5000, query_after_write=True, gossip=False),
    "node": Profile("node", 30_000, query_after_write=False, gossip=True),
    "tree": Profile("tree", 30_000, query_after_write=False, gossip=True, push_tree=True),
    "sized": Profile(
        "sized", 30_000, query_after_write=False, gossip=True, push_tree=True, sized=True
    ),
}


class PlaneLatency(Mapping[tuple[str, str], int]):
    """One-way latency between nodes placed at random on a unit square: 1 ms plus up to
    59 ms by distance, computed on demand (no n^2 table)."""

    def __init__(self, names: list[str], rng: random.Random) -> None:
        self.points = {n: complex(rng.random(), rng.random()) for n in names}

    def __getitem__(self, link: tuple[str, str]) -> int:
        return 1 + round(SPREAD * abs(self.points[link[0]] - self.points[link[1]]))

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return ((a, b) for a in self.points for b in self.points if a != b)

    def __len__(self) -> int:
        return len(self.points) * (len(self.points) - 1)


@dataclass
class ScaleWorld(World):
    """A world that notes when, and after how many hops, each node first held one record."""

    watched: bytes = b""
    arrivals: dict[str, tuple[int, int]] = field(default_factory=dict)
    """node -> (time, hops) of the first store of the watched record."""
    last_session: int = 0
    """When a session last started or ended."""
    dialled: Counter[str] = field(default_factory=Counter)
    """Sessions each node started."""

    def open_connection(self, initiator: SimNode, responder: SimNode) -> Connection:
        self.last_session = self.scheduler.now
        self.dialled[initiator.name] += 1
        return super().open_connection(initiator, responder)

    def _check_end(self, c: Connection) -> None:
        running = c in self.connections
        super()._check_end(c)
        if running and c not in self.connections:
            self.last_session = self.scheduler.now

    def on_put(self, node: str, old: Record | None, new: Record) -> None:
        super().on_put(node, old, new)
        if new.entry_hash == self.watched and node not in self.arrivals:
            self.arrivals[node] = (self.scheduler.now, self.arrivals[self.carrier][1] + 1)


@dataclass(frozen=True)
class Result:
    """The figures of one run."""

    nodes: int
    preload: int
    profile: str
    writes: int
    reached: int
    """The fewest nodes holding a write at its end (goal: all)."""
    p50_ms: float
    max_ms: int
    """Over every write and every node but the writer: from the write until it held it."""
    rounds: int
    quiet_ms: int
    """The longest from a write until every node held it and the last session it caused
    ended."""
    sessions: float
    """Sessions per write."""
    write_messages: dict[str, float]
    write_bytes: dict[str, float]
    """Per node per write, by kind."""
    idle_bytes: dict[str, float]
    """Per node per second, by kind; `serf-members` is Serf's own upkeep, from its model."""
    idle_messages: dict[str, float]

    @property
    def bytes_per_write(self) -> float:
        return sum(self.write_bytes.values())

    @property
    def messages_per_write(self) -> float:
        return sum(self.write_messages.values())

    @property
    def idle_per_second(self) -> float:
        return sum(self.idle_bytes.values())

    @property
    def wire_per_write(self) -> float:
        """`bytes_per_write` with the packet headers a link counter also sees."""
        return self.bytes_per_write + _headers(self.write_messages)

    @property
    def wire_idle_per_second(self) -> float:
        """`idle_per_second` with the packet headers a link counter also sees."""
        return self.idle_per_second + _headers(self.idle_messages)


UDP_HEADERS = 20 + 8
TCP_HEADERS = 2 * (20 + 32)
"""IPv4 and TCP with timestamps, for the segment and the receiver's ack (a node sends as many
acks as it gets segments, on average)."""


def _headers(messages: dict[str, float]) -> float:
    """Header bytes of the messages: a Serf message a UDP packet, a frame a TCP segment."""
    return sum(
        count * (UDP_HEADERS if kind.startswith("serf") else TCP_HEADERS)
        for kind, count in messages.items()
    )


@cache
def _writer() -> tuple[Entity, Grant]:
    root = entity("root")
    writer = entity("sim-writer")
    return writer, issue_grant(root.seed, writer.pk, "/**", subgrant=False, issued_at=ISSUED)


@cache
def preloaded(count: int) -> tuple[Record, ...]:
    """`count` records by the writer (a one-grant chain, 64-byte values), signed once."""
    writer, grant = _writer()
    return tuple(
        make_record(writer.seed, f"/pre/{i:07d}", T0 - 10_000 + i % 1000, VALUE, [grant])
        for i in range(count)
    )


def build(nodes: int, preload: int, profile: Profile, seed: int) -> ScaleWorld:
    """The world of one run: `nodes` nodes (n0 writes), every store preloaded."""
    writer, grant = _writer()
    world = ScaleWorld(seed, entity("root"), Faults())
    world.query_after_write = profile.query_after_write
    world.push_tree = profile.push_tree
    world.sized = profile.sized
    names = [f"n{i}" for i in range(nodes)]
    world.network.latency = PlaneLatency(names, random.Random(f"{seed}/plane"))
    if profile.gossip:
        world.serf.gossip = Gossip(random.Random(f"{seed}/gossip"))
    records = {r.key: r for r in preloaded(preload)}
    for i, name in enumerate(names):
        identity = writer if i == 0 else entity(f"sim-{name}")
        node = SimNode(name, identity, [grant], T0, world)
        node.store.preload(records)
        world.nodes[name] = node
        world.honest.add(name)
    period = _period(profile, nodes)
    for i, node in enumerate(world.nodes.values()):
        periodic_query(world, node, first=(i * 997) % period, period=period)
    return world


def _period(profile: Profile, nodes: int) -> int:
    """The sweep period: with the node's sizing rules, scaled with the member count."""
    if not profile.sized:
        return profile.query_period_ms
    return int(resync_interval(profile.query_period_ms, nodes))


def _per_node(counts: Counter[tuple[str, str]], nodes: int, scale: float = 1.0) -> Counter[str]:
    total: Counter[str] = Counter()
    for (_, kind), value in counts.items():
        total[kind] += value
    return Counter({kind: value / nodes / scale for kind, value in total.items()})


def run(
    nodes: int, preload: int = 0, profile: str = "node", seed: int = 1, writes: int = 1
) -> Result:
    """`writes` writes by n0, one at a time, through `nodes` nodes under `profile`'s rules,
    measured (each write starts on a period boundary once the last one settled). The cyclic
    garbage collector is paused: its passes over a million pending events cost more than the
    run itself, and a run's objects are freed by reference counting."""
    with collector_paused():
        return _run(nodes, preload, profile, seed, writes)


def _write(node: SimNode, key: str) -> None:
    node.write(key, VALUE)


def _run(nodes: int, preload: int, profile: str, seed: int, writes: int) -> Result:
    rules = PROFILES[profile]
    period = _period(rules, nodes)
    world = build(nodes, preload, rules, seed)
    traffic, sched = world.network.traffic, world.scheduler
    sched.run_until(period)
    bytes0, messages0 = Counter(traffic.bytes), Counter(traffic.messages)
    sched.run_until(2 * period)
    idle_bytes = traffic.bytes - bytes0
    idle_messages = traffic.messages - messages0
    bytes1, messages1 = Counter(traffic.bytes), Counter(traffic.messages)
    periods, sessions = 0, world.sessions_run
    delays: list[int] = []
    rounds = quiet = reached = 0
    for index in range(writes):
        written = world.nodes["n0"].write(f"{WRITE_KEY}{index}", VALUE)
        assert written is not None
        start = sched.now
        world.watched, world.arrivals = written.entry_hash, {"n0": (start, 0)}
        for _ in range(MAX_PERIODS):
            periods += 1
            started = world.sessions_run
            sched.run_until(start + (sched.now - start) // period * period + period)
            if _settled(world) and world.sessions_run == started:
                break
        times = [at - start for name, (at, _) in world.arrivals.items() if name != "n0"]
        delays += times
        rounds = max(rounds, *(hops for _, hops in world.arrivals.values()))
        quiet = max(quiet, max(times), world.last_session - start)
        reached = min(reached or nodes, len(world.arrivals))
    per_write = writes / periods
    write_bytes = _per_node(traffic.bytes - bytes1, nodes, writes) - _per_node(
        idle_bytes, nodes, per_write
    )
    write_messages = _per_node(traffic.messages - messages1, nodes, writes) - _per_node(
        idle_messages, nodes, per_write
    )
    return Result(
        nodes=nodes,
        preload=preload,
        profile=profile,
        writes=writes,
        reached=reached,
        p50_ms=statistics.median(delays),
        max_ms=max(delays),
        rounds=rounds,
        quiet_ms=quiet,
        sessions=round((world.sessions_run - sessions) / writes, 1),
        write_messages=_rounded(write_messages),
        write_bytes=_rounded(write_bytes),
        idle_bytes=_rounded(
            _per_node(idle_bytes, nodes, period / 1000)
            + Counter({"serf-members": membership_bytes_per_second(nodes)})
        ),
        idle_messages=_rounded(_per_node(idle_messages, nodes, period / 1000)),
    )


def _settled(world: ScaleWorld) -> bool:
    """Every node holds the write and no session is queued or running."""
    return len(world.arrivals) == len(world.nodes) and world.quiet() and not world.connections


def _rounded(counts: Counter[str]) -> dict[str, float]:
    return {kind: round(value, 1) for kind, value in sorted(counts.items()) if value}


@dataclass(frozen=True)
class Steady:
    """A steady write load: n0 writes a new key every `interval_ms` for `periods` periods."""

    nodes: int
    profile: str
    interval_ms: int
    sweeps: int
    sessions: int
    writer_sessions: int
    """Of which the writer started."""
    writer_sweeps: int
    """One a period."""
    bytes_per_node_per_second: float

    @property
    def sessions_per_sweep(self) -> float:
        return self.sessions / self.sweeps


def steady(
    nodes: int, profile: str = "node", interval_ms: int = 1000, periods: int = 2, seed: int = 1
) -> Steady:
    """Sessions the sweeps start while writes keep coming (none would be needed: the pushes
    deliver every write), and the bytes each node sends meanwhile."""
    rules = PROFILES[profile]
    period = rules.query_period_ms
    world = build(nodes, 0, rules, seed)
    sched, writer = world.scheduler, world.nodes["n0"]
    sched.run_until(period)
    queries, sessions = world.serf.queries_sent, world.sessions_run
    dialled = world.dialled["n0"]
    sent = sum(world.network.traffic.bytes.values())
    for i in range(periods * period // interval_ms):
        sched.at(period + i * interval_ms, partial(_write, writer, f"/s/{i}"))
    with collector_paused():
        sched.run_until((1 + periods) * period)
    sent = sum(world.network.traffic.bytes.values()) - sent
    return Steady(
        nodes,
        profile,
        interval_ms,
        world.serf.queries_sent - queries,
        world.sessions_run - sessions,
        world.dialled["n0"] - dialled,
        periods,
        round(sent / nodes / (periods * period / 1000), 1),
    )
