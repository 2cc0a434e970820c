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
from swarmconf.conformance.configmerge.deployed import QUIRKS, DeployedAdapter, Stop
from swarmconf.conformance.configmerge.flags import FLAGS
from swarmconf.conformance.runner import FAILED, PASSED, judge, run_cases
from swarmconf.conformance.vectorfile import Case, load_cases

VECTORS = Path(__file__).resolve().parents[3] / "vectors" / "v1"
EMULATION = [sys.executable, "-m", "swarmconf.conformance.configmerge.deployed"]
TIMEOUT = 10.0
"""Seconds a request may take; a hang costs this much, so the process runs see few of them."""


@pytest.fixture(scope="module")
def cases() -> list[Case]:
    return load_cases(VECTORS)


def _is_flagged(case: Case) -> bool:
    return any(FLAGS[flag].quirk for flag in case.flags)


def _deployed_answer(adapter: DeployedAdapter, case: Case) -> dict[str, Any]:
    """What the emulation does with a case, in the shape of a case's `deployed`."""
    try:
        answer = adapter.handle(case.request)
    except Stop as stop:
        return {"result": stop.result}
    if "reason" in answer:
        return {"result": "invalid", "reason": answer["reason"]}
    return {"result": "valid", "expected": answer["result"]}


def test_the_emulation_does_what_every_case_says(cases: list[Case]) -> None:
    adapter = DeployedAdapter()
    wrong = []
    for case in cases:
        if case.deployed is not None:
            if _deployed_answer(adapter, case) != case.deployed:
                wrong.append(case.label)
        elif judge(case, adapter.handle(case.request)).status != PASSED:
            wrong.append(case.label)
    assert wrong == []


def test_every_quirk_but_x5_has_cases_of_its_own(cases: list[Case]) -> None:
    quirks = Counter(FLAGS[flag].quirk for case in cases for flag in case.flags)
    assert {quirk for quirk in quirks if quirk} == set(QUIRKS)
    results = Counter(case.deployed["result"] for case in cases if case.deployed is not None)
    assert set(results) == {"valid", "invalid", "hang", "abort"}


def test_hello_declares_the_quirks() -> None:
    hello = DeployedAdapter().handle({"op": "hello", "protocol": 1})
    assert hello["quirks"] == list(QUIRKS)
    assert {"name", "version", "ops", "profiles"} <= set(hello)
    assert "merge" in hello["ops"] and "libsession" in hello["profiles"]


class WithoutDeclarations(ProcessClient):
    """The emulation's process with the quirks left out of its `hello`: graded strictly."""

    def start(self) -> Message:
        hello = super().start()
        return {key: value for key, value in hello.items() if key != "quirks"}


def _process_sample(cases: list[Case]) -> list[Case]:
    """Every flagged case, the case after each, and every 25th other one (a process run costs
    seconds per hang); runs of flagged cases stay as long as in the files, which the runner's
    limit on client failures in a row allows."""
    flagged = [_is_flagged(case) for case in cases]
    return [
        case
        for index, case in enumerate(cases)
        if flagged[index] or (index and flagged[index - 1]) or index % 25 == 0
    ]


def test_graded_strictly_the_process_fails_exactly_the_flagged_cases(cases: list[Case]) -> None:
    sample = _process_sample(cases)
    report = run_cases(WithoutDeclarations(EMULATION, TIMEOUT), sample)
    failed = {outcome.case.label for outcome in report.outcomes if outcome.status == FAILED}
    assert failed == {case.label for case in sample if _is_flagged(case)}
    assert len(report.outcomes) == len(sample)
