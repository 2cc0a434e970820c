"""The fuzz benchmark: campaign throughput on local[2], parallel efficiency from one to two
standalone workers, and the core's rate by scenario size.

    python -m bench.fuzz.campaign --interleavings 1000000

Prints interleavings per second for the whole Spark campaign on local[2] (wall clock, outputs
included); the rate of one campaign on a standalone cluster (`cluster`) of one and then two
one-core workers, and the parallel efficiency, the two-worker rate over twice the one-worker
rate; for the pure core on one process, the rate for each number of clients (batches drawn)
and each number of edit batches per client (clients drawn); what an interleaving of the
default campaign computes, and its rate against the limit the reference's cost of that work
sets (`limit`); and, with `--against COMMIT`, the config-merge campaign of that commit beside
today's in one process (`against`). The load average is printed at the start and at the end.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from bench.fuzz import against, limit
from swarmconf.fuzz.configmerge.campaign import TWIN_EVERY, Task, twinned, world_of
from swarmconf.fuzz.configmerge.interleaving import play
from swarmconf.fuzz.configmerge.scenario import scenario_for
from swarmconf.fuzz.configmerge.schedule import generate_schedule

SCENARIOS = 8
SCHEDULES = 250
PARTS = ("local", "cluster", "core", "limit")


def core_rate(clients: int | None, batches: int | None) -> float:
    """Interleavings per second of the pure core over SCENARIOS scenarios of that size."""
    started = time.perf_counter()
    for index in range(SCENARIOS):
        scenario = scenario_for(99, index, None, clients, batches)
        world = world_of(Task(99, index, 0, SCHEDULES, None), scenario)
        for number in range(SCHEDULES):
            play(world, generate_schedule(scenario, 99, index, number))
    return SCENARIOS * SCHEDULES / (time.perf_counter() - started)


def step_costs() -> str:
    """What an interleaving costs the core: the steps it takes, the distinct steps the world
    computes (the rest are memoized), and the CPU per computed step, with and without twins."""
    lines = []
    for twins in (False, True):
        steps = computed = interleavings = 0
        started = time.process_time()
        for index in range(SCENARIOS):
            task = Task(99, index * TWIN_EVERY + (0 if twins else 1), 0, SCHEDULES, None)
            assert twinned(task) == twins
            scenario = scenario_for(99, task.scenario)
            world = world_of(task, scenario)
            for number in range(SCHEDULES):
                outcome = play(world, generate_schedule(scenario, 99, task.scenario, number))
                steps += outcome.events + outcome.rounds * len(scenario.clients) * 2
                interleavings += 1
            computed += len(world.edits) + len(world.polls) + len(world.pushes)
        seconds = time.process_time() - started
        lines.append(
            f"  {'with' if twins else 'without'} twins: {steps / interleavings:.1f} steps and "
            f"{computed / interleavings:.1f} computed steps per interleaving, "
            f"{seconds / computed * 1e6:.0f} us of CPU per computed step, "
            f"{interleavings / seconds:.0f} interleavings per CPU second"
        )
    return "\n".join(lines)


def cluster_rate(workers: int, interleavings: int, out: Path) -> float:
    """Interleavings per second of one campaign on a standalone cluster of `workers` workers."""
    from swarmconf.fuzz.cluster import standalone_cluster
    from swarmconf.fuzz.config import Config
    from swarmconf.fuzz.job import run

    folder = out / f"standalone-{workers}"
    folder.mkdir(parents=True, exist_ok=True)
    with standalone_cluster(folder, workers) as url:
        summary = run(Config(interleavings, master=url, out=folder))
    return float(summary["interleavings_per_second"])  # type: ignore[arg-type]


def load() -> str:
    return ", ".join(f"{value:.2f}" for value in os.getloadavg())


def against_line(commit: str, tasks: int, rounds: int) -> str:
    """The campaign of `commit` beside today's: every round's rates and the medians' ratio."""
    then, now = against.rates(commit, tasks, rounds)
    runs = ", ".join(f"{old:.0f}/{new:.0f}" for old, new in zip(then, now, strict=True))
    return (
        f"{commit} beside today's, one process, the first {tasks} tasks of seed 1, {rounds} "
        f"rounds alternated: median {statistics.median(then):.0f} against "
        f"{statistics.median(now):.0f} interleavings per CPU second, today's "
        f"{statistics.median(now) / statistics.median(then):.0%} of it (rounds {commit}/today: "
        f"{runs})"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="fuzz campaign throughput")
    parser.add_argument("--interleavings", type=int, default=1_000_000)
    parser.add_argument(
        "--cluster-interleavings",
        type=int,
        default=200_000,
        help="the campaign timed on one and on two standalone workers (large enough that "
        "starting the executors and their Python workers, some 5 s, is not what is timed)",
    )
    parser.add_argument("--out", type=Path, default=Path("fuzz-bench-out"))
    parser.add_argument(
        "--parts", nargs="+", choices=PARTS, default=list(PARTS), help="what to time"
    )
    parser.add_argument(
        "--sample-tasks",
        type=int,
        default=16,
        help="the first tasks of the default campaign's plan whose work is counted (limit)",
    )
    parser.add_argument(
        "--against", metavar="COMMIT", help="time that commit's config-merge campaign beside"
    )
    parser.add_argument("--against-tasks", type=int, default=8)
    parser.add_argument("--against-rounds", type=int, default=2)
    args = parser.parse_args(argv)
    from swarmconf.fuzz.config import Config
    from swarmconf.fuzz.job import run

    print(f"load average at the start: {load()}")
    local_rate = None
    if "local" in args.parts:
        summary = run(Config(args.interleavings, master="local[2]", out=args.out))
        local_rate = float(summary["interleavings_per_second"])  # type: ignore[arg-type]
        print(
            f"campaign on local[2]: {summary['cases']} interleavings in {summary['seconds']} s "
            f"= {summary['interleavings_per_second']} interleavings/s"
        )
    if "cluster" in args.parts:
        one, two = (cluster_rate(n, args.cluster_interleavings, args.out) for n in (1, 2))
        print(
            f"standalone, {args.cluster_interleavings} interleavings: 1 worker {one:.0f}/s, "
            f"2 workers {two:.0f}/s, parallel efficiency {two / (2 * one):.2f}"
        )
    if "core" in args.parts:
        print("core, one process, what an interleaving costs:")
        print(step_costs())
        print("core, one process, by clients (edit batches per client drawn from 1-3):")
        for clients in (2, 3, 4, 5):
            print(f"  {clients} clients: {core_rate(clients, None):.0f} interleavings/s")
        print("core, one process, by edit batches per client (2-5 clients drawn):")
        for batches in (1, 2, 3, 4):
            print(f"  {batches} batches: {core_rate(None, batches):.0f} interleavings/s")
    if "limit" in args.parts:
        print(limit.report(args.interleavings, args.sample_tasks, local_rate))
    if args.against:
        print(against_line(args.against, args.against_tasks, args.against_rounds))
    print(f"load average at the end: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
