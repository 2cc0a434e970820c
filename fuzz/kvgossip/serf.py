"""A model of Serf as measured in the notes (section 6): what K/V Gossip may rely on.

- User events: encoded size <= 512 B, so payload <= 482 - len(name); delivered by gossip to
  every member, the origin included (self-delivery); datagram faults apply; with
  `coalesce=True` (Serf's default) events of one name within the coalescing window collapse
  to the last one.
- Queries: name + payload <= 1024 B; delivered to every reachable member, the origin included;
  a member answers or stays silent; responses <= 1024 B are lossy datagrams; the query
  completes only at its timeout, with the responses that arrived by then.
- Delivery is one hop (the link's latency) unless a `Gossip` model is given: then each member
  is reached through an epidemic tree, a gossip tick and a link per level.
- Traffic: memberlist sends every broadcast (event or query) `retransmit_limit(n)` times from
  each member that receives it (RetransmitMult 4 times ceil(log10(n + 1)), Serf's LAN default),
  so that is what each member is counted for; a response is one datagram to the origin.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

from .events import Scheduler
from .network import Network

EVENT_ENCODED_LIMIT = 512
EVENT_OVERHEAD = 30
"""Encoded user event overhead: payload <= 482 - len(name) (notes 6.4)."""
QUERY_LIMIT = 1024
RESPONSE_LIMIT = 1024
COALESCE_WINDOW_MS = 1000
RETRANSMIT_MULT = 4
"""memberlist's RetransmitMult in Serf's LAN profile."""
QUERY_OVERHEAD = 120
RESPONSE_OVERHEAD = 70
"""Estimated encoded overhead of Serf's query and response messages (msgpack maps whose keys are
the Go field names: LTime, ID, Addr, Port, SourceNode, Filters, Flags, RelayFactor, Timeout,
Name, Payload; LTime, ID, From, Flags, Payload)."""
PACKET_OVERHEAD = 29
"""Serf's gossip encryption per packet: version byte, 12-byte nonce, 16-byte GCM tag."""


PROBE_BYTES = 60 + 20 + 2 * PACKET_OVERHEAD
"""One failure-detector probe a second: a ping sent and an ack for someone else's (estimated
sizes of memberlist's ping and ack messages)."""
PROBE_INTERVAL_MS = 1000
MEMBER_STATE = 170
"""Estimated bytes of one member in a push-pull state exchange: name, address, port, tags
(`kvg-port`, `kvg-id`), incarnation, state and versions, as a msgpack map."""
PUSH_PULL_MS = 30_000


def push_pull_interval_ms(members: int) -> int:
    """memberlist's push-pull interval, stretched past 32 members (`pushPullScale`)."""
    if members <= 32:
        return PUSH_PULL_MS
    return PUSH_PULL_MS * int(math.ceil(math.log2(members) - math.log2(32)) + 1)


def membership_bytes_per_second(members: int) -> float:
    """What each member's Serf sends a second to keep the membership, without any broadcast:
    its probes, and the full state it sends in the push-pulls it starts and answers (two per
    interval on average). A model: the simulation delivers no such message."""
    probes = PROBE_BYTES * 1000 / PROBE_INTERVAL_MS
    return probes + 2 * members * MEMBER_STATE * 1000 / push_pull_interval_ms(members)


def retransmit_limit(members: int) -> int:
    """How many times each member sends one broadcast (memberlist's `retransmitLimit`)."""
    return RETRANSMIT_MULT * math.ceil(math.log10(members + 1))


EventHandler = Callable[[str, bytes], None]
QueryHandler = Callable[[str, str, bytes], bytes | None]
"""(origin, name, payload) -> response payload, or None to stay silent."""


class SerfLimitError(ValueError):
    """A payload beyond Serf's limits: Serf refuses to send it."""


@dataclass
class Member:
    """What a node registers with the Serf model."""

    on_event: EventHandler
    on_query: QueryHandler


@dataclass
class Gossip:
    """Epidemic delivery: members in a random order form a tree of `fanout` children per node
    under the origin; each level costs a wait for the next gossip tick (uniform within
    `interval_ms`) plus the link's latency."""

    rng: random.Random
    interval_ms: int = 200
    fanout: int = 3

    def delays(self, network: Network, origin: str, members: list[str]) -> dict[str, int]:
        """Delivery delay of one broadcast to each member (the origin at once)."""
        order = [m for m in members if m != origin]
        self.rng.shuffle(order)
        parents = [origin, *order]
        delay = {origin: 0}
        for i, name in enumerate(order, start=1):
            parent = parents[(i - 1) // self.fanout]
            tick = self.rng.randint(0, self.interval_ms)
            delay[name] = delay[parent] + tick + network.latency[(parent, name)]
        return delay


@dataclass
class Serf:
    """The cluster's Serf, shared by all simulated members."""

    scheduler: Scheduler
    network: Network
    gossip: Gossip | None = None
    members: dict[str, Member] = field(default_factory=dict)
    _coalesce: dict[tuple[str, str], tuple[int, bytes]] = field(default_factory=dict)
    events_sent: int = 0
    queries_sent: int = 0
    version: int = 0
    """Bumped on every join and leave (what callers cache the member list by)."""

    def join(self, name: str, member: Member) -> None:
        self.members[name] = member
        self.version += 1

    def leave(self, name: str) -> Member:
        """`name` leaves the cluster: no event or query reaches it until it joins again."""
        self.version += 1
        return self.members.pop(name)

    def _disseminate(self, origin: str, kind: str, size: int) -> None:
        """Count the gossip of one broadcast: each member it reaches sends it on."""
        reach = [m for m in self.members if self.network.reachable(origin, m)]
        limit = retransmit_limit(len(self.members))
        for member in reach:
            self.network.traffic.add(member, kind, size + PACKET_OVERHEAD, limit)

    def _send(self, origin: str, dst: str, deliver: Callable[[], None], delay: int | None) -> None:
        """One broadcast's delivery to `dst`: a datagram, or after its gossip delay."""
        if delay is None:
            self.network.datagram(origin, dst, deliver)
        else:
            self.network.after(origin, dst, delay, deliver)

    def _delays(self, origin: str) -> dict[str, int | None]:
        if self.gossip is None:
            return dict.fromkeys(self.members)
        return dict(self.gossip.delays(self.network, origin, list(self.members)))

    def user_event(self, origin: str, name: str, payload: bytes, *, coalesce: bool) -> None:
        """Broadcast a user event (fire and forget)."""
        if len(name) + len(payload) + EVENT_OVERHEAD > EVENT_ENCODED_LIMIT:
            raise SerfLimitError(f"user event {name} of {len(payload)} B exceeds 512 B encoded")
        self.events_sent += 1
        if coalesce:
            first = (origin, name) not in self._coalesce
            self._coalesce[(origin, name)] = (self.scheduler.now, payload)
            if first:
                self.scheduler.after(COALESCE_WINDOW_MS, lambda: self._flush(origin, name))
            return
        self._broadcast(origin, name, payload)

    def _flush(self, origin: str, name: str) -> None:
        _, payload = self._coalesce.pop((origin, name))
        self._broadcast(origin, name, payload)

    def _broadcast(self, origin: str, name: str, payload: bytes) -> None:
        self._disseminate(origin, "serf-event", len(name) + len(payload) + EVENT_OVERHEAD)
        delays = self._delays(origin)
        for dst, member in self.members.items():
            self._send(origin, dst, partial(member.on_event, name, payload), delays[dst])

    def query(
        self,
        origin: str,
        name: str,
        payload: bytes,
        timeout_ms: int,
        done: Callable[[dict[str, bytes]], None],
    ) -> None:
        """Ask every member; `done(responses by member)` runs exactly at the timeout."""
        if len(name) + len(payload) > QUERY_LIMIT:
            raise SerfLimitError(f"query {name} of {len(payload)} B exceeds 1024 B")
        self.queries_sent += 1
        responses: dict[str, bytes] = {}
        deadline = self.scheduler.now + timeout_ms

        def receive(dst: str) -> None:
            member = self.members.get(dst)
            if member is None:
                return  # it left the cluster while the query was under way
            answer = member.on_query(origin, name, payload)
            if answer is None or len(answer) > RESPONSE_LIMIT:
                return

            def arrive() -> None:
                if self.scheduler.now <= deadline:
                    responses.setdefault(dst, answer)

            size = len(answer) + RESPONSE_OVERHEAD + PACKET_OVERHEAD
            self.network.datagram(dst, origin, arrive, size, "serf-response")

        self._disseminate(origin, "serf-query", len(name) + len(payload) + QUERY_OVERHEAD)
        delays = self._delays(origin)
        for dst in list(self.members):
            self._send(origin, dst, partial(receive, dst), delays[dst])
        self.scheduler.at(deadline, lambda: done(dict(responses)))
