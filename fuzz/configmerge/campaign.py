"""The campaign's pure transform: scenario tasks in, one result row per interleaving out.

Work is split by scenario so that a scenario's schedules share one engine (cached merges); each
task is deterministic, so the Spark job and a plain loop over the same tasks give equal rows.
"""

from __future__ import annotations

import time
from typing import NamedTuple

from ..config import DEFAULT_PER_SCENARIO
from ..heap import collector_paused
from .engine import Engine
from .impl import choose
from .run import Outcome, run_case
from .scenario import Scenario, generate_scenario, with_behaviours
from .schedule import generate_schedule
from .swarm import World, generate_swarm_schedule, run_swarm


class Task(NamedTuple):
    """Schedules [first, first + schedules) of one scenario."""

    campaign_seed: int
    scenario: int
    first: int
    schedules: int
    mutant: str | None
    differential: bool = True
    """Check every distinct operation against the other library (P3)."""
    swarm: tuple[str, ...] | None = None
    """Client-layer clients of these behaviours, repeated over the clients (`swarm`)."""
    client: str | None = None
    """The adapter command a swarm's `client` clients are played through."""
    timeout: float = 10.0


class Row(NamedTuple):
    """One interleaving's result (a Parquet row)."""

    campaign_seed: int
    scenario: int
    schedule: int
    clients: int
    edits: int
    lag: int
    signed: bool
    events: int
    merges: int
    max_width: int
    max_depth: int
    rounds: int
    lost_dropped: int
    lost_overwritten: int
    checked: int
    violations: str
    """Space-separated property names (P1..P6) violated; empty when the case passed."""
    detail: str
    """The violations, one per line."""
    seconds: float
    """Time spent on this scenario's task divided by its schedules (for throughput)."""
    acceptable: str
    """Space-separated quirks that explain findings of this interleaving (`Outcome.acceptable`),
    empty when none."""


def plan(
    campaign_seed: int,
    interleavings: int,
    per_scenario: int = DEFAULT_PER_SCENARIO,
    mutant: str | None = None,
    differential: bool = True,
    swarm: tuple[str, ...] | None = None,
    client: str | None = None,
    timeout: float = 10.0,
) -> list[Task]:
    """Split `interleavings` into scenario tasks of `per_scenario` schedules each."""
    tasks = []
    for scenario, first in enumerate(range(0, interleavings, per_scenario)):
        count = min(per_scenario, interleavings - first)
        tasks.append(
            Task(campaign_seed, scenario, 0, count, mutant, differential, swarm, client, timeout)
        )
    return tasks


def estimated_cost(task: Task) -> int:
    """The task's relative cost: its schedules times its scenario's clients and edit batches
    (measured over 150 scenarios, this correlates 0.8 with the task's CPU time)."""
    scenario = generate_scenario(task.campaign_seed, task.scenario)
    batches = sum(len(client.batches) for client in scenario.clients)
    return task.schedules * len(scenario.clients) * batches


def run_task(task: Task) -> list[Row]:
    """Run one task: every schedule of its scenario, sharing one engine."""
    started = time.perf_counter()
    scenario = generate_scenario(task.campaign_seed, task.scenario)
    if task.swarm:
        scenario = with_behaviours(scenario, task.swarm)
    with collector_paused():
        outcomes = play(task, scenario)
    seconds = (time.perf_counter() - started) / max(1, task.schedules)
    return [
        row_of(task.campaign_seed, task.scenario, scenario, index, outcome, seconds)
        for index, outcome in outcomes
    ]


def play(task: Task, scenario: Scenario) -> list[tuple[int, Outcome]]:
    """Every schedule of the task on one engine, which is freed on return: the collection that
    follows the task then has only the outcomes to traverse, not the engine's caches."""
    if task.swarm:
        world = World(scenario, task.client, task.timeout)
        return [
            (
                index,
                run_swarm(
                    world,
                    generate_swarm_schedule(scenario, task.campaign_seed, task.scenario, index),
                ),
            )
            for index in range(task.first, task.first + task.schedules)
        ]
    engine = Engine(scenario, *choose(task.mutant, task.differential))
    return [
        (
            index,
            run_case(engine, generate_schedule(scenario, task.campaign_seed, task.scenario, index)),
        )
        for index in range(task.first, task.first + task.schedules)
    ]


def row_of(
    seed: int, scenario_index: int, scenario: Scenario, index: int, outcome: Outcome, seconds: float
) -> Row:
    """The result row of one interleaving: what the scenario and its outcome were."""
    return Row(
        seed,
        scenario_index,
        index,
        len(scenario.clients),
        scenario.edit_count,
        scenario.lag,
        scenario.signed,
        outcome.events,
        outcome.merges,
        outcome.max_width,
        outcome.max_depth,
        outcome.rounds,
        outcome.lost_dropped,
        outcome.lost_overwritten,
        outcome.checked,
        " ".join(outcome.properties),
        "\n".join(outcome.violations),
        seconds,
        " ".join(sorted({finding.split(" ", 1)[0] for finding in outcome.acceptable})),
    )


def first_failure(
    campaign_seed: int,
    budget: int,
    per_scenario: int,
    mutant: str | None = None,
    differential: bool = True,
) -> tuple[int, Row | None]:
    """Run tasks in order until a case fails: (interleavings run, the failing row or None)."""
    done = 0
    for task in plan(campaign_seed, budget, per_scenario, mutant, differential):
        for row in run_task(task):
            done += 1
            if row.violations:
                return done, row
    return done, None
