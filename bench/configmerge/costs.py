"""Per-merge costs of the reference: CPU time and Python calls per merge, and where they go.

For each shape `make bench` times (2- and 5-way merges of messages with about 1, 10 and 70 KB of
data, the result serialized), prints the median CPU time of the running thread per merge over
batches without a profiler, then runs the same merges under cProfile and prints the function
calls per merge; with `--top N`, the N functions with the most own time, with their calls per
merge. Call counts do not depend on the machine's load, unlike times.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import time
from collections.abc import Callable

import swarmconf.reference.configmerge as ref
from bench.configmerge.run import LAG, SIZES, build


def cpu_us_per_call(call: Callable[[], object], repeat: int, batches: int = 7) -> float:
    """The median over `batches` of the thread CPU time per call, in µs."""
    call()
    times = []
    for _ in range(batches):
        start = time.thread_time_ns()
        for _ in range(repeat):
            call()
        times.append((time.thread_time_ns() - start) / repeat)
    return statistics.median(times) / 1e3


def profile(call: Callable[[], object], repeat: int) -> pstats.Stats:
    profiler = cProfile.Profile(time.thread_time)  # CPU time, as the bench measures
    profiler.enable()
    for _ in range(repeat):
        call()
    profiler.disable()
    return pstats.Stats(profiler)


def top_functions(stats: pstats.Stats, repeat: int, count: int) -> list[str]:
    """The `count` functions with the most own time: calls and own µs per merge."""
    rows = sorted(stats.stats.items(), key=lambda item: -item[1][2])[:count]  # type: ignore[attr-defined]
    lines = []
    for (path, line, name), (_, calls, own, _, _) in rows:
        where = f"{path.rsplit('/', 1)[-1]}:{line}({name})"
        lines.append(f"    {calls / repeat:7.1f} calls {own / repeat * 1e6:8.2f} µs  {where}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=200, help="merges per batch at 1 KB")
    parser.add_argument("--top", type=int, default=0, help="also list the N costliest functions")
    args = parser.parse_args()
    for label, size in SIZES.items():
        messages = build(size)
        repeat = max(args.repeat * 1000 // size, 20)
        for ways in (2, 5):
            forks = [messages[f"fork{i}"] for i in range(ways)]

            def merge(forks: list[bytes] = forks) -> bytes:
                return ref.merge(forks, lag=LAG).serialize()

            cpu = cpu_us_per_call(merge, repeat)
            stats = profile(merge, repeat)
            calls = stats.total_calls / repeat  # type: ignore[attr-defined]
            print(f"merge {ways}-way {label}: {cpu:8.1f} µs CPU, {calls:6.0f} calls per merge")
            for line in top_functions(stats, repeat, args.top):
                print(line)


if __name__ == "__main__":
    main()
