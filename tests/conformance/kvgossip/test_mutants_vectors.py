"""Each Go hole, as a mutant of the spec, fails the checked-in vectors."""

import json
from pathlib import Path

import pytest

from swarmconf.conformance.kvgossip import documents
from swarmconf.conformance.kvgossip.runner import check_document
from swarmconf.fuzz.kvgossip.mutants import MUTANTS, active

ROOT = Path(__file__).resolve().parents[3] / "vectors" / "v1"
DOCS = [json.loads(p.read_text()) for p in sorted(ROOT.glob("kvgossip_*_test.json"))]

# The attack case each mutant must get wrong when the vectors are run against it.
CAUGHT_BY = {
    "unbound-chain": "chains#6 signer-not-last-issuee",
    "last-pattern-only": "chains#8 escalation-outside-parent",
    "no-tie-break": "store#5 equal-ts-order-yx",
    "key-blind-tree-hash": "sessions#8 reset-same-value-syncs",
}


def failures_under(name: str) -> list[str]:
    with active(name):
        return [f for document in DOCS for f in check_document(document)]


def test_every_mutant_has_a_catching_test() -> None:
    assert set(CAUGHT_BY) | {"unsigned-timestamp"} == set(MUTANTS)


@pytest.mark.parametrize("name", sorted(CAUGHT_BY))
def test_vectors_catch_mutant(name: str) -> None:
    assert CAUGHT_BY[name] in failures_under(name)


def test_vectors_catch_unsigned_timestamp() -> None:
    # Records signed without ts fail every valid record vector...
    assert "encoding#2 record-canonical" in failures_under("unsigned-timestamp")
    # ...and regenerating under the mutant shows the relay attack succeeding.
    with active("unsigned-timestamp"):
        regenerated = documents(strict=False)["encoding"][0]
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
    assert failures_under(None) == []  # type: ignore[arg-type]
