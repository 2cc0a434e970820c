"""K/V Gossip's hostile-input campaign: real objects, reproducible inputs, agreeing decoders,
and broken decoders or sessions caught."""

import json
import random
from collections.abc import Callable
from typing import Any

import pytest

from swarmconf.fuzz.hostile import timed
from swarmconf.fuzz.kvgossip import hostile
from swarmconf.fuzz.kvgossip.decoder_mutants import MUTANTS
from swarmconf.fuzz.kvgossip.hostile import (
    REFUSED,
    TARGETS,
    Decoders,
    Input,
    KvHostileTask,
    hostile_inputs,
    plan_kv_hostile,
    reason_of,
    replay,
    run_kv_hostile_task,
    seeds,
    session_steps,
)
from swarmconf.fuzz.kvgossip.mutations import MUTATIONS
from swarmconf.fuzz.kvgossip.wire import INITIATOR, RESPONDER, build_world
from swarmconf.spec.kvgossip import messages as m
from swarmconf.spec.kvgossip.session import Session

INPUTS, DISTINCT, OUTCOMES, VIOLATIONS, EXAMPLES = 2, 3, 4, 5, 6
WORLD = build_world(random.Random("test"))


def noter(notes: list[str]) -> Callable[[str, str], None]:
    return lambda name, detail: notes.append(name)


def outcomes(item: Input) -> tuple[Any, Any]:
    decoders = Decoders(WORLD)
    try:
        spec_side, node_side = decoders.sides(item)
        want = timed(spec_side, REFUSED, reason_of)[0]
        return want, timed(node_side, REFUSED, reason_of)[0] if node_side is not None else None
    finally:
        decoders.close()


@pytest.mark.parametrize("target", sorted(set(TARGETS) - {"session", "handshake"}))
def test_real_objects_get_the_same_outcome_on_both_sides(target: str) -> None:
    found = []
    for data in seeds(WORLD)[target]:
        item = Input(target, hostile.framed(data) if target == "frame" else data, b"", "")
        want, got = outcomes(item)
        assert got is None or got == want
        found.append(want[0] if want[0] == "valid" else want[1])
    # Every real object decodes; a record may be older than the stored one, or revoked
    assert set(found) <= {"valid", "STALE", "REVOKED"} and "valid" in found, found


def test_an_unmutated_session_step_ends_cleanly() -> None:
    for role, tag in (("initiator", b"i"), ("responder", b"r")):
        script = WORLD.to_initiator if role == "initiator" else WORLD.to_responder
        for step, frame in enumerate(script):
            notes: list[str] = []
            found = session_steps(
                WORLD, Input("session", frame, tag + bytes([step]), ""), noter(notes)
            )
            assert found == ("clean",) and notes == []


def test_inputs_are_reproducible_and_use_every_mutation_and_target() -> None:
    task = KvHostileTask(1, 0, 3000)
    inputs = hostile_inputs(task, WORLD)
    assert inputs == hostile_inputs(task, WORLD)
    used = {name.split(":")[-1] for item in inputs for name in item.mutation.split("+")}
    assert set(MUTATIONS) <= used
    assert {item.target for item in inputs} == set(TARGETS)


def test_the_spec_and_the_node_agree_on_hostile_inputs() -> None:
    row = run_kv_hostile_task(KvHostileTask(1, 0, 6000))
    assert row[INPUTS] == 6000 and 0 < row[DISTINCT] <= 6000
    assert json.loads(row[VIOLATIONS]) == {}, row[EXAMPLES]
    tally = json.loads(row[OUTCOMES])
    for target in set(TARGETS) - {"grant", "revocation"}:
        found = {key.split(":")[1] for key in tally if key.startswith(f"{target}:")}
        assert len(found) >= 2, (target, found)  # accepted and refused
    assert len(tally) > 40


@pytest.mark.parametrize(("mutant", "caught"), [
    ("prefix-cut-as-closed", "H1"),
    ("negative-ts-accepted", "H1"),
    ("record-index-error", "H2"),
])  # fmt: skip
def test_every_broken_decoder_is_caught_and_replayed(mutant: str, caught: str) -> None:
    row = run_kv_hostile_task(KvHostileTask(1, 0, 20_000, mutant))
    assert json.loads(row[VIOLATIONS]).get(caught, 0) >= 1
    assert set(MUTANTS) == {"prefix-cut-as-closed", "negative-ts-accepted", "record-index-error"}
    example = json.loads(row[EXAMPLES])[0]
    assert replay(example) == {caught: 1}
    assert replay({**example, "mutant": None}) == {}


class Talkative(Session):
    """A session that keeps answering after it ended."""

    def receive(self, frame: bytes, now_ms: int) -> list[bytes]:
        sent = super().receive(frame, now_ms)
        return [m.message(m.BYE)] if self.done and not sent else sent


class Garbling(Session):
    """A session whose answers carry one hash too short."""

    def receive(self, frame: bytes, now_ms: int) -> list[bytes]:
        return [m.message(m.TREE, b"short", 0) for _ in super().receive(frame, now_ms)]


@pytest.mark.parametrize(("broken", "caught"), [(Talkative, "H4"), (Garbling, "H5")])
def test_a_broken_session_is_caught(
    broken: type[Session], caught: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hostile, "Session", broken)
    notes: list[str] = []
    session_steps(WORLD, Input("session", WORLD.to_responder[0], b"r\0", ""), noter(notes))
    assert caught in notes


@pytest.mark.parametrize(("hello", "mask", "reason"), [
    (b"KVGAUTH2" + bytes(16) + INITIATOR.node_id, bytes(96), None),
    (b"KVGAUTH1" + bytes(16) + INITIATOR.node_id, bytes(96), "HANDSHAKE_FAILED"),
    (b"KVGAUTH2" + bytes(15), bytes(96), "HANDSHAKE_FAILED"),
    (b"KVGAUTH2" + bytes(16) + INITIATOR.node_id + b"\0", bytes(96), "HANDSHAKE_FAILED"),
    (b"KVGAUTH2" + bytes(16) + INITIATOR.node_id, bytes(95), "HANDSHAKE_FAILED"),
    (b"KVGAUTH2" + bytes(16) + INITIATOR.node_id, b"\1" + bytes(95), "HANDSHAKE_FAILED"),
    (b"KVGAUTH2" + bytes(16) + INITIATOR.node_id, bytes(95) + b"\1", "NODE_ID_NOT_PROVEN"),
    (b"KVGAUTH2" + bytes(16) + RESPONDER.node_id, bytes(96), "NODE_ID_NOT_PROVEN"),
    (b"KVGAUTH2" + bytes(32), bytes(96), "UNKNOWN_NODE_ID"),
])  # fmt: skip
def test_the_handshake_reading_and_the_node_agree(
    hello: bytes, mask: bytes, reason: str | None
) -> None:
    want, got = outcomes(Input("handshake", hello, mask, ""))
    assert want == got
    assert want[0] == "valid" if reason is None else want == ("invalid", reason)


@pytest.mark.parametrize(("wire", "reason"), [
    (b"", "CONNECTION_CLOSED"),
    (b"\0\0", "FRAME_TRUNCATED"),
    (b"\0\0\0\5\x91", "FRAME_TRUNCATED"),
    ((4 * 1024 * 1024 + 1).to_bytes(4, "big"), "SESSION_FRAME_TOO_LARGE"),
    (b"\0\0\0\2\x91\x90trailing", "SESSION_BAD_MESSAGE"),
])  # fmt: skip
def test_the_transport_reading_and_the_node_agree(wire: bytes, reason: str) -> None:
    want, got = outcomes(Input("frame", wire, b"", ""))
    assert want == got == ("invalid", reason)


def test_plans_cover_the_inputs() -> None:
    tasks = plan_kv_hostile(1, 50_001, "record-index-error")
    assert sum(task.inputs for task in tasks) == 50_001
    assert {task.mutant for task in tasks} == {"record-index-error"}
