"""Client campaigns against campaigns without a client: three ratios, on one master and seed.

    python -m bench.fuzz.client [--interleavings N] [--inputs N] [--rounds R] [--master M]
    python -m bench.fuzz.client --deaths [--death-inputs N] [--rounds R] [--master M]

1. The interleaving campaign with a `client` client played through the worked adapter
   (`docs/examples/conformance_adapter.py`) beside a `libsession` one, against the same campaign
   with two `libsession` clients: interleavings per second, each run's own `summary.json` (the
   job's time, Spark's start left out). Target: at least 80 %.
2. The hostile campaign (`--system parser`) through the emulation of the deployed client
   (`python -m swarmconf.conformance.configmerge.deployed`, quirks declared) against the same
   campaign without a client: inputs per second. Target: at least 50 %.
3. (`--deaths` only) The hostile campaign through a client that really dies and hangs (the
   aborting adapter, `python -m swarmconf.fuzz.configmerge.aborting_adapter`: the emulation
   exiting where the deployed client aborts and spinning where it loops) against the same
   campaign through the emulation (which answers `hung` at once), on the same inputs with
   `--lenient-reasons`, seeds 3 and 4: inputs per second. Target: at least 50 %. Each run's
   one-minute load average is printed with it.

The machine may be shared: each pair of runs alternates (without, with, without, with, ...)
and the medians of `--rounds` rounds are reported, with every run's figure.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
WORKED = f"{sys.executable} {ROOT / 'docs/examples/conformance_adapter.py'}"
EMULATION = f"{sys.executable} -m swarmconf.conformance.configmerge.deployed"
ABORTING = f"{sys.executable} -m swarmconf.fuzz.configmerge.aborting_adapter"


def campaign_summary(arguments: list[str], master: str) -> dict[str, Any]:
    """`swarmconf fuzz ARGUMENTS` on `master`: its summary.json."""
    with tempfile.TemporaryDirectory() as out:
        command = [sys.executable, "-m", "swarmconf", "fuzz", *arguments]
        command += ["--master", master, "-o", out]
        subprocess.run(command, cwd=ROOT, capture_output=True, check=False)
        summary = Path(out) / "summary.json"
        if not summary.exists():
            raise RuntimeError(f"no summary from {' '.join(command)}")
        return json.loads(summary.read_text())  # type: ignore[no-any-return]


def campaign_rate(arguments: list[str], master: str, key: str) -> float:
    """`swarmconf fuzz ARGUMENTS` on `master`: its summary's rate (`key`)."""
    return float(campaign_summary(arguments, master)[key])


def alternated(
    without: list[str], with_client: list[str], master: str, key: str, rounds: int
) -> tuple[list[float], list[float]]:
    """Rates of `rounds` runs each, without and with the client, one after the other."""
    alone: list[float] = []
    through: list[float] = []
    for _ in range(rounds):
        alone.append(campaign_rate(without, master, key))
        through.append(campaign_rate(with_client, master, key))
    return alone, through


def ratio_line(
    name: str,
    alone: list[float],
    through: list[float],
    target: str,
    sides: tuple[str, str] = ("through the client", "without"),
) -> str:
    """The medians' ratio, with every run's figure; `sides` names the two kinds of run."""
    ratio = statistics.median(through) / statistics.median(alone)
    runs = ", ".join(f"{a:,.0f}/{t:,.0f}" for a, t in zip(alone, through, strict=True))
    return (
        f"{name}: median {statistics.median(through):,.0f}/s {sides[0]}, "
        f"{statistics.median(alone):,.0f}/s {sides[1]}: {ratio:.0%} (target {target}; runs "
        f"{sides[1]}/{sides[0]}: {runs})"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--interleavings", type=int, default=20_000)
    parser.add_argument("--inputs", type=int, default=200_000)
    parser.add_argument("--seed", type=int, default=9)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--master", default="local[2]")
    parser.add_argument(
        "--deaths", action="store_true", help="only ratio 3: a client that dies, seeds 3 and 4"
    )
    parser.add_argument("--death-inputs", type=int, default=20_000)
    args = parser.parse_args(argv)
    if args.deaths:
        deaths(args)
        return
    rates(args)


def rates(args: argparse.Namespace) -> None:
    """Ratios 1 and 2: alternated Spark runs."""
    seed = ["--seed", str(args.seed)]
    interleavings = [*seed, "--interleavings", str(args.interleavings)]
    alone, through = alternated(
        [*interleavings, "--swarm", "libsession,libsession"],
        [*interleavings, "--swarm", "libsession,client", "--client", WORKED],
        args.master,
        "interleavings_per_second",
        args.rounds,
    )
    print(ratio_line("interleavings, worked adapter", alone, through, ">= 80 %"), flush=True)
    inputs = [*seed, "--system", "parser", "--interleavings", str(args.inputs)]
    alone, through = alternated(
        inputs, [*inputs, "--client", EMULATION], args.master, "inputs_per_second", args.rounds
    )
    print(ratio_line("hostile inputs, emulation adapter", alone, through, ">= 50 %"), flush=True)


def deaths(args: argparse.Namespace) -> None:
    """Ratio 3: alternated Spark runs through the emulation and the aborting adapter, per seed,
    each rate printed with the load average when its run ended."""
    for seed in (3, 4):
        inputs = ["--seed", str(seed), "--system", "parser", "--lenient-reasons"]
        inputs += ["--interleavings", str(args.death_inputs)]
        emulated: list[float] = []
        dying: list[float] = []
        for _ in range(args.rounds):
            for command, rates_ in ((EMULATION, emulated), (ABORTING, dying)):
                rates_.append(
                    campaign_rate([*inputs, "--client", command], args.master, "inputs_per_second")
                )
                kind = "emulation" if command == EMULATION else "aborting adapter"
                print(
                    f"  seed {seed}, {kind}: {rates_[-1]:,.1f}/s, load {os.getloadavg()[0]:.1f}",
                    flush=True,
                )
        sides = ("through the aborting adapter", "through the emulation")
        line = ratio_line(f"seed {seed}, a client that dies", emulated, dying, ">= 50 %", sides)
        print(line, flush=True)


if __name__ == "__main__":
    main()
