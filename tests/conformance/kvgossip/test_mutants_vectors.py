"""Each Go hole, as a mutant of the spec, fails the checked-in vectors: in process, and as a
wrong K/V adapter process through the one runner, as a foreign K/V client would."""

import sys
from pathlib import Path

import pytest

from swarmconf.conformance.adapter import builtin_adapter
from swarmconf.conformance.client import InProcessClient, ProcessClient
from swarmconf.conformance.generate import source
from swarmconf.conformance.kvgossip.suites import build_all
from swarmconf.conformance.runner import FAILED, PASSED, run_cases
from swarmconf.conformance.vectors import load_cases
from swarmconf.fuzz.kvgossip.mutants import MUTANTS, active

ROOT = Path(__file__).resolve().parents[3] / "vectors" / "v1"
CASES = load_cases(ROOT, designs=["kvgossip"])

# The attack case each mutant must get wrong when the vectors are run against it.
CAUGHT_BY = {
    "unbound-chain": "kvgossip_chains#6 signer-not-last-issuee",
    "last-pattern-only": "kvgossip_chains#8 escalation-outside-parent",
    "no-tie-break": "kvgossip_store#5 equal-ts-order-yx",
    "key-blind-tree-hash": "kvgossip_sessions#8 reset-same-value-syncs",
}


def failures_under(name: str | None) -> list[str]:
    with active(name):
        report = run_cases(InProcessClient(builtin_adapter("spec")), CASES)
    return [outcome.case.label for outcome in report.outcomes if outcome.status != PASSED]


def test_every_mutant_has_a_catching_test() -> None:
    assert set(CAUGHT_BY) | {"unsigned-timestamp"} == set(MUTANTS)


@pytest.mark.parametrize("name", sorted(CAUGHT_BY))
def test_vectors_catch_mutant(name: str) -> None:
    assert CAUGHT_BY[name] in failures_under(name)


def test_vectors_catch_unsigned_timestamp() -> None:
    # Records signed without ts fail every valid record vector...
    assert "kvgossip_encoding#2 record-canonical" in failures_under("unsigned-timestamp")
    # ...and regenerating under the mutant shows the relay attack succeeding.
    with active("unsigned-timestamp"):
        regenerated = build_all(strict=False)["encoding"].document(source())
    bumped = [
        case
        for group in regenerated["testGroups"]
        for case in group["tests"]
        if case["name"] == "record-ts-bumped-by-relay"
    ]
    assert bumped[0]["result"] == "valid"


def test_mutants_restore_the_spec() -> None:
    with active("no-tie-break"):
        pass
    assert failures_under(None) == []


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_a_wrong_kv_adapter_fails_the_cases_showing_its_hole(name: str) -> None:
    argv = [sys.executable, "-m", "swarmconf.fuzz.mutant_adapter", name]
    report = run_cases(ProcessClient(argv, 30), CASES)
    failed = {outcome.case.label for outcome in report.outcomes if outcome.status == FAILED}
    shown_by = CAUGHT_BY.get(name, "kvgossip_encoding#2 record-canonical")
    assert shown_by in failed
    assert not report.ok
    # The hole is narrow: most cases still pass.
    assert sum(outcome.status == PASSED for outcome in report.outcomes) > len(CASES) // 2
