"""`python -m swarmconf.fuzz.kvgossip [--campaign S] [--start I] [--cases N] [--mutant NAME]`.

Runs cases `start .. start+N-1` of a campaign, prints every violating case as one JSON line
(`swarmconf fuzz replay --system kvgossip CAMPAIGN:INDEX` replays it), then a summary line with
the CPU time per case.
Exit status 1 if any case violated a property.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

from . import run_case
from .mutants import MUTANTS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m swarmconf.fuzz.kvgossip")
    parser.add_argument("--campaign", type=int, default=1)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--cases", type=int, default=100)
    parser.add_argument("--mutant", choices=sorted(MUTANTS))
    args = parser.parse_args(argv)
    cpu, wall, bad = time.process_time(), time.perf_counter(), 0
    for index in range(args.start, args.start + args.cases):
        result = run_case(args.campaign, index, args.mutant)
        if result["violations"]:
            bad += 1
            print(json.dumps(result, sort_keys=True))
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    summary = {
        "campaign": args.campaign,
        "cases": args.cases,
        "violating": bad,
        "cases_per_cpu_second": round(args.cases / cpu, 1),
        "cases_per_wall_second": round(args.cases / wall, 1),
    }
    print(json.dumps(summary, sort_keys=True))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
