"""Real K/V Gossip wire objects for a hostile-input task: what a small cluster really sends.

A task's world is two nodes' stores built from the fixture entities: grants (one with a
sub-grant, one expiring, one revoked), records and a tombstone signed under them, and a
revocation. From it come the objects a campaign mutates: signed records, grants and the
revocation, the frames of a whole sync session between the two stores (both directions, with
the revocation exchange and a transfer both ways), PUSH and FETCH frames with their answers,
the Serf payloads (`kvg-ch`, `kvg-th`, `kvg-rv`) and tags, and the membership handshake's
messages (`membership`).
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass

from swarmconf.reference.kvgossip import membership
from swarmconf.reference.kvgossip.gossip import TAG_PORT, Change, StateHashes
from swarmconf.reference.kvgossip.identity import Identity
from swarmconf.spec.kvgossip import crypto
from swarmconf.spec.kvgossip import messages as m
from swarmconf.spec.kvgossip.fixtures import ALICE, BOB, CAROL, ROOT
from swarmconf.spec.kvgossip.grants import Grant, issue_grant, revoke_grant
from swarmconf.spec.kvgossip.push import answer
from swarmconf.spec.kvgossip.records import Record, make_record
from swarmconf.spec.kvgossip.session import Role, Session
from swarmconf.spec.kvgossip.state import MemoryStore, apply_record

EPOCH_MS = 1_700_000_000_000
"""Around when the world's objects are signed; `now_ms` of every decoder is a day later."""
DAY_MS = 86_400_000
CLUSTER_KEY = membership.ClusterKey(crypto.sha256(b"kvg hostile cluster"))
INITIATOR = Identity(crypto.seed_from_label("kvg hostile initiator"))
RESPONDER = Identity(crypto.seed_from_label("kvg hostile responder"))


@dataclass(frozen=True)
class World:
    """A task's stores and the real objects made from them."""

    now_ms: int
    records: tuple[Record, ...]
    grants: tuple[Grant, ...]
    revocation: bytes
    initiator_store: MemoryStore
    responder_store: MemoryStore
    to_responder: tuple[bytes, ...]
    """The frames the initiator sent in a whole session, in order."""
    to_initiator: tuple[bytes, ...]
    """The frames the responder sent, in order."""

    def store(self, role: Role) -> MemoryStore:
        """A fresh copy of one side's store as it was when the session started."""
        original = self.initiator_store if role is Role.INITIATOR else self.responder_store
        return MemoryStore(original.records.values(), original.revocations.values())

    def received(self, role: Role) -> tuple[bytes, ...]:
        """What the session of `role` received, in order."""
        return self.to_initiator if role is Role.INITIATOR else self.to_responder


def build_world(rng: random.Random) -> World:
    """Stores that differ in records and revocations, so a session runs every step."""
    t0 = EPOCH_MS + rng.randrange(DAY_MS)
    alice = issue_grant(ROOT.seed, ALICE.pk, "/app/**", subgrant=True, issued_at=t0)
    bob = issue_grant(
        ALICE.seed, BOB.pk, "/app/b/*", subgrant=False, issued_at=t0 + 1, expires_at=t0 + DAY_MS
    )
    carol = issue_grant(ROOT.seed, CAROL.pk, "/c/**", subgrant=False, issued_at=t0)
    revocation = revoke_grant(ROOT.seed, carol, t0 + 10, ROOT.pk)
    n = rng.randrange(1000)
    records = (
        make_record(ALICE.seed, f"/app/a{n}", t0 + 2, b"v" * rng.randrange(40), [alice]),
        make_record(ALICE.seed, f"/app/a{n + 1}", t0 + 3, None, [alice]),
        make_record(BOB.seed, f"/app/b/x{n}", t0 + 4, b"bob", [alice, bob]),
        make_record(CAROL.seed, f"/c/y{n}", t0 + 5, b"carol", [carol]),
        make_record(ALICE.seed, f"/app/a{n}", t0 + 6, b"newer", [alice]),
        make_record(ALICE.seed, f"/app/s{n}", t0 + 7, bytes(range(rng.randrange(9))), [alice]),
    )
    now = t0 + DAY_MS
    initiator, responder = MemoryStore(), MemoryStore()
    for record in records[:2] + records[3:4]:
        apply_record(initiator, record, ROOT.pk, now)
    for record in records[2:3] + records[4:]:
        apply_record(responder, record, ROOT.pk, now)
    responder.add_revocation(revocation)
    to_responder, to_initiator = converse(
        MemoryStore(initiator.records.values()),
        MemoryStore(responder.records.values(), responder.revocations.values()),
        now,
    )
    return World(
        now,
        records,
        (alice, bob, carol),
        revocation.encode(),
        initiator,
        responder,
        to_responder,
        to_initiator,
    )


def converse(
    initiator: MemoryStore, responder: MemoryStore, now_ms: int
) -> tuple[tuple[bytes, ...], tuple[bytes, ...]]:
    """A whole session between two stores: the frames each side sent, in order."""
    a = Session(Role.INITIATOR, initiator, ROOT.pk, INITIATOR.node_id)
    b = Session(Role.RESPONDER, responder, ROOT.pk, RESPONDER.node_id)
    sent: dict[Session, list[bytes]] = {a: [], b: []}
    queue = deque((a, frame) for frame in a.start(now_ms))
    while queue:
        sender, frame = queue.popleft()
        sent[sender].append(frame)
        receiver = b if sender is a else a
        queue.extend((receiver, reply) for reply in receiver.receive(frame, now_ms))
    assert a.error is None and b.error is None, (a.error, b.error)
    return tuple(sent[a]), tuple(sent[b])


def push_frames(world: World) -> list[bytes]:
    """PUSH and FETCH frames of the world's records and keys, and their answers."""
    frames = [m.message(m.PUSH, [r.encode()]) for r in world.records]
    frames.append(m.message(m.PUSH, [r.encode() for r in world.records[:3]]))
    frames.append(m.message(m.FETCH, [r.key for r in world.records]))
    store = world.store(Role.RESPONDER)
    return frames + [answer(store, frame, ROOT.pk, world.now_ms).reply for frame in frames]


def serf_payloads(world: World) -> list[bytes]:
    """`kvg-ch` notices of the records, `kvg-th` hashes of both stores."""
    changes = [Change(RESPONDER.node_id, r.key, r.ts, r.entry_hash).encode() for r in world.records]
    states = [
        StateHashes(node.node_id, store.tree_hash(), store.revset_hash()).encode()
        for node, store in (
            (INITIATOR, world.initiator_store),
            (RESPONDER, world.responder_store),
        )
    ]
    return changes + states


def tags(identity: Identity, port: int) -> bytes:
    """A member's `kvg-*` tags as Serf gives them, one `name=value` a line."""
    pairs = {TAG_PORT: str(port), **identity.tags()}
    return "\n".join(f"{name}={value}" for name, value in pairs.items()).encode()


def parse_tags(data: bytes) -> dict[str, str]:
    """Tags from `tags`' form; any byte string reads as some tags (Latin-1, `=` splits)."""
    pairs = (line.partition("=") for line in data.decode("latin-1").split("\n"))
    return {name: value for name, _, value in pairs}
