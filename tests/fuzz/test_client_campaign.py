"""Differential campaigns through adapter processes: the worked adapter runs clean, every wrong
adapter and every config-merge mutant wrapped as an adapter is caught, and shrunk."""

import pytest

from swarmconf.fuzz.client import start
from swarmconf.fuzz.configmerge.case import generate_case
from swarmconf.fuzz.configmerge.differential import (
    ClientTask,
    client_schema,
    plan_client,
    replay_with_client,
    run_client_task,
    run_client_tasks,
    shrink_through_client,
)
from swarmconf.fuzz.configmerge.mutants import MUTANTS

from .adapters import EXAMPLE, PARTIAL, WRONG, mutant
from .hashseeds import outputs_under_hash_seeds

COUNTS = ("requests", "skipped", "quirks", "failures")
VIOLATIONS, DETAIL, REQUESTS, SKIPPED, QUIRKS, FAILURES = map(
    client_schema().fieldNames().index,
    ("violations", "detail", *(f"client_{name}" for name in COUNTS)),
)
FIRST_CATCH = {
    "ties": 0,
    "too-old-off-by-one": 0,
    "window-off-by-one": 0,
    "unknown-keys": 0,
    "replay-lowest": 2,
    "no-pruning": 59,
    "delete-winner": 1,
}
"""The scenario (of seed 1, 200 schedules each) where each mutant is first caught: the budget
is every interleaving up to the end of that scenario, as for the mutant run in-process."""


def rows(command: str, interleavings: int, per_scenario: int, timeout: float = 10.0) -> list:
    return [
        row
        for task in plan_client(1, interleavings, per_scenario, command, timeout)
        for row in run_client_task(task)
    ]


def test_the_worked_adapter_runs_clean() -> None:
    found = rows(EXAMPLE, 120, 40)
    assert len(found) == 120
    assert [row[DETAIL] for row in found if row[VIOLATIONS]] == []
    assert sum(row[REQUESTS] for row in found) > 300
    assert sum(row[SKIPPED] + row[FAILURES] for row in found) == 0


def test_the_mutant_table_covers_every_mutant() -> None:
    assert set(FIRST_CATCH) == set(MUTANTS)


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_each_mutant_adapter_is_caught(name: str) -> None:
    task = ClientTask(1, FIRST_CATCH[name], 0, 200, mutant(name))
    failing = [row for row in run_client_task(task) if row[VIOLATIONS]]
    assert failing, f"{name} survived"
    assert "C1" in failing[0][VIOLATIONS].split()
    assert "merge" in failing[0][DETAIL]


def test_a_caught_mutant_shrinks_and_replays() -> None:
    command = mutant("ties")
    task = ClientTask(1, 0, 0, 20, command)
    row = next(row for row in run_client_task(task) if row[VIOLATIONS])
    case = generate_case(1, row[1], row[2])
    scenario, schedule = shrink_through_client((case.scenario, case.schedule), command, 10.0)
    assert len(schedule.events) <= len(case.schedule.events)
    assert scenario.edit_count <= case.scenario.edit_count
    client = start(command)
    try:
        outcome, _ = replay_with_client(scenario, schedule, client)
    finally:
        client.close()
    assert "C1" in outcome.properties


def test_a_crashing_adapter_is_restarted_and_each_crash_is_reported() -> None:
    found = rows(f"{WRONG} crash-after 40", 40, 20)
    assert len(found) == 40
    crashes = [row for row in found if "C2" in row[VIOLATIONS].split()]
    assert crashes and "crashed" in crashes[0][DETAIL]
    assert len(crashes) < len(found)  # the restarted adapter went on answering
    assert sum(row[FAILURES] for row in found) >= 2


def test_a_hung_adapter_is_a_reported_failure_not_a_stuck_campaign() -> None:
    found = rows(f"{WRONG} hang-on-inputs 2", 20, 20, timeout=1.0)
    hung = [row for row in found if "C2" in row[VIOLATIONS].split()]
    assert len(found) == 20
    assert any("merge: client timeout" in row[DETAIL] for row in hung)
    assert sum(row[FAILURES] for row in found) >= 1


def test_skipped_operations_are_counted_not_passed() -> None:
    found = rows(PARTIAL, 20, 20)
    assert sum(row[SKIPPED] for row in found) > 0
    assert [row[DETAIL] for row in found if row[VIOLATIONS]] == []


def test_replay_through_a_client_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    from swarmconf.cli import main

    assert main(["fuzz", "replay", "1:0:3", "--client", EXAMPLE]) == 0
    assert "passes" in capsys.readouterr().out
    assert main(["fuzz", "replay", "1:0:3", "--client", mutant("ties")]) == 1
    assert "C1 merge" in capsys.readouterr().out
    assert main(["fuzz", "replay", "1:0:3", "--client", "/no/such/adapter"]) == 2
    assert "CLIENT_FAILED" in capsys.readouterr().err


def test_a_hang_shrinks_to_a_single_merge(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    from swarmconf.cli import main
    from swarmconf.fuzz.configmerge.case import read_case

    hang = ["--client", f"{WRONG} hang-on-inputs 2", "--client-timeout", "1"]
    output = tmp_path / "small.json"
    assert main(["fuzz", "shrink", "1:0:3", *hang, "--output", str(output)]) == 0
    small = read_case(output)
    assert small.scenario.edit_count == 0 and len(small.schedule.events) <= 2
    assert "--client" in capsys.readouterr().out
    assert main(["fuzz", "replay", str(output), *hang]) == 1
    assert "C2 merge: client timeout" in capsys.readouterr().out


class SkippingClient:
    """A stand-in adapter that skips every request and notes when its batches are collected."""

    quirks: frozenset[str] = frozenset()
    waiting = 0.0

    def __init__(self, events: list[str]) -> None:
        self.events = events

    def send(self, requests: list, hangs: object = None) -> object:
        def collect() -> list:
            self.events.append("collect")
            return [{"skipped": "not here"} for _ in requests]

        return collect


def test_the_next_tasks_interleavings_run_while_the_adapter_answers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from swarmconf.fuzz.configmerge import differential

    events: list[str] = []
    played = differential.play

    def noting(task: ClientTask, library: object) -> object:
        events.append(f"play {task.scenario}")
        return played(task, library)  # type: ignore[arg-type]

    monkeypatch.setattr(differential, "play", noting)
    tasks = plan_client(1, 30, 10, "unused", 10.0)
    client = SkippingClient(events)
    together = list(run_client_tasks(tasks, client))  # type: ignore[arg-type]
    assert events == ["play 0", "play 1", "collect", "play 2", "collect", "collect"]
    alone = [row for task in tasks for row in run_client_task(task, client)]  # type: ignore[arg-type]

    def untimed(row: tuple) -> tuple:
        return (*row[:17], *row[18:-3], *row[-2:])  # without the times

    assert [untimed(row) for row in together] == [untimed(row) for row in alone]
    assert len(together) == 30 and together[0][SKIPPED] > 0


def test_a_tasks_requests_are_in_the_same_order_in_every_process() -> None:
    """The order does not follow the hash seed, so notes and batches replay alike."""
    program = (
        "import hashlib, json\n"
        "from swarmconf.fuzz.configmerge import differential as d\n"
        "played = d.play(d.ClientTask(1, 3, 0, 10, 'unused'))\n"
        "keys = set().union(*(touched for _, _, touched in played.results))\n"
        "ordered = sorted(keys, key=d.sort_key)\n"
        "requests = [d.request_of(played.engine, key) for key in ordered]\n"
        "print(hashlib.sha256(json.dumps(requests).encode()).hexdigest())\n"
    )
    digests = outputs_under_hash_seeds(program, ("1", "2", "3"))
    assert len(digests) == 1
