"""The bounded check's rate: distinct states a second, in one process, for a few bounds.

    python -m bench.fuzz.check --runs 3

Each bound is searched `runs` times, each time on a fresh model (empty caches, as a
`swarmconf check` run starts), and the median is printed as a row of the check page's table:
states, depth, wall-clock time and states a second, and states a second of the process's own CPU
time (what one core gives when the machine is shared), with the load average at the start.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Sequence

from swarmconf.fuzz.configmerge.check import Bound
from swarmconf.fuzz.explore import explore

BOUNDS = (
    # (clients, edits, lag, scripts, max depth)
    (2, 1, 1, "plain", None),
    (2, 2, 1, "plain", None),
    (3, 1, 1, "plain", None),
    (2, 3, 1, "plain", None),
    (2, 2, 2, "plain", None),
    (2, 2, 1, "overlap", None),
    (2, 3, 2, "overlap", None),
    (3, 2, 1, "plain", 8),
)


def measure(
    clients: int, edits: int, lag: int, scripts: str, depth: int | None
) -> tuple[int, int, bool, float, float]:
    """(states, depth, complete, wall seconds, CPU seconds) of one search on a fresh model."""
    model = Bound(clients, edits, lag, scripts=scripts).model()
    wall, cpu = time.perf_counter(), time.process_time()
    result, _ = explore(model, max_depth=depth)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    return result.states, result.depth, result.complete, wall, cpu


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.2f}")
    print("| bound | states | depth | time | states a second | a second of CPU |")
    for clients, edits, lag, scripts, depth in BOUNDS:
        runs = [measure(clients, edits, lag, scripts, depth) for _ in range(args.runs)]
        states, reached, complete = runs[0][:3]
        wall = statistics.median(run[3] for run in runs)
        cpu = statistics.median(run[4] for run in runs)
        bound = f"{clients} \N{MULTIPLICATION SIGN} {edits}, lag {lag}, {scripts}"
        if not complete:
            bound += f", to depth {reached}"
        print(
            f"| {bound} | {states:,} | {reached} | {wall:.2f} s | {states / wall:,.0f} | "
            f"{states / cpu:,.0f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
