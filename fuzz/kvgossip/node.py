"""A simulated K/V Gossip node: the spec's store rules and sessions, wired to the Serf model
the way notes 3.5 and the sync decisions decide (discovery query `kvg-th`, change event
`kvg-ch`, revocation event `kvg-rv`, sessions in RTT order, one outgoing session at a time; a
local write pushed to the nearest peers (K9), an announced newer version fetched from its
writer before falling back to a session (K10))."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from swarmconf.spec.kvgossip import messages as m
from swarmconf.spec.kvgossip.chain import find_chain
from swarmconf.spec.kvgossip.encoding import decode_canonical, encode
from swarmconf.spec.kvgossip.fixtures import Entity
from swarmconf.spec.kvgossip.grants import Grant, Revocation, revoke_grant
from swarmconf.spec.kvgossip.records import Record, lww_greater, make_record
from swarmconf.spec.kvgossip.session import Session
from swarmconf.spec.kvgossip.state import (
    MemoryStore,
    Outcome,
    apply_record,
    apply_revocation,
    receive_record,
)

from .events import Scheduler
from .network import Network
from .serf import Member, Serf

QUERY_TIMEOUT_MS = 1000
IDLE_TIMEOUT_MS = 5000
CHANGE_EVENT = "kvg-ch"
REVOCATION_EVENT = "kvg-rv"
STATE_QUERY = "kvg-th"
PUSH_FANOUT = 8


class World(Protocol):
    """What a node needs of the world it lives in: the shared clock, network and Serf model,
    its peers, and the safety checks it reports to (`world.World` is the one implementation)."""

    @property
    def scheduler(self) -> Scheduler: ...
    @property
    def network(self) -> Network: ...
    @property
    def serf(self) -> Serf: ...
    @property
    def root(self) -> Entity: ...
    @property
    def nodes(self) -> dict[str, SimNode]: ...
    @property
    def draining(self) -> bool: ...
    def created(self, record: Record) -> None: ...
    def revoked(self, revocation: Revocation) -> None: ...
    def on_put(self, node: str, old: Record | None, new: Record) -> None: ...
    def on_delete(self, node: str, old: Record) -> None: ...
    def open_connection(self, initiator: SimNode, responder: SimNode) -> Connection: ...
    def request(
        self,
        src: SimNode,
        dst: SimNode,
        frame: bytes,
        on_reply: Callable[[list[Any] | None], None],
    ) -> None: ...


class WatchedStore(MemoryStore):
    """A MemoryStore that reports every change to the world's safety checks."""

    def __init__(self, owner: str, world: World) -> None:
        super().__init__()
        self.owner = owner
        self.world = world

    def put(self, record: Record) -> None:
        self.world.on_put(self.owner, self.records.get(record.key), record)
        super().put(record)

    def delete(self, key: str) -> None:
        old = self.records.get(key)
        super().delete(key)
        if old is not None:
            self.world.on_delete(self.owner, old)


@dataclass
class Connection:
    """One sync session over a simulated TCP stream."""

    initiator: SimNode
    responder: SimNode
    sessions: dict[str, Session]
    last_activity: int = 0
    frames: int = 0
    broken: bool = False
    """A frame was lost: nothing more travels on this connection."""

    @property
    def done(self) -> bool:
        return all(s.done for s in self.sessions.values())


@dataclass
class SimNode:
    """A member of the simulated cluster."""

    name: str
    entity: Entity
    grants: list[Grant]
    offset_ms: int
    world: World
    store: MemoryStore = field(init=False)
    queue: list[str] = field(default_factory=list)
    outgoing: Connection | None = None
    local_write: bytes = b""

    def __post_init__(self) -> None:
        self.store = WatchedStore(self.name, self.world)
        self.world.serf.join(self.name, Member(self.on_event, self.on_query))

    # Membership

    @property
    def away(self) -> bool:
        """Out of the cluster: it neither writes nor gossips nor syncs."""
        return self.name not in self.world.serf.members

    def leave(self) -> None:
        """Stop, keeping the store: the cluster no longer reaches it."""
        self.world.network.down.add(self.name)
        self.world.serf.leave(self.name)
        self.queue.clear()

    def join(self) -> None:
        """Join (again): reconcile with the nearest member at once, then ask who disagrees."""
        self.world.network.down.discard(self.name)
        self.world.serf.join(self.name, Member(self.on_event, self.on_query))
        peers = self._peers_nearest_first()
        if peers:
            self.dial(peers[0])
        self.state_query()

    def _peers_nearest_first(self) -> list[str]:
        net = self.world.network
        peers = (p for p in self.world.serf.members if p != self.name)
        return sorted(peers, key=lambda p: (net.rtt_ms(self.name, p), p))

    # Time

    def clock(self) -> int:
        """This node's wall clock: simulated time plus its offset (within the skew)."""
        return self.world.scheduler.now + self.offset_ms

    # Local operations

    def write(self, key: str, value: bytes | None, ts: int | None = None) -> Record | None:
        """Write with the shortest chain this node holds; None if it holds none, it is stale, or
        the node is away."""
        if self.away:
            return None
        root, revoked = self.world.root.pk, self.store.revoked_ids()
        stamp = self.clock() if ts is None else ts
        chain = find_chain(key, stamp, self.entity.pk, self.grants, root, revoked)
        if chain is None:
            return None
        record = make_record(self.entity.seed, key, stamp, value, chain)
        self.local_write = record.entry_hash
        verdict = apply_record(self.store, record, root, self.clock())
        self.local_write = b""
        if verdict.outcome is not Outcome.ACCEPTED:
            return None
        self.world.created(record)
        self.push(record)
        payload = encode([self.name, key, record.ts, record.entry_hash])
        self.world.serf.user_event(self.name, CHANGE_EVENT, payload, coalesce=False)
        self.state_query()
        return record

    def revoke(self, grant: Grant, revoker: Entity) -> None:
        """Revoke `grant` (this node holds the revoker's key) and announce it; not while away."""
        if self.away:
            return
        revocation = revoke_grant(revoker.seed, grant, self.clock(), self.world.root.pk)
        self.world.revoked(revocation)
        apply_revocation(self.store, revocation.encode(), self.world.root.pk)
        self.world.serf.user_event(self.name, REVOCATION_EVENT, revocation.encode(), coalesce=False)
        self.state_query()

    # Serf callbacks

    def on_event(self, name: str, payload: bytes) -> None:
        if name == REVOCATION_EVENT:
            apply_revocation(self.store, payload, self.world.root.pk)
        elif name == CHANGE_EVENT:
            origin, key, ts, entry_hash = _decode_change(payload)
            if origin == self.name:
                return
            if self._older_than(key, ts, entry_hash):
                self.fetch(origin, key, ts, entry_hash)

    def on_query(self, origin: str, name: str, payload: bytes) -> bytes | None:
        if origin == self.name or name != STATE_QUERY:
            return None
        if payload == self.store.tree_hash() + self.store.revset_hash():
            return None
        return encode([self.name, self.store.tree_hash(), self.store.revset_hash()])

    def state_query(self) -> None:
        """Ask who disagrees; dial them in RTT order when the query times out."""
        if self.world.draining or self.away:
            return
        payload = self.store.tree_hash() + self.store.revset_hash()
        self.world.serf.query(self.name, STATE_QUERY, payload, QUERY_TIMEOUT_MS, self._answers)

    def _answers(self, responses: dict[str, bytes]) -> None:
        mine = (self.store.tree_hash(), self.store.revset_hash())
        peers = []
        for payload in responses.values():
            peer, tree, revset = _decode_answer(payload)
            if peer != self.name and (tree, revset) != mine:
                peers.append(peer)
        net = self.world.network
        for peer in sorted(peers, key=lambda p: (net.rtt_ms(self.name, p), p)):
            self.dial(peer)

    # Push and fetch (K9, K10)

    def _older_than(self, key: str, ts: int, entry_hash: bytes) -> bool:
        local = self.store.get(key)
        return local is None or lww_greater((ts, entry_hash), local.lww_key)

    def push(self, record: Record) -> None:
        """Send a new record to the nearest members; the answers change nothing here."""
        frame = m.message(m.PUSH, [record.encode()])
        for peer in self._peers_nearest_first()[:PUSH_FANOUT]:
            self.world.request(self, self.world.nodes[peer], frame, lambda reply: None)

    def fetch(self, origin: str, key: str, ts: int, entry_hash: bytes) -> None:
        """Ask the writer for one key; a session with it if the answer does not settle it."""

        def on_reply(reply: list[Any] | None) -> None:
            if reply is not None and reply[0] == m.RECORDS:
                for data in reply[1]:
                    receive_record(self.store, data, self.world.root.pk, self.clock())
            if self._older_than(key, ts, entry_hash):
                self.dial(origin)

        frame = m.message(m.FETCH, [key])
        self.world.request(self, self.world.nodes[origin], frame, on_reply)

    # Sessions

    def dial(self, peer: str) -> None:
        """Queue a session with `peer` unless one is queued or running, or this node is away."""
        if self.world.draining or self.away:
            return
        busy = self.outgoing is not None and self.outgoing.responder.name == peer
        if peer != self.name and peer not in self.queue and not busy:
            self.queue.append(peer)
        self._next_session()

    def _next_session(self) -> None:
        if self.outgoing is not None or not self.queue or self.world.draining:
            return
        peer = self.world.nodes[self.queue.pop(0)]
        self.outgoing = self.world.open_connection(self, peer)

    def session_ended(self, connection: Connection) -> None:
        """Called by the world when an outgoing session ends."""
        if self.outgoing is connection:
            self.outgoing = None
        self._next_session()


def _decode_change(payload: bytes) -> tuple[str, str, int, bytes]:
    origin, key, ts, entry_hash = decode_canonical(payload, 512)
    return str(origin), str(key), int(ts), bytes(entry_hash)


def _decode_answer(payload: bytes) -> tuple[str, bytes, bytes]:
    peer, tree, revset = decode_canonical(payload, 1024)
    return str(peer), bytes(tree), bytes(revset)
