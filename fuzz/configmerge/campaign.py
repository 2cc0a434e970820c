"""The campaign's pure transform: scenario tasks in, one result row per interleaving out.

Work is split by scenario so that a scenario's schedules share one world (its clients' steps
memoized); each task is deterministic, so the Spark job and a plain loop over the same tasks
give equal rows.
"""

from __future__ import annotations

import time
from typing import NamedTuple

from ..config import DEFAULT_PER_SCENARIO
from ..heap import collector_paused
from .behaviours import Setting
from .interleaving import Outcome, play
from .scenario import Scenario, scenario_for
from .schedule import generate_schedule
from .world import World


class Task(NamedTuple):
    """Schedules [first, first + schedules) of one scenario."""

    campaign_seed: int
    scenario: int
    first: int
    schedules: int
    mutant: str | None
    differential: bool = True
    """Check every distinct step against the behaviour's twin (P3, see `twinned`)."""
    behaviours: tuple[str, ...] | None = None
    """The clients' behaviours, repeated over the clients (`--swarm`); None: the mix the
    scenario's seed draws (a mutant's clients are all `spec`)."""
    client: str | None = None
    """The adapter command `client` clients are played through."""
    timeout: float = 10.0


class Row(NamedTuple):
    """One interleaving's result (a Parquet row)."""

    campaign_seed: int
    scenario: int
    schedule: int
    mix: str
    """The mix of behaviours its clients had (`behaviours.MIXES`, or `--swarm`'s list)."""
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
    """Space-separated property names (P1..P7, C2) violated; empty when the case passed."""
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
    behaviours: tuple[str, ...] | None = None,
    client: str | None = None,
    timeout: float = 10.0,
) -> list[Task]:
    """Split `interleavings` into scenario tasks of `per_scenario` schedules each."""
    tasks = []
    for scenario, first in enumerate(range(0, interleavings, per_scenario)):
        count = min(per_scenario, interleavings - first)
        tasks.append(
            Task(
                campaign_seed,
                scenario,
                0,
                count,
                mutant,
                differential,
                behaviours,
                client,
                timeout,
            )
        )
    return tasks


def given_behaviours(swarm: tuple[str, ...] | None, client: str | None) -> tuple[str, ...] | None:
    """The behaviours a campaign gives its scenarios: `--swarm`'s; with only `--client`, its
    `client` clients beside a `libsession` one; else None (the seeds draw the mixes)."""
    if swarm is None and client is not None:
        return ("libsession", "client")
    return swarm


def task_scenario(task: Task) -> Scenario:
    """The task's scenario, its clients' behaviours given or drawn (a mutant's: `spec`)."""
    behaviours = ("spec",) if task.mutant and not task.behaviours else task.behaviours
    return scenario_for(task.campaign_seed, task.scenario, behaviours)


def estimated_cost(task: Task) -> int:
    """The task's relative cost: its schedules times its scenario's clients and edit batches."""
    scenario = task_scenario(task)
    batches = sum(len(client.batches) for client in scenario.clients)
    return task.schedules * len(scenario.clients) * batches


TWIN_EVERY = 8
"""P3 runs the twins beside every step of one scenario in TWIN_EVERY (the spec's client costs
about as much as the rest of the interleaving together), and of every scenario of a mutant or
of a client played through an adapter (whose twin judges its answers, C1)."""


def twinned(task: Task) -> bool:
    """Whether the task's clients run beside their twins (P3, C1)."""
    judged = task.mutant is not None or task.client is not None
    return task.differential and (judged or task.scenario % TWIN_EVERY == 0)


def world_of(task: Task, scenario: Scenario) -> World:
    setting = Setting(task.client, task.timeout, task.mutant, twinned(task))
    return World(scenario, setting)


def run_task(task: Task) -> list[Row]:
    """Run one task: every schedule of its scenario, sharing one world."""
    started = time.perf_counter()
    scenario = task_scenario(task)
    with collector_paused():
        outcomes = played(task, scenario)
    seconds = (time.perf_counter() - started) / max(1, task.schedules)
    return [
        row_of(task.campaign_seed, task.scenario, scenario, index, outcome, seconds)
        for index, outcome in outcomes
    ]


def played(task: Task, scenario: Scenario) -> list[tuple[int, Outcome]]:
    """Every schedule of the task on one world, which is freed on return: the collection that
    follows the task then has only the outcomes to traverse, not the world's memos."""
    world = world_of(task, scenario)
    return [
        (index, play(world, generate_schedule(scenario, task.campaign_seed, task.scenario, index)))
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
        scenario.mix,
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
