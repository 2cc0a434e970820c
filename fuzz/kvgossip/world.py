"""The simulated cluster and its safety checks (notes section 5 case 32).

The world runs honest nodes (and optionally an attacker) on the scheduler, the network and
the Serf model, and watches every store change:
- a stored record must be one an honest node created, and none of its chain's grants may be
  revoked at that node;
- a record may only replace an LWW-smaller one (compared here as plain tuples), and only a
  revoked record may be purged.
It also tracks which honest nodes hold each record, so the oracle can tell a record lost
legitimately (every holder replaced it with a newer one, and none got it back since) from one
lost by a bug: the design's "oldest valid change to the key still remaining somewhere".
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from swarmconf.spec.kvgossip import messages as m
from swarmconf.spec.kvgossip import push
from swarmconf.spec.kvgossip.fixtures import Entity
from swarmconf.spec.kvgossip.grants import Revocation, grant_id_of
from swarmconf.spec.kvgossip.records import Record
from swarmconf.spec.kvgossip.session import Role, Session

from .events import Scheduler
from .network import Faults, Network
from .node import IDLE_TIMEOUT_MS, Connection, SimNode
from .serf import Serf

MAX_SESSION_FRAMES = 5000
FRAME_OVERHEAD = 4 + 4 + 17
"""Bytes a frame costs on the sealed sync wire beyond its body: the frame's length, the sealed
message's length and the secretstream tag (the node's `frames` and `wire`)."""
SESSION_SETUP = 2 * 220
"""A session's connection before its first frame, both ways: membership hello, proof, key
exchange and secretstream header (the node's `membership` and `wire`), about 220 B a side."""


@dataclass
class World:
    """Everything one simulated run shares."""

    seed: int
    root: Entity
    faults: Faults
    scheduler: Scheduler = field(default_factory=Scheduler)
    rng: random.Random = field(init=False)
    network: Network = field(init=False)
    serf: Serf = field(init=False)
    nodes: dict[str, SimNode] = field(default_factory=dict)
    honest: set[str] = field(default_factory=set)
    created_records: dict[bytes, Record] = field(default_factory=dict)
    revocations: dict[bytes, Revocation] = field(default_factory=dict)
    holders: dict[bytes, set[str]] = field(default_factory=dict)
    superseded: set[bytes] = field(default_factory=set)
    connections: list[Connection] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)
    sessions_run: int = 0
    carrier: str = ""
    """The node whose message is being handled (what brought a record to where it is stored)."""
    draining: bool = False
    """Set at the end: no new sessions or queries, running sessions finish."""
    push_tree: bool = False
    """Relays go down the binomial tree of the member ring, not to each node's nearest."""
    sized: bool = False
    """The node's sizing rules (`reference/kvgossip/sizing`): a sweep dials the nearest few that
    differ and queries again, the query timeout grows with the members, a pushed version is
    relayed the first time it comes, also when already stored."""
    query_after_write: bool = True
    """A node sends a state query after each of its writes (the node itself waits for its
    next sweep)."""

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.network = Network(self.scheduler, self.rng, self.faults)
        self.serf = Serf(self.scheduler, self.network)

    def violation(self, text: str) -> None:
        self.violations.append(f"t={self.scheduler.now}: {text}")

    # Ground truth

    def created(self, record: Record) -> None:
        """An honest node wrote `record` and accepted it locally."""
        self.created_records[record.entry_hash] = record

    def revoked(self, revocation: Revocation) -> None:
        self.revocations[revocation.grant_id] = revocation

    # Safety checks on every store change

    def on_put(self, node: str, old: Record | None, new: Record) -> None:
        if node not in self.honest:
            return
        owner = self.nodes[node]
        if new.entry_hash not in self.created_records and owner.local_write != new.entry_hash:
            self.violation(f"{node} stored a record no honest node created: {new.key}")
        if {grant_id_of(g) for g in new.chain} & owner.store.revoked_ids():
            self.violation(f"{node} stored {new.key} through a grant it knows is revoked")
        if old is not None:
            if not (new.ts, new.entry_hash) > (old.ts, old.entry_hash):
                self.violation(f"{node} replaced {old.key} with an LWW-smaller record")
            self._release(node, old, superseded=True)
        self.holders.setdefault(new.entry_hash, set()).add(node)
        self.superseded.discard(new.entry_hash)

    def on_delete(self, node: str, old: Record) -> None:
        if node not in self.honest:
            return
        if not {grant_id_of(g) for g in old.chain} & set(self.revocations):
            self.violation(f"{node} purged {old.key} whose chain is not revoked")
        self._release(node, old, superseded=False)

    def _release(self, node: str, old: Record, superseded: bool) -> None:
        holders = self.holders.get(old.entry_hash, set())
        holders.discard(node)
        if not holders and superseded:
            self.superseded.add(old.entry_hash)

    # Push and fetch over simulated TCP: one request, one reply, either may be lost

    def request(
        self,
        src: SimNode,
        dst: SimNode,
        frame: bytes,
        on_reply: Callable[[list[Any] | None], None],
        kind: str,
    ) -> None:
        """Send a PUSH or FETCH (`kind` counts its bytes); `on_reply` gets the decoded answer,
        or None when it is lost."""

        def answer() -> None:
            if self.rng.random() < self.faults.stream_loss:
                on_reply(None)  # the connection broke: the sender sees it fail
                return
            self.carrier = src.name
            got = push.answer(dst.store, frame, self.root.pk, dst.clock())
            dst.relay(got, src.name)
            size = len(got.reply) + FRAME_OVERHEAD
            if not self.network.stream(dst.name, src.name, partial(reply, got.reply), size, kind):
                on_reply(None)

        def reply(data: bytes) -> None:
            self.carrier = dst.name
            on_reply(m.decode_message(data))

        if not self.network.stream(src.name, dst.name, answer, len(frame) + FRAME_OVERHEAD, kind):
            on_reply(None)

    # Sessions over simulated TCP

    def open_connection(self, initiator: SimNode, responder: SimNode) -> Connection:
        """Start a session from `initiator` to `responder`."""
        root = self.root.pk
        connection = Connection(
            initiator,
            responder,
            {
                initiator.name: Session(
                    Role.INITIATOR, initiator.store, root, initiator.name.encode()
                ),
                responder.name: Session(
                    Role.RESPONDER, responder.store, root, responder.name.encode()
                ),
            },
        )
        self.connections.append(connection)
        self.sessions_run += 1
        self.network.traffic.add(initiator.name, "session", SESSION_SETUP // 2)
        self.network.traffic.add(responder.name, "session", SESSION_SETUP // 2)
        self._activity(connection)
        frames = connection.sessions[initiator.name].start(initiator.clock())
        self._send(connection, initiator, responder, frames)
        return connection

    def _send(self, c: Connection, src: SimNode, dst: SimNode, frames: list[bytes]) -> None:
        for frame in frames:
            c.frames += 1
            if c.frames > MAX_SESSION_FRAMES:
                self.violation(
                    f"session {src.name}->{dst.name} exceeded {MAX_SESSION_FRAMES} frames"
                )
                return
            if c.broken or self.rng.random() < self.faults.stream_loss:
                c.broken = True  # the stream broke: both sessions end by their idle timeout
                return
            deliver = partial(self._deliver, c, src, dst, frame)
            self.network.stream(src.name, dst.name, deliver, len(frame) + FRAME_OVERHEAD, "session")
        self._check_end(c)

    def _deliver(self, c: Connection, src: SimNode, dst: SimNode, frame: bytes) -> None:
        session = c.sessions[dst.name]
        if session.done or c.broken:
            return
        self._activity(c)
        self.carrier = src.name
        replies = session.receive(frame, dst.clock())
        self._send(c, dst, src, replies)

    def _activity(self, c: Connection) -> None:
        c.last_activity = self.scheduler.now
        self.scheduler.after(IDLE_TIMEOUT_MS, lambda: self._idle(c))

    def _idle(self, c: Connection) -> None:
        if self.scheduler.now - c.last_activity < IDLE_TIMEOUT_MS:
            return
        for session in c.sessions.values():
            session.timeout()
        self._check_end(c)

    def _check_end(self, c: Connection) -> None:
        if c.sessions[c.initiator.name].done and c in self.connections:
            # The initiator moves on; the responder ends on BYE or its own idle timeout.
            if c.done:
                self.connections.remove(c)
            c.initiator.session_ended(c)
        elif c.done and c in self.connections:
            self.connections.remove(c)

    def quiet(self) -> bool:
        """No honest node runs or queues a session of its own."""
        return all(self.nodes[n].outgoing is None and not self.nodes[n].queue for n in self.honest)
