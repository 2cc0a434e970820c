"""A simulated K/V Gossip node: the spec's store rules and sessions, wired to the Serf model
the way notes 3.5 and the sync decisions decide (discovery query `kvg-th`, change event
`kvg-ch`, revocation event `kvg-rv`, sessions in RTT order, one outgoing session at a time; a
local write pushed to the nearest peers (K9), an announced newer version fetched from its
writer before falling back to a session (K10)). Above `PUSH_FANOUT` peers a node relays a
pushed record that was new to it (kv-sync 3.3d): to its own nearest `PUSH_FANOUT`, or, with
the world's `push_tree`, down a binomial tree of the members in name order (the writer pushes
to the members 1, 2, 4, ... places after it; one reached from `d` places back relays to the
members 1, 2, 4, ... places after it below `min(d, n - d)`), so each member gets it once."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from swarmconf.reference.kvgossip.fanout import plan
from swarmconf.reference.kvgossip.sizing import Relayed, query_timeout, sweep_sessions
from swarmconf.spec.kvgossip import messages as m
from swarmconf.spec.kvgossip.chain import find_chain
from swarmconf.spec.kvgossip.encoding import decode_canonical, encode
from swarmconf.spec.kvgossip.fixtures import Entity
from swarmconf.spec.kvgossip.grants import Grant, Revocation, revoke_grant
from swarmconf.spec.kvgossip.push import Answer
from swarmconf.spec.kvgossip.records import Record, lww_greater, make_record
from swarmconf.spec.kvgossip.session import Session
from swarmconf.spec.kvgossip.state import (
    MemoryStore,
    Outcome,
    SyncItem,
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
    @property
    def query_after_write(self) -> bool: ...
    @property
    def push_tree(self) -> bool: ...
    @property
    def sized(self) -> bool: ...
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
        kind: str,
    ) -> None: ...


class WatchedStore(MemoryStore):
    """A MemoryStore that reports every change to the world's safety checks, and keeps what
    the spec's store recomputes on every call (tree and revocation-set hashes, the sorted sync
    items, the entry-hash lookup) until the store changes."""

    def __init__(self, owner: str, world: World) -> None:
        super().__init__()
        self.owner = owner
        self.world = world
        self._by_hash: dict[bytes, str] = {}
        self._tree: bytes | None = None
        self._items: list[SyncItem] | None = None
        self._revset: bytes | None = None

    def put(self, record: Record) -> None:
        old = self.records.get(record.key)
        self.world.on_put(self.owner, old, record)
        self.plant(record)

    def plant(self, record: Record) -> None:
        """Store `record` without the checks (a forgery the attacker holds)."""
        old = self.records.get(record.key)
        if old is not None:
            del self._by_hash[old.entry_hash]
        super().put(record)
        self._by_hash[record.entry_hash] = record.key
        self._tree = self._items = None

    def preload(self, records: Mapping[str, Record]) -> None:
        """Hold `records` from the start (no store change the checks see)."""
        for record in records.values():
            self.plant(record)

    def delete(self, key: str) -> None:
        old = self.records.get(key)
        super().delete(key)
        if old is not None:
            del self._by_hash[old.entry_hash]
            self._tree = self._items = None
            self.world.on_delete(self.owner, old)

    def get_by_entry_hash(self, entry_hash: bytes) -> Record | None:
        key = self._by_hash.get(entry_hash)
        return None if key is None else self.records[key]

    def sync_items(self) -> list[SyncItem]:
        if self._items is None:
            self._items = super().sync_items()
        return list(self._items)

    def tree_hash(self) -> bytes:
        if self._tree is None:
            self._tree = super().tree_hash()
        return self._tree

    def add_revocation(self, revocation: Revocation) -> None:
        super().add_revocation(revocation)
        self._revset = None

    def revset_hash(self) -> bytes:
        if self._revset is None:
            self._revset = super().revset_hash()
        return self._revset


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
    store: WatchedStore = field(init=False)
    queue: list[str] = field(default_factory=list)
    outgoing: Connection | None = None
    local_write: bytes = b""
    _nearest: tuple[int, list[str]] = (-1, [])
    """The peers nearest first, and the Serf member list version they were sorted for."""
    _ring_of: tuple[int, list[str]] = (-1, [])
    _relayed: Relayed = field(default_factory=Relayed)
    _retry_ms: int = 250

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
        serf, net = self.world.serf, self.world.network
        if self._nearest[0] != serf.version:
            peers = (p for p in serf.members if p != self.name)
            ordered = sorted(peers, key=lambda p: (net.rtt_ms(self.name, p), p))
            self._nearest = (serf.version, ordered)
        return self._nearest[1]

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
        if self.world.query_after_write:
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
        timeout = QUERY_TIMEOUT_MS
        if self.world.sized:
            timeout = int(query_timeout(QUERY_TIMEOUT_MS, len(self.world.serf.members)))
        self.world.serf.query(
            self.name, STATE_QUERY, payload, timeout, lambda got: self._answers(got, payload)
        )

    def _answers(self, responses: dict[str, bytes], asked: bytes) -> None:
        mine = (self.store.tree_hash(), self.store.revset_hash())
        peers = []
        for payload in responses.values():
            peer, tree, revset = _decode_answer(payload)
            if peer != self.name and (tree, revset) != mine:
                peers.append(peer)
        net = self.world.network
        nearest = sorted(peers, key=lambda p: (net.rtt_ms(self.name, p), p))
        if self.world.sized:  # the node's sweep (`sizing`): a few sessions, then again
            nearest = sweep_sessions(nearest, changed=mine[0] + mine[1] != asked)
            if peers:
                self.world.scheduler.after(self._retry_ms, self.state_query)
            self._retry_ms = min(self._retry_ms * 2, 30_000) if peers else 250
        for peer in nearest:
            self.dial(peer)

    # Push, relay and fetch (K9, K10)

    def _older_than(self, key: str, ts: int, entry_hash: bytes) -> bool:
        local = self.store.get(key)
        return local is None or lww_greater((ts, entry_hash), local.lww_key)

    def push(self, record: Record) -> None:
        """Send a new record to the nearest members; the answers change nothing here."""
        self._push([record])

    def _push(self, records: list[Record], sender: str | None = None) -> None:
        frame = m.message(m.PUSH, [r.encode() for r in records])
        for peer in self._push_peers(sender):
            self.world.request(self, self.world.nodes[peer], frame, lambda reply: None, "push")

    def relay(self, got: Answer, sender: str) -> None:
        """Push on what a push from `sender` brought that was new here; with the node's sizing
        rules, each version the first time it is pushed here, also when already stored."""
        records = [v.record for _, v in got.verdicts if v.record is not None]
        if self.world.sized:
            records = []
            for key, verdict in got.verdicts:
                record = verdict.record
                if verdict.outcome is Outcome.AGREE:
                    record = self.store.get(key)
                if record is not None and self._relayed.first((key, record.ts, record.entry_hash)):
                    records.append(record)
        if records:
            self._push(records, sender)

    def _push_peers(self, sender: str | None) -> list[str]:
        """Whom to push to, as the writer (`sender` None) or relaying what `sender` pushed."""
        nearest = self._peers_nearest_first()
        if len(nearest) <= PUSH_FANOUT:
            return nearest if sender is None else []
        if not self.world.push_tree:
            return nearest[:PUSH_FANOUT]
        ring = self._ring()
        me, size = ring.index(self.name), len(ring)
        if sender is not None and sender not in ring:
            return []
        back = None if sender is None else (me - ring.index(sender)) % size
        return [ring[(me + t.offset) % size] for t in plan(size, back)]

    def _ring(self) -> list[str]:
        """The members in name order (this node included)."""
        serf = self.world.serf
        if self._ring_of[0] != serf.version:
            self._ring_of = (serf.version, sorted(serf.members))
        return self._ring_of[1]

    def fetch(self, origin: str, key: str, ts: int, entry_hash: bytes) -> None:
        """Ask the writer for one key; a session with it if the answer does not settle it."""

        def on_reply(reply: list[Any] | None) -> None:
            if reply is not None and reply[0] == m.RECORDS:
                for data in reply[1]:
                    receive_record(self.store, data, self.world.root.pk, self.clock())
            if self._older_than(key, ts, entry_hash):
                self.dial(origin)

        frame = m.message(m.FETCH, [key])
        self.world.request(self, self.world.nodes[origin], frame, on_reply, "fetch")

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
