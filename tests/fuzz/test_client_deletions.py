"""Client campaigns delete what the client answers: a client that deletes the survivor of a
merge loses it (P1), the deployed client's rule (X12) included, where its answer is acceptable."""

import json
import sys

from swarmconf.fuzz.client import start
from swarmconf.fuzz.configmerge.case import generate_case
from swarmconf.fuzz.configmerge.differential import (
    CLIENT_DELETED,
    Checked,
    ClientTask,
    client_deletions,
    client_schema,
    interleavings,
    recording_engine,
    replay_with_client,
    run_client_task,
)
from swarmconf.fuzz.configmerge.scenario import generate_scenario
from swarmconf.fuzz.configmerge.schedule import generate_schedule
from swarmconf.fuzz.configmerge.verdict import AGREED, DISAGREED, Verdict
from swarmconf.spec.configmerge.message import message_hash

from .adapters import EXAMPLE, mutant

VIOLATIONS, DETAIL, QUIRK_COUNTS = map(
    client_schema().fieldNames().index, ("violations", "detail", "client_quirk_counts")
)
EMULATION = f"{sys.executable} -m swarmconf.conformance.configmerge.deployed"
SCENARIO = 1
"""Seed 1's scenario 1 starts with an unparseable blob that sorts before later messages."""


def test_a_client_that_deletes_the_survivor_loses_it() -> None:
    rows = run_client_task(ClientTask(1, SCENARIO, 0, 20, mutant("delete-winner")))
    failing = [row for row in rows if row[VIOLATIONS]]
    assert failing
    for row in failing:
        assert {"C1", "P1"} <= set(row[VIOLATIONS].split())
        assert "differs in obsolete" in row[DETAIL]
        assert f"P1 clients hold different messages after quiescence{CLIENT_DELETED}" in row[DETAIL]


def test_the_same_interleavings_pass_with_a_client_that_deletes_by_the_rule() -> None:
    rows = run_client_task(ClientTask(1, SCENARIO, 0, 20, EXAMPLE))
    assert generate_scenario(1, SCENARIO).blobs
    assert [row[DETAIL] for row in rows if row[VIOLATIONS]] == []


def test_the_deployed_rule_is_an_acceptable_answer_and_a_reported_loss() -> None:
    rows = run_client_task(ClientTask(1, SCENARIO, 0, 20, EMULATION))
    assert json.loads(rows[0][QUIRK_COUNTS]).get("X12", 0) > 0
    properties = {name for row in rows for name in row[VIOLATIONS].split()}
    assert properties == {"P1"}
    assert all(CLIENT_DELETED in row[DETAIL] for row in rows if row[VIOLATIONS])


def test_a_replay_through_the_client_deletes_what_it_answers() -> None:
    case = generate_case(1, SCENARIO, 0)
    client = start(mutant("delete-winner"))
    try:
        outcome, _ = replay_with_client(case.scenario, case.schedule, client)
    finally:
        client.close()
    assert {"C1", "P1"} <= set(outcome.properties)
    assert any(CLIENT_DELETED in violation for violation in outcome.violations)


def test_a_long_chain_of_client_deletions_is_followed_to_its_end() -> None:
    """Case 1:900:69 reaches a new merge whose deletions differ in each of 9 replays."""
    case = generate_case(1, 900, 69)
    client = start(EMULATION)
    try:
        outcome, _ = replay_with_client(case.scenario, case.schedule, client)
    finally:
        client.close()
    assert outcome.properties == ["P1"]


def test_only_a_readable_obsolete_that_differs_is_taken() -> None:
    scenario = generate_scenario(1, SCENARIO)
    engine = recording_engine(scenario)
    interleavings(engine, [(0, generate_schedule(scenario, 1, SCENARIO, 0))])
    key, merged = next((key, merged) for key, merged in engine.merges.items() if merged.obsolete)
    op = ("merge", *key)

    def told(answer: object, status: str = DISAGREED) -> object:
        return client_deletions(engine, Checked({op: Verdict(status)}, 1, 0.0, 0.0, {op: answer}))

    hashes = sorted(message_hash(message).hex() for message in merged.obsolete)
    assert told({"result": {"obsolete": hashes}}) == {}
    for unreadable in ({"reason": "NO_VALID_MESSAGE"}, {"result": []}, {"result": {}}):
        assert told(unreadable) == {}
    for listed in ("00", ["zz"], [1]):
        assert told({"result": {"obsolete": listed}}) == {}
    assert told({"result": {"obsolete": []}}) == {key: frozenset()}
    assert told({"result": {"obsolete": []}}, AGREED) == {}
