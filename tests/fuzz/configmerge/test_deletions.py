"""What the campaign's swarm deletes: the delete rule (D27) with each edit and merge, unparseable
blobs kept, and the deployed client's rule (X12) as the `delete-winner` mutant, caught."""

import json
from dataclasses import replace
from pathlib import Path

import pytest

from swarmconf.cli import main
from swarmconf.fuzz.configmerge.campaign import first_failure, plan, run_task
from swarmconf.fuzz.configmerge.case import Case, generate_case, replay, write_case
from swarmconf.fuzz.configmerge.engine import Engine, among
from swarmconf.fuzz.configmerge.impl import choose
from swarmconf.fuzz.configmerge.run import Run, run_case
from swarmconf.fuzz.configmerge.scenario import (
    generate_scenario,
    scenario_from_json,
    scenario_to_json,
)
from swarmconf.fuzz.configmerge.schedule import generate_schedule
from swarmconf.fuzz.configmerge.shrink import shrink
from swarmconf.reference import configmerge as reference
from swarmconf.spec import configmerge as spec
from swarmconf.spec.configmerge.reasons import ConfigError, Reason

FUTURE = b"d1:!i1e1:#i2e1:&dee"
"""A message of a later major version: its first key sorts before `#`."""


def blob_scenarios(seed: int, count: int) -> list[int]:
    return [index for index in range(count) if generate_scenario(seed, index).blobs]


def engine_with_future_blob(mutant: str | None = None) -> Engine:
    scenario = generate_scenario(1, 0)
    scenario = replace(scenario, signed=False, blobs=(FUTURE,))
    return Engine(scenario, *choose(mutant, differential=False))


def test_about_three_scenarios_in_ten_hold_blobs_that_no_library_parses() -> None:
    indexes = blob_scenarios(1, 200)
    assert 40 <= len(indexes) <= 80
    blobs = {blob for index in indexes for blob in generate_scenario(1, index).blobs}
    reasons = set()
    for blob in blobs:
        for library in (spec, reference):
            with pytest.raises(ConfigError) as refused:
                library.parse(blob)
            reasons.add(refused.value.reason)
    assert reasons == {Reason.MSG_VERSION_BREAK, Reason.MSG_BAD_DATA}
    scenario = generate_scenario(1, indexes[0])
    assert scenario_from_json(json.loads(json.dumps(scenario_to_json(scenario)))) == scenario
    old = scenario_to_json(generate_scenario(1, indexes[0]))
    del old["blobs"]  # type: ignore[index, union-attr]
    assert scenario_from_json(old) == replace(scenario, blobs=())


def test_a_merge_carries_what_the_delete_rule_says_and_keeps_the_blob() -> None:
    engine = engine_with_future_blob()
    base = engine.base
    edited = engine.edit(base, 0, 0).message
    assert engine.edit(base, 0, 0).obsolete == {base}
    inputs = [base, edited, FUTURE]
    merged = engine.merge(frozenset(inputs), True)
    assert (merged.message, merged.new) == (edited, False)
    survivor = reference.parse(edited, lag=engine.scenario.lag)
    expected = reference.obsolete_after_merge(sorted(inputs), survivor, lag=engine.scenario.lag)
    assert merged.obsolete == among(inputs, expected) == {base}


def test_the_delete_winner_mutant_deletes_the_survivor_behind_an_unparseable_input() -> None:
    engine = engine_with_future_blob("delete-winner")
    base = engine.base
    edited = engine.edit(base, 0, 0).message
    merged = engine.merge(frozenset((base, edited, FUTURE)), True)
    assert (merged.message, merged.new, merged.violations) == (edited, False, ())
    assert merged.obsolete == {edited}


def test_a_merge_that_keeps_its_survivor_still_deletes_what_it_dropped() -> None:
    engine = engine_with_future_blob()
    run = Run(engine)
    run.edit(0)
    edited = run.current[0]
    assert set(run.swarm) == {edited, FUTURE}
    run.swarm[engine.base] = None  # a stale copy of the message edited
    run.held = tuple(run.swarm)
    assert run.sync(0, "full", 0)
    assert set(run.swarm) == {edited, FUTURE}
    assert not run.sync(0, "full", 0)


def test_runs_with_blobs_keep_them_and_converge_to_one_valid_message() -> None:
    index = blob_scenarios(2, 40)[0]
    scenario = generate_scenario(2, index)
    engine = Engine(scenario, *choose(differential=False))
    for number in range(50):
        run = Run(engine)
        for event in generate_schedule(scenario, 2, index, number).events:
            run.apply(event)
        assert run.settle(0)
        run.check_final()
        assert run.outcome.violations == []
        assert set(scenario.blobs) <= set(run.swarm)
        assert engine.remaining(list(run.swarm)) == (run.current[0],)


def test_the_clean_campaign_has_no_violation_with_blobs_present() -> None:
    tasks = plan(3, 3000, 150)
    assert len(blob_scenarios(3, len(tasks))) >= 3
    rows = [row for task in tasks for row in run_task(task)]
    assert [row.detail for row in rows if row.violations] == []


def test_delete_winner_is_caught_shrunk_and_replayed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, row = first_failure(1, 20_000, 200, "delete-winner")
    assert row is not None, "delete-winner survived"
    first = row.violations.split()[0]
    assert first in ("P1", "P4"), row.detail
    case = generate_case(1, row.scenario, row.schedule, "delete-winner")
    assert first in replay(case).properties
    assert replay(replace(case, mutant=None)).violations == []
    scenario, schedule = shrink((case.scenario, case.schedule), "delete-winner")
    small = Case(1, row.scenario, row.schedule, "delete-winner", scenario, schedule, True)
    outcome = replay(small)
    assert first in outcome.properties
    assert len(schedule.events) <= len(case.schedule.events)
    path = tmp_path / "case.json"
    write_case(small, outcome, path)
    assert main(["fuzz", "replay", str(path)]) == 1
    assert first in capsys.readouterr().out


def test_a_scenario_without_blobs_never_puts_the_survivor_behind_an_unparseable_input() -> None:
    index = next(i for i in range(40) if not (s := generate_scenario(1, i)).blobs and not s.signed)
    scenario = generate_scenario(1, index)
    engine = Engine(scenario, *choose("delete-winner", differential=False))
    outcomes = [
        run_case(engine, generate_schedule(scenario, 1, index, number)) for number in range(50)
    ]
    assert [outcome.violations for outcome in outcomes if outcome.violations] == []
