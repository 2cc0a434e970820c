"""K/V Gossip's hostile-input campaign: mutated wire objects through the spec and the node.

Each task builds a small cluster's real objects (`wire`) and derives inputs from them by seeded
mutations (`mutations`, one to three at a time), each aimed at one decoder (`TARGETS`):

- `record` (record wire bytes): `receive_record` on the spec's `MemoryStore` and on the node's
  `SqliteStore`, after the node's `check_signatures`;
- `grant` (signed grant bytes): `decode_grant` (the node has no decoder of its own);
- `revocation` (a `kvg-rv` payload): `apply_revocation` on either store;
- `frame` (a length-prefixed frame): the transport rule (`readings`) then `decode_message`,
  against the node's `frames.read_frame`, then `decode_message` and `check_signatures`;
- `push` (a PUSH or FETCH frame): `push.answer` on either store;
- `session` (one frame of a real session replaced): a spec `Session` of either role fed the
  whole script (the node drives the same machine);
- `change`, `state` (`kvg-ch`, `kvg-th` payloads): the design's reading (`readings`) against
  the node's `gossip.decode_change` and `decode_state`;
- `tags` (a member's `kvg-*` tags): the node's `gossip.peer_of` and `identity.announced`;
- `handshake` (a KVGAUTH2 hello and proof): the design's reading against the node's
  `membership.answer_handshake`.

The node's stores change only inside a transaction that is rolled back, so every input meets
the same state. Properties: both sides give the same outcome, reason code included (H1);
nothing raises but a refusal (H2) or takes over `SLOW_SECONDS` of CPU (H3); a session fed a
hostile frame ends (at the latest when its peer goes silent) and stays ended with its first
reason (H4), and sends only well-formed frames, a bounded number per frame received (H5).
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from typing import Any, NamedTuple

from swarmconf.reference.kvgossip import frames, gossip, identity, membership
from swarmconf.reference.kvgossip.identity import Directory, Identity
from swarmconf.reference.kvgossip.serf_rpc import Member
from swarmconf.reference.kvgossip.store import SqliteStore
from swarmconf.reference.kvgossip.sync import check_signatures
from swarmconf.spec.kvgossip import crypto
from swarmconf.spec.kvgossip import messages as m
from swarmconf.spec.kvgossip.fixtures import ROOT
from swarmconf.spec.kvgossip.grants import decode_grant
from swarmconf.spec.kvgossip.push import answer
from swarmconf.spec.kvgossip.reasons import KvError, KvReason
from swarmconf.spec.kvgossip.session import Role, Session
from swarmconf.spec.kvgossip.state import (
    MemoryStore,
    RevocationVerdict,
    Store,
    Verdict,
    apply_record,
    apply_revocation,
)
from swarmconf.spec.kvgossip.state import receive_record as spec_receive

from ..heap import collector_paused
from ..hostile import SLOW_SECONDS, HostileRow, Outcome, Tally, mutated, task_sizes, timed
from ..swaps import swapped
from . import readings
from .decoder_mutants import MUTANTS
from .mutations import MUTATIONS, WEIGHTS
from .wire import (
    CLUSTER_KEY,
    INITIATOR,
    RESPONDER,
    World,
    build_world,
    parse_tags,
    push_frames,
    serf_payloads,
    tags,
)

PER_TASK = 20_000
EMPTY = b"\x90"
MAX_REPLIES = 16
"""Frames a session may send in answer to one frame of this campaign's small stores (H5)."""
THIRD = Identity(crypto.seed_from_label("kvg hostile third member"))
"""A member whose identity key the hostile initiator does not hold."""
PROPERTIES = {
    "H1": "the spec (or the design's reading) and the node give the same outcome, reason code "
    "included",
    "H2": "no decoder raises anything but a refusal with a reason code",
    "H3": f"no input takes any decoder over {SLOW_SECONDS:g} s of CPU time",
    "H4": "a session fed a hostile frame ends, and once ended stays ended with its first reason",
    "H5": f"a session sends only well-formed frames, at most {MAX_REPLIES} per frame received",
}
TARGETS = (
    "record",
    "grant",
    "revocation",
    "frame",
    "frame",
    "push",
    "session",
    "session",
    "session",
    "change",
    "state",
    "tags",
    "handshake",
)
"""Targets drawn for inputs (sessions and frames more often: they have the most steps)."""


class KvHostileTask(NamedTuple):
    campaign_seed: int
    task: int
    inputs: int
    mutant: str | None = None
    """A broken decoder to run instead of the real one (`decoder_mutants`)."""


class Input(NamedTuple):
    target: str
    data: bytes
    extra: bytes
    """The handshake's proof mask; the session's role (`i` or `r`) and step."""
    mutation: str

    def example(self) -> dict[str, Any]:
        """The input as the report shows it."""
        return {
            "target": self.target,
            "mutation": self.mutation,
            "data": self.data.hex(),
            "extra": self.extra.hex(),
        }


# Inputs -----------------------------------------------------------------------------------


def seeds(world: World) -> dict[str, list[bytes]]:
    """The real objects each target's inputs start from."""
    session = list(world.to_responder + world.to_initiator)
    pushes = push_frames(world)
    payloads = serf_payloads(world)
    return {
        "record": [r.encode() for r in world.records],
        "grant": [g.encode() for g in world.grants],
        "revocation": [world.revocation],
        "frame": session + pushes,
        "push": pushes[: len(pushes) // 2],
        "change": payloads[:-2],
        "state": payloads[-2:],
        "tags": [tags(INITIATOR, 7946), tags(RESPONDER, 65535), tags(THIRD, 1)],
    }


def hostile_inputs(task: KvHostileTask, world: World) -> list[Input]:
    """The task's inputs, each aimed at one target."""
    rng = random.Random(f"kv-hostile:{task.campaign_seed}:{task.task}")
    real = seeds(world)
    everything = [item for items in real.values() for item in items]
    inputs = []
    for _ in range(task.inputs):
        target = rng.choice(TARGETS)
        if target == "session":
            inputs.append(session_input(rng, world, everything))
        elif target == "handshake":
            inputs.append(handshake_input(rng, everything))
        elif target == "frame" and rng.random() < 0.2:
            data, applied = mutated(
                rng, framed(rng.choice(real[target])), everything, MUTATIONS, bytes(4)
            )
            inputs.append(Input(target, data, b"", f"wire:{applied}"))
        else:
            data, applied = mutated(
                rng, rng.choice(real[target]), everything, MUTATIONS, EMPTY, weights=WEIGHTS
            )
            inputs.append(Input(target, framed(data) if target == "frame" else data, b"", applied))
    return inputs


def framed(payload: bytes) -> bytes:
    """A frame on the wire: its `u32be` length, then the payload."""
    return len(payload).to_bytes(readings.PREFIX, "big") + payload


def session_input(rng: random.Random, world: World, everything: list[bytes]) -> Input:
    role = rng.choice((Role.INITIATOR, Role.RESPONDER))
    script = world.received(role)
    step = rng.randrange(len(script))
    data, applied = mutated(rng, script[step], everything, MUTATIONS, EMPTY, weights=WEIGHTS)
    return Input("session", data, role.value[0].encode() + bytes([step]), applied)


def handshake_input(rng: random.Random, everything: list[bytes]) -> Input:
    """A hello claiming a member's id (now and then an unknown one) and a mask on its proof:
    one of them, or both, mutated."""
    claimed = rng.choice((INITIATOR.node_id,) * 4 + (RESPONDER.node_id, THIRD.node_id))
    if rng.random() < 0.1:
        claimed = rng.randbytes(membership.ID_SIZE)
    hello = membership.MAGIC + rng.randbytes(membership.NONCE_SIZE) + claimed
    mask = bytes(readings.PROOF_SIZE)
    which = rng.randrange(4)
    applied = []
    if which in (0, 2):
        hello, name = mutated(rng, hello, everything, MUTATIONS, b"\0")
        applied.append(f"hello:{name}")
    if which in (1, 2):
        mask, name = mutated(rng, mask, everything, MUTATIONS, b"\0")
        applied.append(f"proof:{name}")
    return Input("handshake", hello, mask, "+".join(applied) or "honest")


# Decoders ---------------------------------------------------------------------------------


class Undo(Exception):
    """Leaves a store transaction with what it found, rolling the changes back."""

    def __init__(self, found: Outcome) -> None:
        self.found = found


def rolled_back(store: SqliteStore, call: Callable[[], Outcome]) -> Outcome:
    """`call()` on the node's store, whose changes are then undone."""
    try:
        with store.transaction():
            raise Undo(call())
    except Undo as undo:
        return undo.found


def verdict_outcome(verdict: Verdict) -> Outcome:
    """("valid", ACCEPTED or AGREE) or ("invalid", reason, outcome, revoked grant ids)."""
    if verdict.reason is None:
        return ("valid", verdict.outcome.value)
    revoked = ",".join(sorted(g.hex() for g in verdict.revoked_ids))
    return ("invalid", verdict.reason.value, verdict.outcome.value, revoked)


def revocation_outcome(verdict: RevocationVerdict) -> Outcome:
    if verdict.reason is not None:
        return ("invalid", verdict.reason.value)
    return ("valid", "new" if verdict.new else "known", ",".join(verdict.purged))


def reply_outcome(store: Store, frame: bytes, now_ms: int) -> Outcome:
    return ("valid", crypto.sha256(answer(store, frame, ROOT.pk, now_ms).reply).hex())


def reason_of(error: KvError | frames.FrameError | membership.MembershipError) -> str:
    return str(error.reason)


REFUSED = (KvError, frames.FrameError, membership.MembershipError)


class Decoders:
    """Both sides' decoders for one task's world: the spec's store, the node's store, an
    event loop for the node's stream readers and a membership directory."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.now = world.now_ms
        self.store = SqliteStore(":memory:", ROOT.pk)
        responder = world.responder_store
        with self.store.transaction():
            for record in responder.records.values():
                apply_record(self.store, record, ROOT.pk, self.now)
            for revocation in responder.revocations.values():
                self.store.add_revocation(revocation)
        self.loop = asyncio.new_event_loop()
        self.directory = Directory()
        self.directory.update(
            Member(f"n{i}", "127.0.0.1", 7946, who.tags(), "alive")
            for i, who in enumerate((INITIATOR, RESPONDER, THIRD))
        )
        self.members = {INITIATOR.node_id: True, RESPONDER.node_id: False, THIRD.node_id: False}

    def close(self) -> None:
        self.loop.close()
        self.store.close()

    def spec_store(self) -> MemoryStore:
        return self.world.store(Role.RESPONDER)

    def sides(self, item: Input) -> tuple[Callable[[], Outcome], Callable[[], Outcome] | None]:
        """The spec's (or the design's) decoder of `item` and the node's, if it has its own."""
        data, now = item.data, self.now
        if item.target == "record":
            return (
                lambda: verdict_outcome(spec_receive(self.spec_store(), data, ROOT.pk, now)),
                lambda: self.node_record(data),
            )
        if item.target == "grant":
            return (lambda: ("valid", decode_grant(data).id.hex())), None
        if item.target == "revocation":
            return (
                lambda: revocation_outcome(apply_revocation(self.spec_store(), data, ROOT.pk)),
                lambda: rolled_back(
                    self.store,
                    lambda: revocation_outcome(apply_revocation(self.store, data, ROOT.pk)),
                ),
            )
        if item.target == "frame":
            return (lambda: spec_frame(data)), (lambda: self.node_frame(data))
        if item.target == "push":
            return (
                lambda: reply_outcome(self.spec_store(), data, now),
                lambda: rolled_back(self.store, lambda: reply_outcome(self.store, data, now)),
            )
        if item.target == "change":
            return (lambda: readings.read_change(data)), (lambda: node_change(data))
        if item.target == "state":
            return (lambda: readings.read_state(data)), (lambda: node_state(data))
        if item.target == "tags":
            return (lambda: node_tags(data)), None
        return (
            lambda: readings.read_handshake(data, item.extra, self.members),
            lambda: self.node_handshake(data, item.extra),
        )

    def node_record(self, data: bytes) -> Outcome:
        check_signatures(m.message(m.RECORDS, [data]))
        return rolled_back(
            self.store,
            lambda: verdict_outcome(spec_receive(self.store, data, ROOT.pk, self.now)),
        )

    def node_frame(self, wire: bytes) -> Outcome:
        payload = self.loop.run_until_complete(first_frame(wire))
        check_signatures(payload)
        return ("valid", m.decode_message(payload)[0])

    def node_handshake(self, hello: bytes, mask: bytes) -> Outcome:
        node_id = self.loop.run_until_complete(answer_hello(self.directory, hello, mask))
        return ("valid", node_id.hex())


def spec_frame(wire: bytes) -> Outcome:
    framing = readings.read_frame(wire)
    if framing[0] != "valid":
        return framing
    return ("valid", m.decode_message(bytes.fromhex(framing[1]))[0])


async def first_frame(wire: bytes) -> bytes:
    reader = asyncio.StreamReader()
    reader.feed_data(wire)
    reader.feed_eof()
    return await frames.read_frame(reader)


def node_change(payload: bytes) -> Outcome:
    change = gossip.decode_change(payload)
    return ("valid", change.node_id.hex(), change.key, str(change.ts), change.entry_hash.hex())


def node_state(payload: bytes) -> Outcome:
    state = gossip.decode_state(payload)
    return ("valid", state.node_id.hex(), state.tree_hash.hex(), state.revset_hash.hex())


def node_tags(data: bytes) -> Outcome:
    """What a member with these tags is to the node: a peer to sync with (port and node id),
    an identity key for the handshake, or neither."""
    member = Member("m", "127.0.0.1", 7946, parse_tags(data), "alive")
    peer = gossip.peer_of(member)
    key = identity.announced(member)
    if peer is not None and not (0 < peer.port < 65536 and peer.node_id):
        raise AssertionError(f"peer_of accepted port {peer.port}, id {peer.node_id.hex()}")
    if key is not None and key[0] != identity.node_id_of(key[1]):
        raise AssertionError("announced an id its key does not derive")
    if peer is None and key is None:
        return ("invalid", "NOT_A_PEER")
    found = "peer" if key is None else "member" if peer is None else "peer+member"
    return ("valid", found)


class ProofWriter:
    """The responder's side of the stream: once it sends its reply, the initiator answers
    with its honest proof for that transcript, XORed with the mask, and leaves."""

    def __init__(self, reader: asyncio.StreamReader, hello: bytes, mask: bytes) -> None:
        self.reader, self.hello, self.mask = reader, hello, mask

    def write(self, reply: bytes) -> None:
        cut = len(membership.MAGIC)
        nonce_i = self.hello[cut : cut + membership.NONCE_SIZE]
        id_i = self.hello[cut + membership.NONCE_SIZE : readings.HELLO_SIZE]
        nonce_r = reply[: membership.NONCE_SIZE]
        id_r = reply[membership.NONCE_SIZE : membership.NONCE_SIZE + membership.ID_SIZE]
        transcript = nonce_i + nonce_r + id_i + id_r
        proof = membership._mac(CLUSTER_KEY.handshake_key, b"I", transcript)
        proof += INITIATOR.sign(membership._signed(b"I", transcript))
        padded = proof + bytes(max(0, len(self.mask) - len(proof)))
        self.reader.feed_data(bytes(p ^ k for p, k in zip(padded, self.mask, strict=False)))
        self.reader.feed_eof()

    async def drain(self) -> None:
        return None


async def answer_hello(directory: Directory, hello: bytes, mask: bytes) -> bytes:
    reader = asyncio.StreamReader()
    reader.feed_data(hello)
    if len(hello) < readings.HELLO_SIZE or not hello.startswith(membership.MAGIC):
        reader.feed_eof()
    writer: Any = ProofWriter(reader, hello, mask)
    return await membership.answer_handshake(CLUSTER_KEY, RESPONDER, directory, reader, writer)


# Sessions ---------------------------------------------------------------------------------


def session_steps(world: World, item: Input, note: Callable[[str, str], None]) -> Outcome:
    """Play one side's session with frame `step` of its real script replaced by the input,
    then the rest of the script, then the peer's silence, then one frame more; note H4 and H5
    on the way. The outcome is the reason the session ended with, or "clean"."""
    role = Role.INITIATOR if item.extra[:1] == b"i" else Role.RESPONDER
    script = list(world.received(role))
    script[item.extra[1]] = item.data
    me = INITIATOR if role is Role.INITIATOR else RESPONDER
    session = Session(role, world.store(role), ROOT.pk, me.node_id)
    well_formed(session.start(world.now_ms), note)
    for frame in script:
        ended, reason = session.done, session.error
        sent = session.receive(frame, world.now_ms)
        if ended:
            stays_ended(reason, sent, session, note)
        well_formed(sent, note)
    session.timeout()
    if not session.done:
        note("H4", "still running after its peer went silent")
    reason = session.error
    stays_ended(reason, session.receive(script[-1], world.now_ms), session, note)
    return ("clean",) if reason is None else ("invalid", reason.value)


def stays_ended(
    reason: KvReason | None, sent: list[bytes], session: Session, note: Callable[[str, str], None]
) -> None:
    """An ended session answers nothing; a frame keeps its first reason (or, after a clean
    end, makes it SESSION_CLOSED)."""
    after = reason or KvReason.SESSION_CLOSED
    if sent or session.error != after:
        note("H4", f"ended with {reason}, then sent {len(sent)} frames, reason {session.error}")


def well_formed(sent: list[bytes], note: Callable[[str, str], None]) -> None:
    if len(sent) > MAX_REPLIES:
        note("H5", f"{len(sent)} frames in answer to one")
    for frame in sent:
        try:
            m.decode_message(frame)
        except KvError as error:
            note("H5", f"sent a frame it refuses itself: {error.reason}")


# The task ---------------------------------------------------------------------------------


def run_kv_hostile_task(task: KvHostileTask) -> HostileRow:
    """One row: the task's counts, outcome tally (by target) and first failing inputs."""
    started = time.perf_counter()
    world = task_world(task.campaign_seed, task.task)
    inputs = hostile_inputs(task, world)
    distinct = list({(i.target, i.data, i.extra): i for i in inputs}.values())
    tally = checked(task, world, distinct)
    return tally.row(task.campaign_seed, task.task, len(inputs), len(distinct), started)


def task_world(campaign_seed: int, task: int) -> World:
    return build_world(random.Random(f"kv-hostile-world:{campaign_seed}:{task}"))


def checked(task: KvHostileTask, world: World, inputs: list[Input]) -> Tally:
    """The tally of `inputs` run through their decoders (the task's mutant in place)."""
    decoders = Decoders(world)
    tally = Tally()
    origin = {"campaign_seed": task.campaign_seed, "task": task.task, "mutant": task.mutant}
    broken = MUTANTS[task.mutant] if task.mutant is not None else {}
    try:
        with collector_paused(), swapped(broken):
            for item in inputs:
                check(item, world, decoders, tally, origin)
    finally:
        decoders.close()
    return tally


def replay(example: dict[str, Any]) -> dict[str, int]:
    """The violations of one failing input of a report, found again from its task's world."""
    task = KvHostileTask(example["campaign_seed"], example["task"], 1, example["mutant"])
    item = Input(
        example["target"],
        bytes.fromhex(example["data"]),
        bytes.fromhex(example["extra"]),
        example["mutation"],
    )
    return dict(checked(task, task_world(task.campaign_seed, task.task), [item]).violations)


def check(
    item: Input, world: World, decoders: Decoders, tally: Tally, origin: dict[str, Any]
) -> None:
    """Run one input through its target's decoders and note what fails."""

    def note(name: str, detail: str) -> None:
        tally.note(name, detail, {**origin, **item.example()})

    if item.target == "session":
        want, seconds = timed(lambda: session_steps(world, item, note), KvError, reason_of)
        got, other = want, 0.0
    else:
        spec_side, node_side = decoders.sides(item)
        want, seconds = timed(spec_side, REFUSED, reason_of)
        got, other = want, 0.0
        if node_side is not None:
            got, other = timed(node_side, REFUSED, reason_of)
    tally.outcomes[f"{item.target}:{want[1] if want[0] == 'invalid' else want[0]}"] += 1
    if "raised" in (want[0], got[0]):
        note("H2", f"spec {want[-1]}, node {got[-1]}")
    elif want != got:
        note("H1", f"spec {' '.join(want)[:80]}, node {' '.join(got)[:80]}")
    if tally.slow(max(seconds, other)):
        note("H3", f"spec {seconds:.2f} s, node {other:.2f} s")


def plan_kv_hostile(
    campaign_seed: int, inputs: int, mutant: str | None = None
) -> list[KvHostileTask]:
    """`inputs` split into tasks of `PER_TASK`."""
    return [
        KvHostileTask(campaign_seed, number, size, mutant)
        for number, size in enumerate(task_sizes(inputs, PER_TASK))
    ]
