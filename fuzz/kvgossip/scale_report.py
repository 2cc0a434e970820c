"""`python -m swarmconf.fuzz.kvgossip.scale_report`: the simulation at size, as tables.

`--nodes 100,300,1000 --fit` runs `scale.run` at each size under each profile and fits how
each figure grows with the node count (a power law `a * n^b` and a log law `a + b * ln n`,
by least squares; the closer one is printed). `--nodes 3,8,16,32 --preload 0,100000` is the
real-cluster benchmark's workload (`bench-kv-scale`: writes on n0 until every other node
holds them, bytes per node per write and per node per second idle).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

from .scale import PROFILES, Result, Steady, run, steady

FIGURES: dict[str, Callable[[Result], float]] = {
    "p50 ms": lambda r: r.p50_ms,
    "max ms": lambda r: r.max_ms,
    "rounds": lambda r: r.rounds,
    "quiet ms": lambda r: r.quiet_ms,
    "sessions/write": lambda r: r.sessions,
    "msgs/node/write": lambda r: r.messages_per_write,
    "B/node/write": lambda r: r.bytes_per_write,
    "idle B/node/s": lambda r: r.idle_per_second,
    "wire B/node/write": lambda r: r.wire_per_write,
    "wire idle B/node/s": lambda r: r.wire_idle_per_second,
}


@dataclass(frozen=True)
class Fit:
    """`y ~ a * n^b` (power) or `y ~ a + b * ln n` (log), and its RMS relative error."""

    law: str
    a: float
    b: float
    error: float

    def __str__(self) -> str:
        if self.law == "power":
            return f"{self.a:.3g} * n^{self.b:.2f}"
        return f"{self.a:.3g} + {self.b:.3g} * ln n"


def _least_squares(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float]:
    """(intercept, slope) of the line through (xs, ys)."""
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx
    return my - slope * mx, slope


def _error(ys: Sequence[float], model: Callable[[float], float], ns: Sequence[int]) -> float:
    return math.sqrt(sum(((model(n) - y) / y) ** 2 for n, y in zip(ns, ys, strict=True)) / len(ys))


def fit(ns: Sequence[int], ys: Sequence[float]) -> Fit | None:
    """The closer of the two laws through the points (None: fewer than two, or a zero)."""
    if len(ns) < 2 or min(ys) <= 0:
        return None
    logs = [math.log(n) for n in ns]
    c, b = _least_squares(logs, [math.log(y) for y in ys])
    power = Fit("power", math.exp(c), b, _error(ys, lambda n: math.exp(c) * n**b, ns))
    a, slope = _least_squares(logs, ys)
    log = Fit("log", a, slope, _error(ys, lambda n: a + slope * math.log(n), ns))
    return min(power, log, key=lambda f: f.error)


def table(runs: list[tuple[Result, float]]) -> str:
    """One row per run (and its CPU seconds), the figures as columns, in Markdown."""
    head = ["profile", "nodes", "keys", *FIGURES, "CPU s"]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r, cpu in runs:
        cells = [r.profile, str(r.nodes), f"{r.preload:,}"]
        cells += [_number(figure(r)) for figure in FIGURES.values()]
        rows.append("| " + " | ".join([*cells, f"{cpu:.1f}"]) + " |")
    return "\n".join(rows)


def fits(results: list[Result]) -> str:
    """Each profile's figures fitted against the node count, in Markdown."""
    rows = ["| profile | figure | fit | RMS error |", "|---|---|---|---|"]
    for profile in dict.fromkeys(r.profile for r in results):
        mine = [r for r in results if r.profile == profile and r.preload == results[0].preload]
        ns = [r.nodes for r in mine]
        for name, figure in FIGURES.items():
            found = fit(ns, [figure(r) for r in mine])
            if found is not None:
                rows.append(f"| {profile} | {name} | {found} | {found.error:.0%} |")
    return "\n".join(rows)


def steady_table(runs: list[Steady]) -> str:
    """One row per steady-load run, in Markdown."""
    rows = [
        "| profile | nodes | write every ms | sweeps | sessions | by the writer"
        " | writer's sweeps | B/node/s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for s in runs:
        rows.append(
            f"| {s.profile} | {s.nodes} | {s.interval_ms} | {s.sweeps} | {s.sessions}"
            f" | {s.writer_sessions} | {s.writer_sweeps} | {s.bytes_per_node_per_second:,.0f} |"
        )
    return "\n".join(rows)


def _number(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m swarmconf.fuzz.kvgossip.scale_report")
    parser.add_argument("--nodes", default="100,300,1000")
    parser.add_argument("--preload", default="0", help="keys every node holds, comma-separated")
    parser.add_argument("--profiles", default=",".join(PROFILES))
    parser.add_argument("--writes", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--fit", action="store_true")
    parser.add_argument(
        "--steady", type=int, metavar="MS", help="instead: n0 writes every MS for two periods"
    )
    parser.add_argument("--json", help="also write every result to this file")
    args = parser.parse_args(argv)
    if args.steady:
        loads = [
            steady(int(n), profile, args.steady, seed=args.seed)
            for profile in args.profiles.split(",")
            for n in args.nodes.split(",")
        ]
        print(steady_table(loads))
        return 0
    runs = []
    for profile in args.profiles.split(","):
        for preload in (int(p) for p in args.preload.split(",")):
            for nodes in (int(n) for n in args.nodes.split(",")):
                cpu = time.process_time()
                result = run(nodes, preload, profile, args.seed, args.writes)
                runs.append((result, time.process_time() - cpu))
                print(json.dumps(asdict(result)), file=sys.stderr, flush=True)
    results = [r for r, _ in runs]
    print(table(runs))
    if args.fit:
        print()
        print(fits(results))
    if args.json:
        with open(args.json, "w") as out:
            json.dump([asdict(r) for r in results], out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
