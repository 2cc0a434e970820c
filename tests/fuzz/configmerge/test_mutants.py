"""Each mutant is caught within the budget; the real merger passes the same budget."""

import pytest

from swarmconf.fuzz.configmerge.campaign import Task, first_failure, run_task
from swarmconf.fuzz.configmerge.engine import Engine
from swarmconf.fuzz.configmerge.impl import choose
from swarmconf.fuzz.configmerge.mutants import MUTANTS, mutant_merge
from swarmconf.fuzz.configmerge.run import run_case
from swarmconf.fuzz.configmerge.scenario import generate_scenario
from swarmconf.fuzz.configmerge.schedule import generate_schedule
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


def test_the_unmutated_variant_is_the_spec_merge_byte_for_byte() -> None:
    intact = mutant_merge(None)
    compared = 0
    for index in range(6):
        scenario = generate_scenario(3, index)
        engine = Engine(scenario, *choose(differential=False))
        for number in range(30):
            run_case(engine, generate_schedule(scenario, 3, index, number))
        for inputs, signer in engine.merges:
            options = {
                "lag": scenario.lag,
                "verify_key": engine.verify_key,
                "sign_key": engine.sign_key if signer else None,
            }
            ordered = sorted(inputs)
            expected = spec.merge(ordered, **options)
            assert intact(ordered, **options).serialize() == expected.serialize()
            compared += 1
    assert compared > 100


def test_mutant_rows_name_the_properties_they_break() -> None:
    rows = run_task(Task(1, 0, 0, 20, "unknown-keys"))
    assert any("P6" in row.violations.split() for row in rows)
    assert all(set(row.violations.split()) <= {"P1", "P2", "P3", "P4", "P5", "P6"} for row in rows)
