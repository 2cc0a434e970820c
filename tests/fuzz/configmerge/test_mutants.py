"""Each mutant is caught within the budget; the real clients pass the same budget."""

import re

import pytest

from swarmconf.fuzz.configmerge.campaign import Task, first_failure, run_task
from swarmconf.fuzz.configmerge.mutants import MUTANTS, active
from swarmconf.fuzz.configmerge.report import PROPERTIES
from swarmconf.fuzz.kvgossip.mutants import MUTANTS as KV_MUTANTS
from swarmconf.spec import configmerge as spec

BUDGET = 4_000
"""The campaign catches every mutant within it (`replay-lowest`, the last, at 2,082 with seed
1) and the real clients pass it."""
PER_SCENARIO = 200


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_each_mutant_is_caught_within_the_budget(mutant: str) -> None:
    done, row = first_failure(1, BUDGET, PER_SCENARIO, mutant)
    assert row is not None, f"{mutant} survived {BUDGET} interleavings"
    assert done <= BUDGET
    assert row.detail


def test_the_real_clients_pass_the_same_budget() -> None:
    done, row = first_failure(1, BUDGET, PER_SCENARIO)
    assert row is None, row.detail if row else ""
    assert done == BUDGET


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_a_mutant_swaps_spec_functions_only_while_active(mutant: str) -> None:
    swaps = MUTANTS[mutant]
    originals = {(module, attr): getattr(module, attr) for module, attr in swaps}
    assert all(callable(original) for original in originals.values())
    with pytest.raises(RuntimeError), active(mutant):
        for (module, attr), replacement in swaps.items():
            assert getattr(module, attr) is replacement
        raise RuntimeError("the block fails")
    for (module, attr), original in originals.items():
        assert getattr(module, attr) is original


def test_a_mutant_changes_the_spec_merge_it_runs_in() -> None:
    first = spec.ConfigMessage.new(3, lag=1)
    first.data[b"a"] = 1
    base = first.serialize()
    left, right = spec.parse(base, lag=1).increment(), spec.parse(base, lag=1).increment()
    left.data[b"b"] = 2
    right.data[b"c"] = 3
    older = spec.parse(left.serialize(), lag=1).increment()
    inputs = [older.serialize(), right.serialize(), base]

    def merged() -> bytes:
        return spec.merge(inputs, lag=1).serialize()

    intact = merged()
    with active("too-old-off-by-one"):
        assert merged() != intact
    assert merged() == intact


def test_both_designs_name_mutants_in_one_style() -> None:
    names = [*MUTANTS, *KV_MUTANTS]
    assert all(re.fullmatch(r"[a-z]+(-[a-z]+)*", name) for name in names), names
    assert len(set(names)) == len(names)


def test_mutant_rows_name_the_properties_they_break() -> None:
    rows = run_task(Task(1, 0, 0, 20, "unknown-keys"))
    assert any("P6" in row.violations.split() for row in rows)
    assert all(set(row.violations.split()) <= set(PROPERTIES) for row in rows)
