"""How one answer is judged against one case."""

from __future__ import annotations

from typing import Any

from swarmconf.conformance.client import ClientFailure
from swarmconf.conformance.runner import (
    ACCEPTABLE,
    FAILED,
    PASSED,
    SKIPPED,
    Declarations,
    judge,
    judge_failure,
)
from swarmconf.conformance.vectors import Case


def case(
    result: str,
    expected: dict[str, Any] | None = None,
    reason: str | None = None,
    *,
    deployed: dict[str, Any] | None = None,
    quirks: tuple[str, ...] = (),
    limits: tuple[str, ...] = (),
    request: dict[str, Any] | None = None,
) -> Case:
    return Case(
        suite="basic",
        design="configmerge",
        tc_id=1,
        name="one",
        comment="a case",
        flags=("Ktv",),
        rules=("D1",),
        op="hash",
        request=request or {"op": "hash"},
        result=result,
        expected=expected,
        reason=reason,
        deployed=deployed,
        quirks=quirks,
        limits=limits,
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


DECLARES_X1 = Declarations(quirks=frozenset({"X1"}))
QUIRKY = case(
    "invalid",
    reason="BT_KEYS_UNSORTED",
    deployed={"result": "valid", "expected": HASH},
    quirks=("X1",),
)


def test_a_declared_quirk_is_acceptable_only_when_the_client_behaves_as_it_says() -> None:
    as_deployed = {"result": {"hash": "AB" * 32}}
    assert judge(QUIRKY, as_deployed, declared=DECLARES_X1).status == ACCEPTABLE
    assert judge(QUIRKY, as_deployed).status == FAILED  # undeclared: graded strictly
    otherwise = judge(QUIRKY, {"result": {"hash": "00" * 32}}, declared=DECLARES_X1)
    assert (otherwise.status, otherwise.message) == (
        FAILED,
        "accepted an invalid input (expected BT_KEYS_UNSORTED); nor as its declared quirks",
    )
    # Stricter than the deployed client is a plain pass.
    assert judge(QUIRKY, {"reason": "BT_KEYS_UNSORTED"}, declared=DECLARES_X1).status == PASSED


def test_a_case_needs_every_quirk_it_names_declared() -> None:
    both = case("invalid", reason="MSG_NOT_DICT", deployed={"result": "hang"}, quirks=("X1", "X3"))
    hang = ClientFailure("timeout", "no answer within 2 s")
    assert judge_failure(both, hang, DECLARES_X1).status == FAILED
    declares_both = Declarations(quirks=frozenset({"X1", "X3"}))
    assert judge_failure(both, hang, declares_both).status == ACCEPTABLE
    crash = ClientFailure("crashed", "exit status 134")
    assert judge_failure(both, crash, declares_both).status == FAILED


def test_a_hung_answer_is_graded_as_a_hang() -> None:
    hangs = case("invalid", reason="DIFF_INTEGER", deployed={"result": "hang"}, quirks=("X3",))
    hung = {"hung": "it loops (X3)"}
    declares_x3 = Declarations(quirks=frozenset({"X3"}))
    assert judge(hangs, hung, declared=declares_x3).status == ACCEPTABLE
    undeclared = judge(hangs, hung)
    assert undeclared.status == FAILED and "hangs: it loops" in undeclared.message
    assert judge(case("valid", HASH), hung, declared=declares_x3).status == FAILED


def test_declarations_make_cases_not_applicable() -> None:
    hello = {"ops": ["hash"], "profiles": ["libsession"], "quirks": ["X2"]}
    declared = Declarations.of(hello)
    assert declared.quirks == {"X2"}
    assert declared.not_applicable(case("valid", HASH)) == ""
    merge = Case(**{**vars(case("valid", HASH)), "op": "merge"})
    assert declared.not_applicable(merge) == "client does not support op 'merge'"
    spec = case("valid", HASH, request={"op": "hash", "profile": "spec"})
    assert declared.not_applicable(spec) == "client does not support profile 'spec'"
    # A profile outside the design tests its refusal: every client takes that case.
    bogus = case("invalid", reason="BAD_PROFILE", request={"op": "hash", "profile": "rot13"})
    assert declared.not_applicable(bogus) == ""
    assert Declarations.of({}).not_applicable(merge) == ""


def test_declared_limits_make_the_cases_that_need_them_not_applicable() -> None:
    wide = case("invalid", reason="INT_OUT_OF_RANGE", limits=("wide-data-integers",))
    typed = Declarations.of({"limits": ["wide-data-integers"]})
    assert typed.limits == {"wide-data-integers"}
    assert (
        typed.not_applicable(wide) == "client's API cannot express this input (wide-data-integers)"
    )
    assert typed.not_applicable(case("valid", HASH)) == ""
    other = Declarations.of({"limits": ["container-set-elements"]})
    assert other.not_applicable(wide) == ""
    assert Declarations.of({}).not_applicable(wide) == ""
