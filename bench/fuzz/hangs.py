"""A client that hangs without declaring it: the hostile campaign's rate through it.

    python -m bench.fuzz.hangs [--inputs N] [--seeds 3,4] [--rounds R] [--master M]

The hostile campaign (`--system parser --lenient-reasons`, 20,000 inputs on `local[2]`, seeds
3 and 4) through three clients, one after the other, `--rounds` times:

- the emulation of the deployed client (`python -m swarmconf.conformance.configmerge.deployed`),
  which declares X3 and answers `hung` at once where the deployed client loops;
- the aborting adapter (`python -m swarmconf.fuzz.configmerge.aborting_adapter`), which declares
  X3 and spins there: each hang is cut as the declared hang;
- the aborting adapter with `--undeclared X3`: the same spins, no hang declared, each cut by
  the CPU it burns past a bound taken from the client's answer times (`swarmconf.fuzz.client`)
  and failing C2 as `spinning`.

Each run's inputs per second (the job's time, Spark's start left out), its C2 failures and
its spinning ones, and the one-minute load average when it ended; then per seed the medians'
ratio of the undeclared client to the emulation (target: at least 50 %) and to the declared
one.
"""

from __future__ import annotations

import argparse
import os
import statistics
from dataclasses import dataclass

from bench.fuzz.client import ABORTING, EMULATION, campaign_summary

UNDECLARED = f"{ABORTING} --undeclared X3"
CLIENTS = {
    "emulation": EMULATION,
    "aborting adapter, X3 declared": ABORTING,
    "aborting adapter, X3 undeclared": UNDECLARED,
}


@dataclass(frozen=True)
class Run:
    rate: float
    """Inputs per second."""
    c2: int
    spinning: int
    """C2 failures grouped under a `spinning` cause."""


def run(arguments: list[str], master: str) -> Run:
    """`swarmconf fuzz ARGUMENTS` on `master`: its summary's rate and C2 failures."""
    summary = campaign_summary(arguments, master)
    groups = summary["client_failures_by_cause"]
    return Run(
        float(summary["inputs_per_second"]),
        int(summary["violations"].get("C2", 0)),
        sum(group["count"] for group in groups if ": client spinning " in group["cause"]),
    )


def ratio(name: str, through: list[float], against: list[float], target: str) -> str:
    value = statistics.median(through) / statistics.median(against)
    return f"  undeclared / {name}: {value:.0%} ({target})"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--inputs", type=int, default=20_000)
    parser.add_argument("--seeds", default="3,4")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--master", default="local[2]")
    args = parser.parse_args(argv)
    for seed in args.seeds.split(","):
        campaign = ["--seed", seed, "--system", "parser", "--lenient-reasons"]
        campaign += ["--interleavings", str(args.inputs)]
        rates: dict[str, list[float]] = {name: [] for name in CLIENTS}
        for _ in range(args.rounds):
            for name, command in CLIENTS.items():
                found = run([*campaign, "--client", command], args.master)
                rates[name].append(found.rate)
                print(
                    f"seed {seed}, {name}: {found.rate:,.1f}/s, C2 {found.c2:,} "
                    f"({found.spinning:,} spinning), load {os.getloadavg()[0]:.1f}",
                    flush=True,
                )
        medians = ", ".join(f"{name} {statistics.median(r):,.1f}/s" for name, r in rates.items())
        print(f"seed {seed}, medians: {medians}", flush=True)
        undeclared = rates["aborting adapter, X3 undeclared"]
        print(ratio("emulation", undeclared, rates["emulation"], "target >= 50 %"), flush=True)
        declared = rates["aborting adapter, X3 declared"]
        print(ratio("declared", undeclared, declared, "no target"), flush=True)


if __name__ == "__main__":
    main()
