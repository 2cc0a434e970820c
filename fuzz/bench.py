"""The fuzz benchmark: campaign throughput on local[2], and the core's rate by scenario size.

    python -m swarmconf.fuzz.bench --interleavings 1000000

Prints interleavings per second for the whole Spark campaign (wall clock, outputs included)
and, for the pure core on one process, the rate for each number of clients (batches drawn) and
each number of edit batches per client (clients drawn).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from .configmerge.engine import Engine
from .configmerge.impl import choose
from .configmerge.run import run_case
from .configmerge.scenario import generate_scenario
from .configmerge.schedule import generate_schedule

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


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="fuzz campaign throughput")
    parser.add_argument("--interleavings", type=int, default=1_000_000)
    parser.add_argument("--out", type=Path, default=Path("fuzz-bench-out"))
    args = parser.parse_args(argv)
    from .config import Config
    from .job import run

    summary = run(Config(args.interleavings, master="local[2]", out=args.out))
    print(
        f"campaign on local[2]: {summary['cases']} interleavings in {summary['seconds']} s = "
        f"{summary['interleavings_per_second']} interleavings/s"
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
