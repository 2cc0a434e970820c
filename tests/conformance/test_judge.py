"""How one answer is judged against one case."""

from __future__ import annotations

from typing import Any

from swarmconf.conformance.runner import FAILED, PASSED, SKIPPED, judge
from swarmconf.conformance.vectorfile import Case


def case(result: str, expected: dict[str, Any] | None = None, reason: str | None = None) -> Case:
    return Case(
        "basic", 1, "one", "a case", ("Ktv",), ("D1",), "hash", {}, expected, result, reason
    )


HASH = {"hash": "ab" * 32}


def test_valid_case() -> None:
    assert judge(case("valid", HASH), {"result": {"hash": "AB" * 32}}).status == PASSED
    wrong = judge(case("valid", HASH), {"result": {"hash": "00" * 32}})
    assert (wrong.status, wrong.message) == (FAILED, "wrong hash")
    missing = judge(case("valid", HASH), {"result": {}})
    assert (missing.status, missing.message) == (FAILED, "wrong hash")
    refused = judge(case("valid", HASH), {"reason": "MSG_NOT_DICT"})
    assert refused.message == "refused a valid input with MSG_NOT_DICT"


def test_invalid_case_strict_and_lenient() -> None:
    invalid = case("invalid", reason="MSG_NOT_DICT")
    assert judge(invalid, {"reason": "MSG_NOT_DICT"}).status == PASSED
    other = {"reason": "BT_TRUNCATED"}
    assert judge(invalid, other).message == "reason BT_TRUNCATED, expected MSG_NOT_DICT"
    assert judge(invalid, other, strict_reasons=False).status == PASSED
    accepted = judge(invalid, {"result": HASH}, strict_reasons=False)
    assert accepted.message == "accepted an invalid input (expected MSG_NOT_DICT)"


def test_acceptable_case_passes_either_way() -> None:
    acceptable = case("acceptable", HASH)
    assert judge(acceptable, {"result": HASH}).status == PASSED
    assert judge(acceptable, {"reason": "BT_TRUNCATED"}).status == PASSED
    assert judge(acceptable, {"result": {"hash": "00" * 32}}).status == FAILED


def test_skipped_errored_and_empty_answers() -> None:
    assert judge(case("valid", HASH), {"skipped": "no"}).status == SKIPPED
    assert judge(case("valid", HASH), {"errored": "boom"}).message == "client errored"
    empty = judge(case("valid", HASH), {})
    assert empty.message == "answer holds neither a result nor a reason"
