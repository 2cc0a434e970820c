"""A model of Serf as measured in the notes (section 6): what K/V Gossip may rely on.

- User events: encoded size <= 512 B, so payload <= 482 - len(name); delivered by gossip to
  every member, the origin included (self-delivery); datagram faults apply; with
  `coalesce=True` (Serf's default) events of one name within the coalescing window collapse
  to the last one.
- Queries: name + payload <= 1024 B; delivered to every reachable member, the origin included;
  a member answers or stays silent; responses <= 1024 B are lossy datagrams; the query
  completes only at its timeout, with the responses that arrived by then.
"""

from __future__ import annotations

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
class Serf:
    """The cluster's Serf, shared by all simulated members."""

    scheduler: Scheduler
    network: Network
    members: dict[str, Member] = field(default_factory=dict)
    _coalesce: dict[tuple[str, str], tuple[int, bytes]] = field(default_factory=dict)
    events_sent: int = 0
    queries_sent: int = 0

    def join(self, name: str, member: Member) -> None:
        self.members[name] = member

    def leave(self, name: str) -> Member:
        """`name` leaves the cluster: no event or query reaches it until it joins again."""
        return self.members.pop(name)

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
        for dst, member in self.members.items():
            self.network.datagram(origin, dst, partial(member.on_event, name, payload))

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

            self.network.datagram(dst, origin, arrive)

        for dst in self.members:
            self.network.datagram(origin, dst, partial(receive, dst))
        self.scheduler.at(deadline, lambda: done(dict(responses)))
