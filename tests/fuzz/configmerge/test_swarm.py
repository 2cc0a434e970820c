"""A swarm of client-layer clients: behaviours, lockstep settling, P1, P5, P7, memoized steps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from swarmconf.fuzz.configmerge import swarm
from swarmconf.fuzz.configmerge.campaign import Task, run_task
from swarmconf.fuzz.configmerge.case import (
    case_from_json,
    case_to_json,
    generate_case,
    parse_case_id,
    replay,
)
from swarmconf.fuzz.configmerge.cli import BEHAVIOUR_NAMES
from swarmconf.fuzz.configmerge.model import UNPARSEABLE_BLOB, check_scenario
from swarmconf.fuzz.configmerge.scenario import Scenario, with_behaviours
from swarmconf.fuzz.configmerge.schedule import Event, Schedule
from swarmconf.fuzz.configmerge.shrink import shrink
from swarmconf.fuzz.configmerge.swarm import (
    BEHAVIOURS,
    SwarmRun,
    World,
    generate_swarm_schedule,
    run_swarm,
)

BOTH_EDIT = Schedule((Event("edit", 0), Event("edit", 1)), 0)
"""Two clients edit the starting message, neither has pushed: the settle's first round pushes
two messages of one seqno, a conflict both resolve in the next."""


def two(first: str, second: str, blob: bool = False) -> Scenario:
    return with_behaviours(check_scenario(2, 1, 1, blob=blob), (first, second))


def test_the_check_command_knows_every_behaviour() -> None:
    assert tuple(BEHAVIOURS) == BEHAVIOUR_NAMES


@pytest.mark.parametrize("first", ["spec", "reference"])
def test_a_spec_profile_client_racing_the_deployed_one_never_settles(first: str) -> None:
    """Rule 8's resolution (`=` empty) and the deployed one (every key in `=`) are two
    messages of one seqno: each lockstep round makes the next conflict."""
    run = SwarmRun(World(two(first, "deployed")))
    for event in BOTH_EDIT.events:
        run.apply(event)
    assert not run.settle(0)
    seqnos = {swarm_info(run, m) for m in run.current_messages()}
    assert len(run.current_messages()) == 2 and len(seqnos) == 1
    outcome = run_swarm(World(two(first, "deployed")), BOTH_EDIT)
    assert outcome.properties == ["P5"] and "lockstep rounds" in outcome.violations[0]


def swarm_info(run: SwarmRun, message: bytes) -> int:
    info = run.world.engine.info(message)
    assert info is not None
    return info.seqno


@pytest.mark.parametrize(
    "pair",
    [("libsession", "deployed"), ("spec", "spec"), ("reference", "spec"), ("deployed", "deployed")],
)
def test_clients_resolving_with_the_same_bytes_settle(pair: tuple[str, str]) -> None:
    outcome = run_swarm(World(two(*pair)), BOTH_EDIT)
    assert outcome.violations == [] and outcome.merges >= 1
    # One round pushes the edits, one the two identical resolutions, one changes nothing
    assert outcome.rounds == 3


def test_a_client_deletes_only_with_a_push() -> None:
    """A poll that makes a conflict resolution deletes nothing; the push names what goes."""
    run = SwarmRun(World(two("libsession", "libsession")))
    for event in (Event("edit", 0), Event("push", 0), Event("edit", 1), Event("push", 1)):
        run.apply(event)
    held = set(run.held())
    assert len(held) == 2
    run.apply(Event("sync", 0))
    assert set(run.held()) == held and run.clients[0].state == "dirty"
    assert run.push(0)
    assert len(run.held()) == 1 and run.clients[0].state == "clean"


def test_the_deployed_client_deletes_a_later_version_as_x12_says() -> None:
    """Its current hash names the unparseable input before the survivor; its next push after
    an edit deletes it: a P7 finding X12 explains, acceptable, never a failure."""
    scenario = with_behaviours(check_scenario(2, 2, 1, future=False, blob=True), ("deployed",))
    events = (
        Event("edit", 1),
        Event("push", 1),
        Event("sync", 0),
        Event("edit", 0),
        Event("push", 0),
    )
    outcome = run_swarm(World(scenario), Schedule(events, 0))
    assert outcome.violations == []
    assert [finding.split(" ", 2)[:2] for finding in outcome.acceptable] == [["X12", "P7"]]
    # The same steps by swarmconf's clients keep the later version
    spec = with_behaviours(scenario, ("libsession",))
    kept = SwarmRun(World(spec))
    for event in events:
        kept.apply(event)
    assert UNPARSEABLE_BLOB in kept.held() and kept.outcome.acceptable == []


def test_a_swarmconf_client_deleting_what_it_cannot_parse_fails_p7(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """P7 is a failure for every behaviour no quirk declares."""
    monkeypatch.setattr(swarm, "DECLARED", {})
    scenario = with_behaviours(check_scenario(2, 2, 1, future=False, blob=True), ("deployed",))
    events = (Event("edit", 1), Event("push", 1), Event("sync", 0), Event("edit", 0))
    outcome = run_swarm(World(scenario), Schedule((*events, Event("push", 0)), 0))
    assert outcome.properties == ["P7"] and outcome.acceptable == []


def test_steps_memoized_across_schedules_are_those_of_a_fresh_swarm() -> None:
    """One world serves a task's schedules: its shared client objects and memoized steps give
    every schedule the outcome and final client states of a world made for it alone."""
    for index in (1, 2, 5):
        case = generate_case(7, index, 0, swarm=("libsession", "deployed", "reference"))
        shared = World(case.scenario)
        for number in range(40):
            schedule = generate_swarm_schedule(case.scenario, 7, index, number)
            memoized = SwarmRun(shared)
            fresh = SwarmRun(World(case.scenario))
            for run in (memoized, fresh):
                for event in schedule.events:
                    run.apply(event)
                run.settle_and_judge(schedule.rotation)
            assert memoized.clients == fresh.clients
            assert memoized.outcome == fresh.outcome
            assert memoized.held() == fresh.held()


def test_swarm_cases_round_trip_and_replay(tmp_path: Path) -> None:
    case = parse_case_id("3:1:4", swarm=("spec", "deployed"))
    assert case.scenario.swarm is not None
    assert set(case.scenario.swarm) == {"spec", "deployed"}
    assert {event.kind for event in case.schedule.events} >= {"edit", "push"}
    outcome = replay(case)
    obj = case_to_json(case, outcome, tmp_path / "case.json")
    assert obj["system"] == "swarm" and "--swarm spec,deployed" in str(obj["regenerate"])
    again = case_from_json(json.loads(json.dumps(obj)))
    assert again == case and replay(again) == outcome
    obj["trace"]["scenario"]["clients"][0]["behaviour"] = "nobody"  # type: ignore[index]
    with pytest.raises(ValueError, match="no behaviour 'nobody'"):
        case_from_json(obj)


def test_a_failing_swarm_case_shrinks_to_the_race() -> None:
    """The first failing case of a spec and deployed swarm shrinks to two clients that race."""
    for index in range(20):
        case = generate_case(1, index, 0, swarm=("spec", "deployed"))
        if "P5" in replay(case).properties:
            break
    else:
        pytest.fail("no P5 among 20 scenarios")
    scenario, schedule = shrink((case.scenario, case.schedule))
    assert len(scenario.clients) == 2 and set(scenario.swarm or ()) == {"spec", "deployed"}
    assert len(schedule.events) <= len(case.schedule.events)
    assert "P5" in replay(case.__class__(1, index, 0, None, scenario, schedule)).properties


def test_swarm_tasks_give_rows_with_the_quirks_that_explain_findings() -> None:
    rows = run_task(Task(1, 1, 0, 60, None, True, ("libsession", "deployed")))
    assert len(rows) == 60 and not any(row.violations for row in rows)
    racing = run_task(Task(1, 1, 0, 60, None, True, ("spec", "deployed")))
    assert any("P5" in row.violations.split() for row in racing)
    assert {row.acceptable for row in rows + racing} <= {"", "X12"}
