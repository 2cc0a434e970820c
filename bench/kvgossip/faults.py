"""Fault schedules on real nodes in network namespaces (`make bench-kv-faults`, as root).

Runs `--schedules` schedules of about `--length` seconds of faults each, `--per-cluster` of
them one after another on each fresh cluster of `--nodes` nodes, and writes a Markdown report
(`--out`/report.md): the tallies, the findings (lost acknowledged writes, forged or revoked
values readable, diverging hashes) and each schedule's timeline of faults and convergence.
`--partition SECONDS` instead runs one majority/minority partition of that length per schedule,
with writers on both sides, and reports how long after the heal the nodes agreed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from bench.kvgossip.testbed.fault_run import RunSettings, ScheduleResult, run
from bench.kvgossip.testbed.fault_schedule import Fault
from swarmconf.spec.kvgossip.fixtures import ROOT


def lost(result: ScheduleResult) -> int:
    return sum(f.startswith("acknowledged write") for f in result.findings)


def progress(result: ScheduleResult) -> None:
    converged = "never" if result.converged is None else f"{result.converged:.2f} s"
    print(
        f"schedule {result.index}: {len(result.faults)} faults, {result.acknowledged} writes"
        f" acknowledged, converged {converged} after the heal, {len(result.findings)} findings",
        flush=True,
    )


def report(args: argparse.Namespace, results: list[ScheduleResult], took: float) -> str:
    """The Markdown report."""
    kinds = Counter(applied.fault.kind for r in results for applied in r.faults)
    times = [r.converged for r in results if r.converged is not None]
    findings = [(r.index, f) for r in results for f in r.findings]
    lines = [
        "# K/V Gossip under real faults",
        "",
        f"`{' '.join(['python -m bench.kvgossip.faults', *sys.argv[1:]])}`, "
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {took / 60:.1f} min, "
        f"load average {os.getloadavg()[0]:.1f} at the end, {os.cpu_count()} cores.",
        "",
        "| | |",
        "|---|---:|",
        f"| nodes per cluster | {args.nodes} |",
        f"| schedules | {len(results)} |",
        *(f"| faults: {kind} | {count} |" for kind, count in sorted(kinds.items())),
        f"| writes acknowledged | {sum(r.acknowledged for r in results):,} |",
        f"| writes unanswered (node paused, crashed or cut off) | "
        f"{sum(r.unanswered for r in results):,} |",
        f"| forged writes refused | {sum(r.forged_refused for r in results):,} |",
        f"| reads checked | {sum(r.reads for r in results):,} |",
        f"| **acknowledged writes lost** | **{sum(lost(r) for r in results)}** |",
        f"| other findings | {len(findings) - sum(lost(r) for r in results)} |",
        f"| schedules converged within {args.bound:.0f} s of the heal | {len(times)} of "
        f"{len(results)} |",
    ]
    if times:
        lines.append(
            f"| convergence after the heal: median, max | {statistics.median(times):.2f} s, "
            f"{max(times):.2f} s |"
        )
    lines += ["", "## Findings", ""]
    lines += [f"- schedule {index}: {finding}" for index, finding in findings] or ["None."]
    lines += ["", "## Timeline", "", "Seconds since each cluster started.", ""]
    for r in results:
        converged = "not converged" if r.converged is None else f"+{r.converged:.2f} s"
        lines += [
            f"### Schedule {r.index}",
            "",
            "| from | to | fault |",
            "|---:|---:|---|",
            *(
                f"| {a.began:.1f} | {a.ended:.1f} | {a.fault.describe(args.nodes)} |"
                for a in r.faults
            ),
            "",
            f"Healed at {r.healed:.1f} s, every acknowledged write everywhere and one tree hash "
            f"{converged}; {r.acknowledged} writes acknowledged, {r.unanswered} unanswered, "
            f"{r.forged_refused} forged refused, {r.reads} reads.",
            "",
        ]
    return "\n".join(lines)


async def main(args: argparse.Namespace) -> list[ScheduleResult]:
    results: list[ScheduleResult] = []
    plan: tuple[Fault, ...] = ()
    length = args.length
    if args.partition:
        minority = tuple(range((args.nodes - 1) // 2))
        plan, length = (Fault("majority", 1.0, args.partition, minority),), args.partition + 1
    clusters = -(-args.schedules // args.per_cluster)
    for cluster in range(clusters):
        count = min(args.per_cluster, args.schedules - len(results))
        settings = RunSettings(
            size=args.nodes,
            schedules=count,
            length=length,
            bound=args.bound,
            seed=args.seed + cluster,
            plan=plan,
        )
        with tempfile.TemporaryDirectory(prefix="kv-faults-") as base:
            done = await run(Path(base) / "cluster", ROOT.pk, settings, progress)
        for result in done:
            result.index = len(results)
            results.append(result)
    return results


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--schedules", type=int, default=50)
    parser.add_argument("--per-cluster", type=int, default=10)
    parser.add_argument("--nodes", type=int, default=5)
    parser.add_argument("--length", type=float, default=10.0, help="seconds of faults")
    parser.add_argument("--bound", type=float, default=60.0, help="seconds to converge")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--partition", type=float, default=0.0, metavar="SECONDS")
    parser.add_argument("--out", type=Path, default=Path("kv-faults-out"))
    arguments = parser.parse_args()
    started = time.monotonic()
    outcome = asyncio.run(main(arguments))
    arguments.out.mkdir(parents=True, exist_ok=True)
    path = arguments.out / "report.md"
    path.write_text(report(arguments, outcome, time.monotonic() - started))
    lost_total = sum(lost(r) for r in outcome)
    print(f"{len(outcome)} schedules, {lost_total} acknowledged writes lost; report: {path}")
