from pathlib import Path

from swarmconf.fuzz.configmerge.campaign import Task, first_failure, plan, run_task
from swarmconf.fuzz.configmerge.case import (
    generate_case,
    parse_case_id,
    read_case,
    replay,
    write_case,
)
from swarmconf.fuzz.configmerge.shrink import shrink
from swarmconf.fuzz.ddmin import ddmin


def test_a_task_is_deterministic() -> None:
    first = [row._replace(seconds=0.0) for row in run_task(Task(9, 2, 0, 40, None))]
    again = [row._replace(seconds=0.0) for row in run_task(Task(9, 2, 0, 40, None))]
    assert first == again
    assert len({row.schedule for row in first}) == 40


def test_runs_exercise_conflicts_and_count_window_losses() -> None:
    rows = [row for task in plan(2, 600, 100, differential=False) for row in run_task(task)]
    assert not any(row.violations for row in rows)
    assert max(row.max_width for row in rows) >= 3
    assert max(row.max_depth for row in rows) >= 2
    assert sum(row.checked for row in rows) > 1000
    assert sum(row.lost_dropped + row.lost_overwritten for row in rows) > 0


def test_plan_splits_the_budget_by_scenario() -> None:
    tasks = plan(1, 1050, 500)
    assert [task.schedules for task in tasks] == [500, 500, 50]
    assert [task.scenario for task in tasks] == [0, 1, 2]


def test_a_counterexample_replays_from_its_json(tmp_path: Path) -> None:
    _, row = first_failure(1, 2000, 200, "ties")
    assert row is not None
    case = generate_case(row.campaign_seed, row.scenario, row.schedule, "ties")
    outcome = replay(case)
    assert outcome.properties == row.violations.split()
    path = tmp_path / "case.json"
    write_case(case, outcome, path)
    assert "swarmconf fuzz replay" in path.read_text()
    assert replay(read_case(path)).violations == outcome.violations
    same = parse_case_id(f"{row.campaign_seed}:{row.scenario}:{row.schedule}", "ties")
    assert same == case


def test_shrinking_keeps_the_failure_and_makes_the_case_smaller() -> None:
    _, row = first_failure(1, 5000, 200, "replay-lowest")
    assert row is not None
    case = generate_case(row.campaign_seed, row.scenario, row.schedule, "replay-lowest")
    scenario, schedule = shrink((case.scenario, case.schedule), "replay-lowest")
    smaller = replay(case.__class__(1, 0, 0, "replay-lowest", scenario, schedule))
    assert row.violations.split()[0] in smaller.properties
    assert len(schedule.events) < len(case.schedule.events)
    assert scenario.edit_count <= case.scenario.edit_count


def test_ddmin_finds_a_minimal_failing_subset() -> None:
    assert ddmin(list(range(20)), lambda kept: {3, 11} <= set(kept)) == [3, 11]
    assert ddmin([1, 2, 3], lambda kept: True) == []


def test_schedules_are_the_ones_campaigns_have_always_drawn() -> None:
    """Case names replay from seeds: a faster generator must draw exactly the same events."""
    import hashlib

    from swarmconf.fuzz.configmerge.scenario import generate_scenario
    from swarmconf.fuzz.configmerge.schedule import generate_schedule

    digest = hashlib.sha256()
    for index in range(3):
        scenario = generate_scenario(1, index)
        for number in range(100):
            digest.update(repr(generate_schedule(scenario, 1, index, number)).encode())
    assert digest.hexdigest()[:16] == "e2d4be655b5b8172"
