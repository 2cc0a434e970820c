"""Hostile-input campaigns: inputs are mutated real messages, the parsers agree, a client is
judged on every input."""

from swarmconf.fuzz.configmerge.hostile import (
    MUTATIONS,
    HostileTask,
    hostile_inputs,
    plan_hostile,
    run_hostile_task,
    seed_messages,
)
from swarmconf.spec import configmerge as spec

from .adapters import EXAMPLE, WRONG

INPUTS, DISTINCT, OUTCOMES, VIOLATIONS, EXAMPLES, REQUESTS = 2, 3, 4, 5, 6, 7


def test_seeds_are_valid_messages_and_inputs_are_reproducible() -> None:
    seeds = seed_messages(1, 0)
    assert len(seeds) > 5
    for message, key in seeds[:3]:
        assert spec.parse(message, lag=5, verify_key=key).seqno >= 0
    task = HostileTask(1, 0, 300)
    assert hostile_inputs(task) == hostile_inputs(task)
    used = {name for item in hostile_inputs(task) for name in item.mutation.split("+")}
    assert used == set(MUTATIONS)


def test_the_spec_and_the_reference_agree_on_hostile_inputs() -> None:
    import json

    row = run_hostile_task(HostileTask(1, 0, 1500))
    assert row[INPUTS] == 1500 and 0 < row[DISTINCT] <= 1500
    outcomes = json.loads(row[OUTCOMES])
    assert outcomes.get("valid", 0) > 0 and len(outcomes) > 10  # many distinct reason codes
    assert json.loads(row[VIOLATIONS]) == {}, row[EXAMPLES]


def test_a_client_is_judged_on_every_distinct_input() -> None:
    import json

    row = run_hostile_task(HostileTask(1, 1, 300, EXAMPLE))
    assert row[REQUESTS] == row[DISTINCT]
    assert json.loads(row[VIOLATIONS]) == {}, row[EXAMPLES]
    crashing = run_hostile_task(HostileTask(1, 1, 100, f"{WRONG} crash-after 30"))
    assert json.loads(crashing[VIOLATIONS]).get("C2", 0) >= 1


def test_plans_cover_the_inputs() -> None:
    tasks = plan_hostile(1, 120_001, None, 1.0)
    assert sum(task.inputs for task in tasks) == 120_001
