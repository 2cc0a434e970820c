"""Deliberately wrong clients are caught by the runner, on the cases that show each bug.

The in-process ones are the spec with one rule broken (patched for the test); the crashing
and hanging ones are adapter processes.
"""

from __future__ import annotations

import importlib
import shlex
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from swarmconf.conformance.adapter import builtin_adapter
from swarmconf.conformance.client import InProcessClient, make_client
from swarmconf.conformance.runner import (
    FAILED,
    MAX_CONSECUTIVE_CLIENT_FAILURES,
    PASSED,
    RunReport,
    run_cases,
)
from swarmconf.conformance.vectors import Case, load_cases
from swarmconf.spec.configmerge.reasons import Reason, require

VECTORS = Path(__file__).resolve().parents[2] / "vectors" / "v1"
WRONG = Path(__file__).with_name("wrong_adapter.py")


def spec_module(name: str) -> ModuleType:
    # `swarmconf.spec.configmerge.merge` as an attribute is the function; the module is needed here
    return importlib.import_module(f"swarmconf.spec.configmerge.{name}")


def run_spec(*suites: str) -> tuple[list[Case], RunReport]:
    cases = load_cases(VECTORS, suites)
    return cases, run_cases(InProcessClient(builtin_adapter("spec")), cases)


def failed_names(report: RunReport, suite: str | None = None) -> set[str]:
    return {
        outcome.case.name
        for outcome in report.failed
        if suite is None or outcome.case.suite == suite
    }


def test_ties_broken_the_wrong_way(monkeypatch: pytest.MonkeyPatch) -> None:
    def inverted_rank(message: Any) -> tuple[int, bytes]:
        return (message.seqno, bytes(255 - byte for byte in message.hash))

    monkeypatch.setattr(spec_module("merge"), "rank", inverted_rank)
    cases, report = run_spec("design_examples", "ignore_rules", "merges_exhaustive")
    assert {"m127-absorbs-older", "included-older"} <= failed_names(report)
    assert len(failed_names(report, "merges_exhaustive")) > 100
    assert {outcome.case.op for outcome in report.failed} == {"merge"}
    assert sum(outcome.status == PASSED for outcome in report.outcomes) > len(cases) / 2


def test_unknown_keys_kept_on_merge(monkeypatch: pytest.MonkeyPatch) -> None:
    merge = spec_module("merge")
    merge_messages = merge.merge_messages

    def keeping(ranked: list[Any], lag: int, sign_key: bytes | None) -> Any:
        result = merge_messages(ranked, lag, sign_key)
        result.extra = dict(ranked[0].extra)
        return result

    monkeypatch.setattr(merge, "merge_messages", keeping)
    cases, report = run_spec("merges")
    showing = {
        case.name
        for case in cases
        if case.name.startswith("unknown-keys-") and case.expected and case.expected["merged"]
    }
    assert len(showing) > 10
    assert failed_names(report) == showing


def test_unsorted_sets_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    def any_order(items: list[Any]) -> set[Any]:
        require(items != [], Reason.DATA_EMPTY_SET)
        require(all(isinstance(item, int | bytes) for item in items), Reason.DATA_SET_NOT_SCALAR)
        return set(items)

    monkeypatch.setattr(spec_module("data"), "check_set", any_order)
    cases, report = run_spec("data_validation", "ignore_rules")
    showing = {case.name for case in cases if case.reason == "DATA_SET_UNSORTED"}
    assert {"parse-set-unsorted-ints", "parse-set-duplicate-string"} <= showing
    assert failed_names(report, "data_validation") == showing
    assert "invalid-unsorted-set-in-fork" in failed_names(report, "ignore_rules")


def test_lagged_entries_not_filtered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(spec_module("message"), "in_window", lambda *arguments: True)
    _, report = run_spec("message_parse", "increment")
    parse_failures = failed_names(report, "message_parse")
    for lag in range(1, 10):
        assert {f"lag-{lag}-keeps-window", f"lag-{lag}-boundary-entry-dropped"} <= parse_failures
    assert "lagged-descending" not in parse_failures  # structure checks still work
    assert len(failed_names(report, "increment")) > 100


def process(mode: str, number: int, timeout: float = 10) -> Any:
    return make_client(shlex.join([sys.executable, str(WRONG), mode, str(number)]), timeout)


def test_crash_mid_run_is_reported_and_the_rest_still_run() -> None:
    cases = load_cases(VECTORS, ["design_examples"])
    report = run_cases(process("crash-after", 10), cases)
    crashed = [outcome for outcome in report.outcomes if outcome.status == FAILED]
    assert [outcome.case.tc_id for outcome in crashed] == [10, 20, 30]
    assert all("client crashed: exit status 70" in outcome.message for outcome in crashed)
    assert all("simulated crash" in outcome.message for outcome in crashed)
    assert sum(outcome.status == PASSED for outcome in report.outcomes) == len(cases) - 3
    assert report.client_failures == 3


def test_hang_is_reported_and_the_rest_still_run() -> None:
    cases = load_cases(VECTORS, ["design_examples"])
    report = run_cases(process("hang-on-inputs", 4, timeout=2), cases)
    assert failed_names(report) == {"m126-merge-with-124-and-120b"}
    assert "client timeout: no answer within 2 s" in report.failed[0].message
    assert sum(outcome.status == PASSED for outcome in report.outcomes) == len(cases) - 1


def test_a_client_failing_every_case_is_given_up_on() -> None:
    cases = load_cases(VECTORS, ["design_examples"])
    report = run_cases(process("crash-after", 1), cases)
    messages = [outcome.message for outcome in report.outcomes]
    assert report.client_failures == MAX_CONSECUTIVE_CLIENT_FAILURES
    assert all(message.startswith("client crashed") for message in messages[:10])
    assert set(messages[10:]) == {"not run: the client failed 10 times in a row"}
