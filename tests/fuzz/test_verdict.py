"""Judging a client's answer against the spec's: agreement, failures, skips, declared quirks."""

from swarmconf.conformance.client import ClientFailure
from swarmconf.fuzz.verdict import AGREED, DISAGREED, FAILED, QUIRK, SKIPPED, judge, triggered

PARSE = {"op": "parse", "msg": b"de".hex(), "lag": 5}
REFUSED = {"reason": "MSG_MISSING_SEQNO"}
# A diff holding an integer value: the deployed client's parser loops forever on it (X3)
LOOPING = {"op": "parse", "msg": b"d1:#i1e1:&de1:=d1:ai1eee".hex(), "lag": 5}


def test_equal_answers_agree_and_hex_case_does_not_matter() -> None:
    expected = {"result": {"hash": "ab"}}
    assert judge({"op": "hash", "msg": "", "lag": 5}, expected, {"result": {"hash": "AB"}}).status
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
    assert ("X3", "hang") in list(triggered(LOOPING, expected))
    hang = ClientFailure("timeout", "no answer")
    assert judge(LOOPING, expected, hang, frozenset({"X3"})).status == QUIRK
    assert judge(LOOPING, expected, hang).status == FAILED  # not declared
    accepted = {"result": {"seqno": 1}}
    assert judge(LOOPING, expected, accepted, frozenset({"X3"})).status == DISAGREED


def test_check_order_quirk_accepts_another_reason_code() -> None:
    other = {"reason": "MSG_NOT_DICT"}
    assert judge(PARSE, REFUSED, other, frozenset({"X10"})).status == QUIRK
    assert judge(PARSE, REFUSED, {"result": {}}, frozenset({"X10"})).status == DISAGREED


def test_lag_zero_quirk() -> None:
    merge = {"op": "merge", "msgs": ["de", "de"], "lag": 0}
    found = dict(triggered(merge, {"reason": "BAD_LAG"}))
    assert found["X4"] == "abort"
    parse = dict(triggered({**PARSE, "lag": 0}, {"reason": "BAD_LAG"}))
    assert parse["X4"] == "valid"
