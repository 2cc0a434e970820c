"""Judging a client's answer against the spec's: agreement, failures, skips, declared quirks."""

import hashlib
from typing import Any

import pytest

from swarmconf.conformance.client import ClientFailure
from swarmconf.conformance.configmerge.deployed import DeployedAdapter
from swarmconf.fuzz.configmerge import verdict
from swarmconf.fuzz.configmerge.verdict import (
    AGREED,
    DISAGREED,
    FAILED,
    QUIRK,
    SKIPPED,
    declared_hang,
    deployed_behaviour,
    judge,
)
from swarmconf.spec.configmerge import examples

PARSE = {"op": "parse", "msg": b"de".hex(), "lag": 5}
REFUSED = {"reason": "MSG_MISSING_SEQNO"}
# A diff holding an integer value: the deployed client's parser loops forever on it (X3)
LOOPING = {"op": "parse", "msg": b"d1:#i1e1:&de1:=d1:ai1eee".hex(), "lag": 5}


def test_equal_answers_agree_and_hex_case_does_not_matter() -> None:
    expected = {"result": {"hash": "ab"}}
    request = {"op": "hash", "msg": "", "lag": 5}
    assert judge(request, expected, {"result": {"hash": "ab"}}).status == AGREED
    assert judge(request, expected, {"result": {"hash": "AB"}}).status == AGREED
    assert judge(request, expected, {"result": {"hash": "AB", "more": 1}}).status == AGREED
    assert judge(PARSE, REFUSED, {"reason": "MSG_MISSING_SEQNO"}).status == AGREED


def test_a_different_reason_or_field_disagrees() -> None:
    verdict = judge(PARSE, REFUSED, {"reason": "MSG_NOT_DICT"})
    assert verdict.status == DISAGREED
    assert "MSG_NOT_DICT" in verdict.detail and "MSG_MISSING_SEQNO" in verdict.detail
    wrong = judge(
        {"op": "hash", "msg": "", "lag": 5}, {"result": {"hash": "ab"}}, {"result": {"hash": "cd"}}
    )
    assert wrong.status == DISAGREED and "hash" in wrong.detail


def test_crashes_errors_and_skips() -> None:
    assert judge(PARSE, REFUSED, ClientFailure("crashed", "exit 70")).status == FAILED
    assert judge(PARSE, REFUSED, {"errored": "Traceback"}).status == FAILED
    assert judge(PARSE, REFUSED, {"skipped": "not implemented"}).status == SKIPPED


def test_a_declared_quirk_is_acceptable_only_when_the_client_does_what_it_says() -> None:
    expected = {"reason": "DIFF_INTEGER"}
    behaviour = deployed_behaviour(LOOPING, expected)
    assert behaviour is not None and behaviour.quirks == ("X3",)
    assert behaviour.deployed == {"result": "hang"}
    hang = ClientFailure("timeout", "no answer")
    assert judge(LOOPING, expected, hang, frozenset({"X3"})).status == QUIRK
    assert judge(LOOPING, expected, hang).status == FAILED  # not declared
    assert judge(LOOPING, expected, hang, frozenset({"X1"})).status == FAILED  # another quirk
    crash = ClientFailure("crashed", "exit 134")
    assert judge(LOOPING, expected, crash, frozenset({"X3"})).status == FAILED  # not a hang
    accepted = {"result": {"seqno": 1}}
    assert judge(LOOPING, expected, accepted, frozenset({"X3"})).status == DISAGREED


def test_a_lenient_decoder_quirk_is_acceptable_with_the_deployed_hash() -> None:
    trailing = examples.m123() + b"x"
    request = {"op": "hash", "msg": trailing.hex(), "lag": 5}
    expected = {"reason": "BT_TRAILING_BYTES"}
    as_deployed = {"result": {"hash": hashlib.blake2b(trailing, digest_size=32).hexdigest()}}
    assert judge(request, expected, as_deployed, frozenset({"X1"})).status == QUIRK
    assert judge(request, expected, {"result": {"hash": "00" * 32}}, frozenset({"X1"})).status == (
        DISAGREED
    )


def test_no_quirk_excuses_a_request_the_deployed_client_answers_as_the_spec() -> None:
    assert deployed_behaviour(PARSE, REFUSED) is None
    other = {"reason": "MSG_NOT_DICT"}
    assert judge(PARSE, REFUSED, other, frozenset({"X10"})).status == DISAGREED


def test_lag_zero_quirk() -> None:
    m123 = examples.m123().hex()
    merge = {"op": "merge", "msgs": [m123, m123], "lag": 0}
    behaviour = deployed_behaviour(merge, {"reason": "BAD_LAG"})
    assert behaviour is not None and behaviour.deployed == {"result": "abort"}
    crash = ClientFailure("crashed", "exit 134")
    assert judge(merge, {"reason": "BAD_LAG"}, crash, frozenset({"X4"})).status == QUIRK
    parse = {"op": "parse", "msg": m123, "lag": 0}
    behaviour = deployed_behaviour(parse, {"reason": "BAD_LAG"})
    assert behaviour is not None and behaviour.deployed["result"] == "valid"


def test_the_emulation_of_a_request_is_computed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    request = {"op": "parse", "msg": b"d1:#i1e1:&de1:=d1:bi7eee".hex(), "lag": 5}
    calls = []
    emulate = DeployedAdapter.emulate

    def counted(self: DeployedAdapter, asked: dict[str, Any]) -> Any:
        calls.append(asked)
        return emulate(self, asked)

    monkeypatch.setattr(DeployedAdapter, "emulate", counted)
    monkeypatch.setattr(verdict, "_EMULATED", {})
    hangs = declared_hang(frozenset({"X3"}))
    assert hangs is not None and hangs(request)
    behaviour = deployed_behaviour(request, {"reason": "DIFF_INTEGER"})
    assert behaviour is not None and behaviour.deployed == {"result": "hang"}
    assert len(calls) == 1
