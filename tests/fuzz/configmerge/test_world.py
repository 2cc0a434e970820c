"""The world's clients: behaviours, steps judged where they happen, lockstep settling, the
properties of every interleaving, memoized steps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from swarmconf.fuzz.configmerge import behaviours
from swarmconf.fuzz.configmerge.behaviours import BEHAVIOURS, MIXES, Behaviour, Setting
from swarmconf.fuzz.configmerge.campaign import Task, run_task
from swarmconf.fuzz.configmerge.case import (
    case_from_json,
    case_to_json,
    generate_case,
    parse_case_id,
    replay,
)
from swarmconf.fuzz.configmerge.interleaving import Interleaving, play
from swarmconf.fuzz.configmerge.model import UNPARSEABLE_BLOB, check_scenario
from swarmconf.fuzz.configmerge.scenario import Scenario, draw_mix, with_behaviours
from swarmconf.fuzz.configmerge.schedule import Event, Schedule, generate_schedule
from swarmconf.fuzz.configmerge.shrink import shrink
from swarmconf.fuzz.configmerge.world import World

BOTH_EDIT = Schedule((Event("edit", 0), Event("edit", 1)), 0)
"""Two clients edit the starting message, neither has pushed: the settle's first round pushes
two messages of one seqno, a conflict both resolve in the next."""


def two(first: str, second: str, blob: bool = False) -> Scenario:
    return with_behaviours(check_scenario(2, 1, 1, blob=blob), (first, second))


def run_of(scenario: Scenario, setting: Setting | None = None) -> Interleaving:
    return Interleaving(World(scenario, setting or Setting()))


def test_every_mix_names_registered_behaviours_and_seeds_draw_each_that_settles() -> None:
    for mix in MIXES.values():
        assert mix.behaviours and set(mix.behaviours) <= set(BEHAVIOURS), mix.name
    drawn = {draw_mix(1, index).name for index in range(400)}
    assert drawn == {mix.name for mix in MIXES.values() if mix.settles}
    assert not MIXES["spec+deployed"].settles


@pytest.mark.parametrize("first", ["spec", "reference"])
def test_a_spec_profile_client_racing_the_deployed_one_never_settles(first: str) -> None:
    """Rule 8's resolution (`=` empty) and the deployed one (every key in `=`) are two
    messages of one seqno: each lockstep round makes the next conflict."""
    run = run_of(two(first, "deployed"))
    for event in BOTH_EDIT.events:
        run.apply(event)
    assert not run.settle(0)
    seqnos = {swarm_info(run, m) for m in run.current_messages()}
    assert len(run.current_messages()) == 2 and len(seqnos) == 1
    outcome = play(World(two(first, "deployed")), BOTH_EDIT)
    assert outcome.properties == ["P5"] and "lockstep rounds" in outcome.violations[0]


def swarm_info(run: Interleaving, message: bytes) -> int:
    info = run.world.messages.info(message)
    assert info is not None
    return info.seqno


@pytest.mark.parametrize(
    "pair",
    [("libsession", "deployed"), ("spec", "spec"), ("reference", "spec"), ("deployed", "deployed")],
)
def test_clients_resolving_with_the_same_bytes_settle(pair: tuple[str, str]) -> None:
    outcome = play(World(two(*pair)), BOTH_EDIT)
    assert outcome.violations == [] and outcome.merges >= 1
    # One round pushes the edits, one the two identical resolutions, one changes nothing
    assert outcome.rounds == 3


def test_a_client_deletes_only_with_a_push() -> None:
    """A poll that makes a conflict resolution deletes nothing; the push names what goes."""
    run = run_of(two("libsession", "libsession"))
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
    outcome = play(World(scenario), Schedule(events, 0))
    assert outcome.violations == []
    assert ["X12", "P7"] in [finding.split(" ", 2)[:2] for finding in outcome.acceptable]
    # The same steps by swarmconf's clients keep the later version
    spec = with_behaviours(scenario, ("libsession",))
    kept = run_of(spec)
    for event in events:
        kept.apply(event)
    assert UNPARSEABLE_BLOB in kept.held() and kept.outcome.acceptable == []


def test_a_behaviour_deleting_what_it_cannot_parse_fails_p7_unless_it_declares_x12(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The deployed client's state machine registered without its quirks: the same deletion
    is a P7 failure, and so is its order-dependent current hash (P2)."""
    deployed = BEHAVIOURS["deployed"]
    undeclared = Behaviour("deployed", deployed.description, deployed.profile, deployed.make)
    monkeypatch.setitem(behaviours.BEHAVIOURS, "deployed", undeclared)
    scenario = with_behaviours(check_scenario(2, 2, 1, future=False, blob=True), ("deployed",))
    events = (Event("edit", 1), Event("push", 1), Event("sync", 0), Event("edit", 0))
    outcome = play(World(scenario), Schedule((*events, Event("push", 0)), 0))
    assert "P7" in outcome.properties and outcome.acceptable == []


def test_steps_memoized_across_schedules_are_those_of_a_fresh_swarm() -> None:
    """One world serves a task's schedules: its shared client objects and memoized steps give
    every schedule the outcome and final client states of a world made for it alone."""
    for index in (1, 2, 5):
        case = generate_case(7, index, 0, behaviours=("libsession", "deployed", "reference"))
        shared = World(case.scenario)
        for number in range(40):
            schedule = generate_schedule(case.scenario, 7, index, number)
            memoized = Interleaving(shared)
            fresh = Interleaving(World(case.scenario))
            for run in (memoized, fresh):
                for event in schedule.events:
                    run.apply(event)
                run.settle_and_judge(schedule.rotation)
            assert memoized.clients == fresh.clients
            assert memoized.outcome == fresh.outcome
            assert memoized.held() == fresh.held()
            assert memoized.ledger.knowledge.keys() == fresh.ledger.knowledge.keys()


def test_swarm_cases_round_trip_and_replay(tmp_path: Path) -> None:
    case = parse_case_id("3:1:4", swarm=("spec", "deployed"))
    assert set(case.scenario.behaviours) == {"spec", "deployed"}
    assert {event.kind for event in case.schedule.events} >= {"edit", "push"}
    outcome = replay(case)
    obj = case_to_json(case, outcome, tmp_path / "case.json")
    assert obj["system"] == "config" and "--behaviours spec,deployed" in str(obj["regenerate"])
    again = case_from_json(json.loads(json.dumps(obj)))
    assert again == case and replay(again) == outcome
    obj["trace"]["scenario"]["clients"][0]["behaviour"] = "nobody"  # type: ignore[index]
    with pytest.raises(ValueError, match="no behaviour 'nobody'"):
        case_from_json(obj)


def test_a_failing_swarm_case_shrinks_to_the_race() -> None:
    """The first failing case of a spec and deployed swarm shrinks to two clients that race."""
    for index in range(20):
        case = generate_case(1, index, 0, behaviours=("spec", "deployed"))
        if "P5" in replay(case).properties:
            break
    else:
        pytest.fail("no P5 among 20 scenarios")
    scenario, schedule = shrink((case.scenario, case.schedule))
    assert len(scenario.clients) == 2 and set(scenario.behaviours) == {"spec", "deployed"}
    assert len(schedule.events) <= len(case.schedule.events)
    assert "P5" in replay(case.__class__(1, index, 0, None, scenario, schedule)).properties


def test_tasks_give_rows_with_their_mix_and_the_quirks_that_explain_findings() -> None:
    rows = run_task(Task(1, 1, 0, 60, None, True, ("libsession", "deployed")))
    assert len(rows) == 60 and not any(row.violations for row in rows)
    assert {row.mix for row in rows} == {"libsession,deployed"}
    racing = run_task(Task(1, 1, 0, 60, None, True, ("spec", "deployed")))
    assert any("P5" in row.violations.split() for row in racing)
    assert {quirk for row in rows + racing for quirk in row.acceptable.split()} <= {"X12", "X17"}
    drawn = run_task(Task(1, 2, 0, 5, None))
    assert {row.mix for row in drawn} == {draw_mix(1, 2).name}


def test_a_message_layer_case_file_is_refused_in_one_line_that_says_why() -> None:
    obj = {
        "campaign_seed": 1,
        "scenario": 2,
        "schedule": 3,
        "trace": {"scenario": {"clients": [{"signer": True, "batches": []}]}, "schedule": {}},
    }
    with pytest.raises(ValueError, match=r"message-layer model.*--case 1:2:3"):
        case_from_json(obj)


LIBSESSION_RACE = (Event("edit", 0), Event("push", 0), Event("edit", 1), Event("push", 1))
"""Client 0 removes an element of `s`, client 1 adds its own, both on the base: a conflict."""


def test_an_every_key_resolution_reverting_an_update_is_x17s_not_p4s() -> None:
    """A libsession client's resolution lists every key in `=` (D30, X17): merged later with
    an update it did not see and that ranks below it, it writes its old value back. The oracle
    counts the reverted write as X17's; the same race between spec-profile clients loses
    nothing, and an oracle that forgot the resolution's writes would call it P4."""
    found: dict[str, list[str]] = {}
    for profile in ("libsession", "reference"):
        acceptable = []
        for index in range(30):
            case = generate_case(1, index, 0, behaviours=(profile,))
            for number in range(30):
                schedule = generate_schedule(case.scenario, 1, index, number)
                outcome = play(World(case.scenario), schedule)
                assert "P4" not in outcome.properties, outcome.violations
                acceptable += [f for f in outcome.acceptable if f.startswith("X17 P4")]
        found[profile] = acceptable
    assert found["libsession"] and not found["reference"]


def test_a_twin_that_disagrees_is_p3_and_a_client_that_raises_is_reported() -> None:
    """A mutant's spec beside the intact spec: its first differing step is P3; a mutant whose
    own message no longer parses raises, which is a finding, not a crash."""
    scenario = with_behaviours(check_scenario(2, 1, 1), ("spec",))
    outcome = play(World(scenario, Setting(mutant="window-off-by-one")), BOTH_EDIT)
    assert "P3" in outcome.properties
    clean = play(World(scenario, Setting()), BOTH_EDIT)
    assert clean.violations == []


def test_an_offline_client_neither_polls_nor_pushes_until_it_is_back() -> None:
    run = run_of(two("reference", "reference"))
    for event in (Event("offline", 0), Event("edit", 0), Event("push", 0), Event("sync", 0)):
        run.apply(event)
    assert run.clients[0].state == "dirty" and len(run.held()) == 1
    run.apply(Event("online", 0))
    assert run.push(0) and len(run.held()) == 1 and run.clients[0].state == "clean"


def test_a_later_versions_client_writes_an_unknown_key_that_merges_drop() -> None:
    """A `future` client's edits carry a top-level key this version does not know (D9): its
    own pushes keep it, a resolution drops it, and P6 holds."""
    scenario = with_behaviours(check_scenario(2, 1, 1, future=True), ("reference",))
    run = run_of(scenario)
    for event in BOTH_EDIT.events:
        run.apply(event)
    assert b"_future" in run.clients[1].message and b"_future" not in run.clients[0].message
    assert run.settle(0)
    run.check_final()
    assert run.outcome.violations == [] and b"_future" not in run.held()[0]
