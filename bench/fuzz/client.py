"""Client campaigns against campaigns without a client: three ratios, on one master and seed.

    python -m bench.fuzz.client [--interleavings N] [--inputs N] [--rounds R] [--master M]
    python -m bench.fuzz.client --cpu-only [--cpu-interleavings N] [--rounds R]
    python -m bench.fuzz.client --deaths [--death-inputs N] [--rounds R] [--master M]

1. The interleaving campaign through the worked adapter (`docs/examples/conformance_adapter.py`)
   against `swarmconf fuzz` without a client: interleavings per second, each run's own
   `summary.json` (the job's time, Spark's start left out). Target: at least 80 %.
2. The hostile campaign (`--system parser`) through the emulation of the deployed client
   (`python -m swarmconf.conformance.configmerge.deployed`, quirks declared) against the same
   campaign without a client: inputs per second. Target: at least 50 %.
3. The campaign's own CPU beyond what the adapter and the oracle spend, in one process (as one
   Spark executor runs its tasks): the campaign's CPU time through the worked adapter, less the
   oracle's (the reference playing the same tasks' interleavings and answering their requests
   from its caches, measured alone, the requests' writing left out), over the adapter's and the
   oracle's together. Target: at most 25 %. The same CPU (writing the requests, reading the
   answers, judging them) per request, in microseconds.
4. What bounds ratio 1, in the same process: the CPU of the campaign without a client on the
   same interleavings, over the client campaign's and the adapter's together (the most a machine
   whose cores are all busy can give) and over the client campaign's alone (the most it can give
   with the adapter on cores of its own).
5. (`--deaths` only) The hostile campaign through a client that really dies and hangs (the
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
import time
from collections.abc import Callable
from pathlib import Path

from swarmconf.conformance.client import Message, ProcessClient
from swarmconf.fuzz.client import Answer, PooledClient, start
from swarmconf.fuzz.configmerge.campaign import plan, run_task
from swarmconf.fuzz.configmerge.differential import (
    RecordingEngine,
    plan_client,
    play,
    release,
    request_of,
    run_client_tasks,
    sort_key,
)
from swarmconf.fuzz.heap import collector_paused

ROOT = Path(__file__).resolve().parents[2]
WORKED = f"{sys.executable} {ROOT / 'docs/examples/conformance_adapter.py'}"
EMULATION = f"{sys.executable} -m swarmconf.conformance.configmerge.deployed"
ABORTING = f"{sys.executable} -m swarmconf.fuzz.configmerge.aborting_adapter"


class Recording(PooledClient):
    """A pooled client that keeps a copy of every batch it sends."""

    batches: list[list[Message]]

    def send(
        self, requests: list[Message], hangs: Callable[[Message], bool] | None = None
    ) -> Callable[[], list[Answer]]:
        self.batches.append(list(requests))
        return super().send(requests, hangs)


def cpu_seconds(client: ProcessClient) -> float:
    """User and system CPU time of the adapter process so far."""
    assert client.process is not None
    with open(f"/proc/{client.process.pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def oracle_alone(seed: int, interleavings: int, per_scenario: int, command: str) -> float:
    """CPU seconds the oracle takes alone: the reference plays each task's interleavings and
    answers the requests a campaign sends for them (their writing left out), the collector
    paused and the engine released after each task, as in a campaign."""
    spent = 0.0
    for task in plan_client(seed, interleavings, per_scenario, command, 10.0):
        with collector_paused():
            started = time.process_time()
            played = play(task)
            spent += time.process_time() - started
            engine: RecordingEngine = played.engine
            keys = sorted(set().union(*(t for _, _, t in played.results)), key=sort_key)
            requests = [request_of(engine, key) for key in keys]
            started = time.process_time()
            for key, request in zip(keys, requests, strict=True):
                engine.expected(key, request)
            spent += time.process_time() - started
            release(engine)
        del played, engine  # freed before the collector resumes, as a campaign's engine is
    return spent


def without_client(seed: int, interleavings: int, per_scenario: int) -> float:
    """CPU seconds of the campaign without a client on the same interleavings, in process."""
    started = time.process_time()
    for task in plan(seed, interleavings, per_scenario):
        run_task(task)
    return time.process_time() - started


def measure(command: str, seed: int, interleavings: int, per_scenario: int) -> dict[str, float]:
    """The campaign through `command` in this process, its CPU against the adapter's and the
    oracle's; and the adapter answering the same batches alone."""
    started = start(command)
    client = Recording(command, started.timeout, started.client, started.hello)
    client.batches = []
    try:
        adapter_cpu = cpu_seconds(client.client)
        begin, cpu = time.perf_counter(), time.process_time()
        tasks = plan_client(seed, interleavings, per_scenario, command, started.timeout)
        for _ in run_client_tasks(tasks, client):
            pass
        campaign = time.perf_counter() - begin
        campaign_cpu = time.process_time() - cpu
        adapter_cpu = cpu_seconds(client.client) - adapter_cpu
    finally:
        client.close()
    alone = start(command)
    try:
        alone_cpu = cpu_seconds(alone.client)
        begin = time.perf_counter()
        for batch in client.batches:
            alone.exchange(batch)
        answering = time.perf_counter() - begin
        alone_cpu = cpu_seconds(alone.client) - alone_cpu
    finally:
        alone.close()
    oracle_cpu = oracle_alone(seed, interleavings, per_scenario, command)
    internal_cpu = without_client(seed, interleavings, per_scenario)
    return with_ratios(
        {
            "interleavings": interleavings,
            "requests": sum(len(batch) for batch in client.batches),
            "campaign_seconds": campaign,
            "campaign_cpu_seconds": campaign_cpu,
            "adapter_cpu_seconds": adapter_cpu,
            "adapter_alone_seconds": answering,
            "adapter_alone_cpu_seconds": alone_cpu,
            "oracle_cpu_seconds": oracle_cpu,
            "internal_cpu_seconds": internal_cpu,
        }
    )


def with_ratios(figures: dict[str, float]) -> dict[str, float]:
    """The measured figures and the ratios the bench reports from them: the campaign's own CPU
    share (its CPU beyond the oracle's, over the adapter's and the oracle's), and the campaign
    without a client over the campaign through it, with all cores busy (the adapter's CPU
    counted) and with the adapter on cores of its own."""
    campaign, adapter = figures["campaign_cpu_seconds"], figures["adapter_cpu_seconds"]
    oracle, internal = figures["oracle_cpu_seconds"], figures["internal_cpu_seconds"]
    return {
        **figures,
        "own_cpu_share": (campaign - oracle) / (adapter + oracle),
        "own_cpu_us_per_request": (campaign - oracle) / max(1, figures["requests"]) * 1e6,
        "cpu_ratio_saturated": internal / (campaign + adapter),
        "cpu_ratio_spare_cores": internal / campaign,
    }


def campaign_rate(arguments: list[str], master: str, key: str) -> float:
    """`swarmconf fuzz ARGUMENTS` on `master`: its summary's rate (`key`)."""
    with tempfile.TemporaryDirectory() as out:
        command = [sys.executable, "-m", "swarmconf", "fuzz", *arguments]
        command += ["--master", master, "-o", out]
        subprocess.run(command, cwd=ROOT, capture_output=True, check=False)
        summary = Path(out) / "summary.json"
        if not summary.exists():
            raise RuntimeError(f"no summary from {' '.join(command)}")
        return float(json.loads(summary.read_text())[key])


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
    parser.add_argument("--cpu-interleavings", type=int, default=10_000)
    parser.add_argument("--per-scenario", type=int, default=500)
    parser.add_argument(
        "--cpu-only", action="store_true", help="only the CPU figures (3 and 4), no Spark runs"
    )
    parser.add_argument(
        "--deaths", action="store_true", help="only ratio 5: a client that dies, seeds 3 and 4"
    )
    parser.add_argument("--death-inputs", type=int, default=20_000)
    args = parser.parse_args(argv)
    if args.deaths:
        deaths(args)
        return
    if not args.cpu_only:
        rates(args)
    cpu_figures(args)


def rates(args: argparse.Namespace) -> None:
    """Ratios 1 and 2: alternated Spark runs."""
    seed = ["--seed", str(args.seed)]
    interleavings = [*seed, "--interleavings", str(args.interleavings)]
    alone, through = alternated(
        interleavings,
        [*interleavings, "--client", WORKED],
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
    """Ratio 5: alternated Spark runs through the emulation and the aborting adapter, per seed,
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


def cpu_figures(args: argparse.Namespace) -> None:
    """Ratios 3 and 4 and the campaign's own CPU per request, in one process."""
    found = [
        measure(WORKED, args.seed, args.cpu_interleavings, args.per_scenario)
        for _ in range(args.rounds)
    ]
    for run in found:
        print(
            f"  {run['interleavings']:,} interleavings, {run['requests']:,} requests: "
            f"campaign CPU {run['campaign_cpu_seconds']:.2f} s (the oracle alone "
            f"{run['oracle_cpu_seconds']:.2f} s), adapter CPU "
            f"{run['adapter_cpu_seconds']:.2f} s, without a client "
            f"{run['internal_cpu_seconds']:.2f} s; wall {run['campaign_seconds']:.2f} s, "
            f"the adapter alone {run['adapter_alone_seconds']:.2f} s; the campaign's own "
            f"CPU {run['own_cpu_us_per_request']:.1f} us per request",
            flush=True,
        )
    per_request = statistics.median(run["own_cpu_us_per_request"] for run in found)
    print(
        f"campaign's own CPU per request (writing, reading, judging): median {per_request:.1f} us",
        flush=True,
    )
    print(
        median_line(
            "campaign's own CPU beyond the adapter's and the oracle's",
            found,
            "own_cpu_share",
            "target <= 25 %",
        )
    )
    print(
        median_line(
            "CPU without a client / through it, adapter included (all cores busy)",
            found,
            "cpu_ratio_saturated",
            "bounds ratio 1 on a saturated machine",
        )
    )
    print(
        median_line(
            "CPU without a client / through it, adapter left out (spare cores)",
            found,
            "cpu_ratio_spare_cores",
            "bounds ratio 1 with spare cores",
        )
    )


def median_line(name: str, runs: list[dict[str, float]], key: str, say: str) -> str:
    values = [run[key] for run in runs]
    each = ", ".join(f"{value:.0%}" for value in values)
    return f"{name}: median {statistics.median(values):.0%} ({say}; runs {each})"


if __name__ == "__main__":
    main()
