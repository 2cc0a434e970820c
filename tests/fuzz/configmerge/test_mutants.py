"""Each mutant is caught within the budget; the real merger passes the same budget."""

import re

import pytest

from swarmconf.fuzz.configmerge.campaign import Task, first_failure, run_task
from swarmconf.fuzz.configmerge.engine import Engine
from swarmconf.fuzz.configmerge.impl import choose
from swarmconf.fuzz.configmerge.mutants import MUTANTS, active
from swarmconf.fuzz.configmerge.run import run_case
from swarmconf.fuzz.configmerge.scenario import generate_scenario
from swarmconf.fuzz.configmerge.schedule import generate_schedule
from swarmconf.fuzz.kvgossip.mutants import MUTANTS as KV_MUTANTS
from swarmconf.spec import configmerge as spec

BUDGET = 20_000
PER_SCENARIO = 200


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_each_mutant_is_caught_within_the_budget(mutant: str) -> None:
    done, row = first_failure(1, BUDGET, PER_SCENARIO, mutant)
    assert row is not None, f"{mutant} survived {BUDGET} interleavings"
    assert done <= BUDGET
    assert row.detail


def test_the_real_merger_passes_the_same_budget() -> None:
    done, row = first_failure(1, BUDGET, PER_SCENARIO, differential=False)
    assert row is None, row.detail if row else ""
    assert done == BUDGET


def test_the_reference_agrees_with_the_spec() -> None:
    _, row = first_failure(1, 2_000, PER_SCENARIO)
    assert row is None, row.detail if row else ""


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
    merges = []
    for index in range(4):
        scenario = generate_scenario(3, index)
        engine = Engine(scenario, *choose(differential=False))
        for number in range(20):
            run_case(engine, generate_schedule(scenario, 3, index, number))
        merges += [(sorted(inputs), scenario.lag) for inputs, _ in engine.merges]
    assert len(merges) > 100

    def results() -> list[bytes]:
        return [spec.merge(inputs, lag=lag).serialize() for inputs, lag in merges]

    intact = results()
    with active("window-off-by-one"):
        mutated = results()
    assert sum(a != b for a, b in zip(mutated, intact, strict=True)) > 10
    assert results() == intact


def test_both_designs_name_mutants_in_one_style() -> None:
    names = [*MUTANTS, *KV_MUTANTS]
    assert all(re.fullmatch(r"[a-z]+(-[a-z]+)*", name) for name in names), names
    assert len(set(names)) == len(names)


def test_mutant_rows_name_the_properties_they_break() -> None:
    rows = run_task(Task(1, 0, 0, 20, "unknown-keys"))
    assert any("P6" in row.violations.split() for row in rows)
    assert all(set(row.violations.split()) <= {"P1", "P2", "P3", "P4", "P5", "P6"} for row in rows)
