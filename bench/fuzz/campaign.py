"""The fuzz benchmark: campaign throughput on local[2], parallel efficiency from one to two
standalone workers, and the core's rate by scenario size.

    python -m bench.fuzz.campaign --interleavings 1000000

Prints interleavings per second for the whole Spark campaign on local[2] (wall clock, outputs
included); the rate of one campaign on a standalone cluster (`cluster`) of one and then two
one-core workers, and the parallel efficiency, the two-worker rate over twice the one-worker
rate; and, for the pure core on one process, the rate for each number of clients (batches
drawn) and each number of edit batches per client (clients drawn).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from swarmconf.fuzz.configmerge.engine import Engine
from swarmconf.fuzz.configmerge.impl import choose
from swarmconf.fuzz.configmerge.run import run_case
from swarmconf.fuzz.configmerge.scenario import generate_scenario
from swarmconf.fuzz.configmerge.schedule import generate_schedule

SCENARIOS = 8
SCHEDULES = 250


def core_rate(clients: int | None, batches: int | None) -> float:
    """Interleavings per second of the pure core over SCENARIOS scenarios of that size."""
    started = time.perf_counter()
    for index in range(SCENARIOS):
        scenario = generate_scenario(99, index, clients, batches)
        engine = Engine(scenario, *choose())
        for number in range(SCHEDULES):
            run_case(engine, generate_schedule(scenario, 99, index, number))
    return SCENARIOS * SCHEDULES / (time.perf_counter() - started)


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
    args = parser.parse_args(argv)
    from swarmconf.fuzz.config import Config
    from swarmconf.fuzz.job import run

    summary = run(Config(args.interleavings, master="local[2]", out=args.out))
    print(
        f"campaign on local[2]: {summary['cases']} interleavings in {summary['seconds']} s = "
        f"{summary['interleavings_per_second']} interleavings/s"
    )
    one, two = (cluster_rate(n, args.cluster_interleavings, args.out) for n in (1, 2))
    print(
        f"standalone, {args.cluster_interleavings} interleavings: 1 worker {one:.0f}/s, "
        f"2 workers {two:.0f}/s, parallel efficiency {two / (2 * one):.2f}"
    )
    print("core, one process, by clients (edit batches per client drawn from 1-3):")
    for clients in (2, 3, 4, 5):
        print(f"  {clients} clients: {core_rate(clients, None):.0f} interleavings/s")
    print("core, one process, by edit batches per client (2-5 clients drawn):")
    for batches in (1, 2, 3, 4):
        print(f"  {batches} batches: {core_rate(None, batches):.0f} interleavings/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
