"""The checked-in K/V Gossip vectors: one file per suite, passed by the spec through the one
runner, and a wrong expectation noticed. (Schemas, ids, flags and byte-for-byte regeneration
are checked for both designs' files in tests/conformance/test_vectors.py.)"""

import copy
from pathlib import Path

from swarmconf.conformance.adapter import builtin_adapter
from swarmconf.conformance.client import InProcessClient
from swarmconf.conformance.generate import source
from swarmconf.conformance.kvgossip.ops import OPS
from swarmconf.conformance.kvgossip.runner import RUNNERS
from swarmconf.conformance.kvgossip.suites import NAMES, build_all
from swarmconf.conformance.report import failure_lines
from swarmconf.conformance.runner import FAILED, PASSED, Outcome, run_cases
from swarmconf.conformance.vectors import (
    Case,
    cases_of,
    dump,
    load_cases,
    read_document,
    vector_file_name,
)

ROOT = Path(__file__).resolve().parents[3] / "vectors" / "v1"


def failures(cases: list[Case]) -> list[str]:
    report = run_cases(InProcessClient(builtin_adapter("spec")), cases)
    return [outcome.case.label for outcome in report.outcomes if outcome.status != PASSED]


def test_the_protocol_lists_exactly_the_operations_the_spec_answers() -> None:
    assert set(RUNNERS) == set(OPS)


def test_every_suite_has_a_file() -> None:
    names = sorted(path.name for path in ROOT.glob("kvgossip_*_test.json"))
    assert names == sorted(vector_file_name(f"kvgossip_{suite}") for suite in NAMES)


def test_spec_passes_every_vector() -> None:
    cases = load_cases(ROOT, designs=["kvgossip"])
    assert len(cases) >= 200
    assert {case.op for case in cases} >= {"kv_decode", "kv_authorize", "kv_scripted"}
    assert failures(cases) == []


def test_runner_notices_a_wrong_expectation() -> None:
    document = read_document(ROOT / "kvgossip_treehash_test.json")
    document["testGroups"][0]["tests"][0]["expected"]["treeHash"] = "00" * 32
    cases = list(cases_of(document, "kvgossip_treehash"))
    assert failures(cases) == ["kvgossip_treehash#1 empty"]


def test_runner_compares_the_state_a_refusal_leaves() -> None:
    cases = load_cases(ROOT, ["kvgossip_sessions"])
    refused = [case for case in cases if case.result == "invalid" and case.expected]
    assert refused, "a scripted session refused with its replies"
    changed = [
        Case(**{**vars(case), "expected": {**(case.expected or {}), "done": "no"}})
        for case in refused[:1]
    ]
    assert failures(changed) == [refused[0].label]


def test_generation_is_deterministic_in_process() -> None:
    first = {name: dump(suite.document(source())) for name, suite in build_all().items()}
    assert first == {name: dump(suite.document(source())) for name, suite in build_all().items()}


def test_a_failure_report_points_at_the_differing_element_of_a_kv_result() -> None:
    (case,) = [c for c in load_cases(ROOT, ["kvgossip_store"]) if c.tc_id == 5]
    assert case.expected is not None
    wrong = copy.deepcopy(case.expected)
    wrong["outcomes"][-1]["outcome"] = "stale"
    lines = failure_lines(Outcome(case, FAILED, "wrong outcomes", {"result": wrong}))
    changed = [
        line.strip()
        for line in lines
        if line.startswith(("  -", "  +")) and not line.startswith(("  ---", "  +++"))
    ]
    assert changed == ['-    "outcome": "accepted",', '+    "outcome": "stale",']
