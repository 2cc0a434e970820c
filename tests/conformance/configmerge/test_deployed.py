"""The deployed client's emulation against the vectors: it does what each case's `deployed`
says, passes every unflagged case, declares its quirks, and as a process fails exactly the
flagged cases when graded strictly, and none when its declarations are honoured."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from swarmconf.conformance.client import Message, ProcessClient
from swarmconf.conformance.configmerge.deployed import LIMITS, QUIRKS, DeployedAdapter, Stop
from swarmconf.conformance.recipes import compact, expand_fields
from swarmconf.conformance.runner import (
    ACCEPTABLE,
    FAILED,
    NOT_APPLICABLE,
    PASSED,
    judge,
    run_cases,
)
from swarmconf.conformance.vectors import Case, load_cases

VECTORS = Path(__file__).resolve().parents[3] / "vectors" / "v1"
EMULATION = [sys.executable, "-m", "swarmconf.conformance.configmerge.deployed"]
TIMEOUT = 10.0
"""Seconds a request may take; a hang costs this much, so the process runs see few of them."""


@pytest.fixture(scope="module")
def cases() -> list[Case]:
    return load_cases(VECTORS, designs=["configmerge"])


def _is_flagged(case: Case) -> bool:
    return bool(case.quirks)


def _deployed_answer(adapter: DeployedAdapter, case: Case) -> dict[str, Any]:
    """What the emulation does with a case, in the shape of a case's `deployed`."""
    try:
        answer = adapter.handle(expand_fields(case.request))
    except Stop as stop:
        return {"result": stop.result}
    if "reason" in answer:
        return {"result": "invalid", "reason": answer["reason"]}
    return {"result": "valid", "expected": compact(answer["result"])}


def test_the_emulation_does_what_every_case_says(cases: list[Case]) -> None:
    adapter = DeployedAdapter()
    wrong = []
    for case in cases:
        if case.deployed is not None:
            if _deployed_answer(adapter, case) != case.deployed:
                wrong.append(case.label)
        elif judge(case, adapter.handle(expand_fields(case.request))).status != PASSED:
            wrong.append(case.label)
    assert wrong == []


def test_every_quirk_but_x5_has_cases_of_its_own(cases: list[Case]) -> None:
    quirks = Counter(quirk for case in cases for quirk in case.quirks)
    assert set(quirks) == set(QUIRKS)
    results = Counter(case.deployed["result"] for case in cases if case.deployed is not None)
    assert set(results) == {"valid", "invalid", "hang", "abort"}


def test_hello_declares_the_quirks() -> None:
    hello = DeployedAdapter().handle({"op": "hello", "protocol": 1})
    assert hello["quirks"] == list(QUIRKS)
    assert hello["limits"] == list(LIMITS)
    assert {"name", "version", "ops", "profiles"} <= set(hello)
    assert "merge" in hello["ops"] and hello["profiles"] == ["libsession"]
    assert not any(op.startswith("kv_") for op in hello["ops"])


class WithoutDeclarations(ProcessClient):
    """The emulation's process with the quirks left out of its `hello`: graded strictly."""

    def start(self) -> Message:
        hello = super().start()
        return {key: value for key, value in hello.items() if key != "quirks"}


def _not_for_it(case: Case) -> bool:
    """A case of the `spec` profile, which the deployed client does not have, or one whose
    input its typed API cannot express."""
    return case.request.get("profile") == "spec" or bool(set(case.limits) & set(LIMITS))


def _process_sample(cases: list[Case]) -> list[Case]:
    """Every flagged case, each followed by one of every 25th other case (a process run costs
    seconds per hang, and the runner gives up after ten client failures in a row)."""
    flagged = [case for case in cases if _is_flagged(case)]
    others = [case for case in cases if not _is_flagged(case)][::25]
    sample = []
    for index, case in enumerate(flagged):
        sample += [case, *others[index : index + 1]]
    return sample + others[len(flagged) :]


def test_graded_strictly_the_process_fails_exactly_the_flagged_cases(cases: list[Case]) -> None:
    sample = _process_sample(cases)
    report = run_cases(WithoutDeclarations(EMULATION, TIMEOUT), sample)
    failed = {outcome.case.label for outcome in report.outcomes if outcome.status == FAILED}
    assert failed == {case.label for case in sample if _is_flagged(case) and not _not_for_it(case)}
    assert len(report.outcomes) == len(sample)
    not_applicable = {o.case.label for o in report.outcomes if o.status == NOT_APPLICABLE}
    assert not_applicable == {case.label for case in sample if _not_for_it(case)}


@pytest.mark.parametrize("loop", [False, True], ids=["answers-hung", "loops"])
def test_with_its_declarations_the_process_fails_nothing(cases: list[Case], loop: bool) -> None:
    sample = _process_sample(cases)
    command = [*EMULATION, "--loop"] if loop else EMULATION
    report = run_cases(ProcessClient(command, TIMEOUT), sample, hang_timeout=1.0)
    grades = Counter(outcome.status for outcome in report.outcomes)
    assert report.failed == []
    assert grades[ACCEPTABLE] == sum(
        1 for case in sample if _is_flagged(case) and not _not_for_it(case)
    )
    assert grades[PASSED] + grades[ACCEPTABLE] + grades[NOT_APPLICABLE] == len(sample)
    assert report.ok


def test_cases_a_typed_api_cannot_express_carry_their_limits(cases: list[Case]) -> None:
    limited = {case.name: case.limits for case in cases if case.limits}
    assert limited["write-int-over-max"] == ("wide-data-integers",)
    assert limited["write-set-holding-list"] == ("container-set-elements",)
    assert {limit for limits in limited.values() for limit in limits} == set(LIMITS)
    assert all(case.op in ("new", "increment", "merge", "diff") for case in cases if case.limits)
