"""`swarmconf fuzz`: run a campaign, replay a case, shrink a case."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from swarmconf.cliutil import (
    CliReason,
    CommandError,
    Exit,
    examples,
    guarded,
    import_extra,
    output_dir,
)

from .configmerge.campaign import DEFAULT_PER_SCENARIO
from .configmerge.case import Case, parse_case_id, read_case, write_case
from .configmerge.case import replay as replay_case
from .configmerge.mutants import MUTANTS


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


CAMPAIGN_EXAMPLES = (
    "swarmconf fuzz --interleavings 2000 -o fuzz-out",
    "swarmconf fuzz --mutant ties --interleavings 2000",
    "swarmconf fuzz --system kvgossip --interleavings 500",
    "swarmconf fuzz replay fuzz-out/counterexamples/case-1-0-0.json",
)
CASE_EXAMPLES = {
    "replay": ("swarmconf fuzz replay case.json", "swarmconf fuzz replay 1:0:0 --mutant ties"),
    "shrink": ("swarmconf fuzz shrink case.json -o small.json",),
}


def register(subparsers: Any) -> None:
    fuzz = subparsers.add_parser(
        "fuzz",
        help="run a convergence campaign on Spark",
        description="Simulate clients racing to update one config through a swarm and check "
        "P1-P6 on every interleaving. Without a sub-command, runs a campaign (it needs the "
        "`fuzz` extra: pip install 'swarmconf[fuzz]').",
        **examples(*CAMPAIGN_EXAMPLES),
    )
    fuzz.add_argument("--interleavings", type=positive, default=200_000)
    fuzz.add_argument("--seed", type=int, default=1, help="campaign seed")
    fuzz.add_argument("--master", help="Spark master URL (default: local[*])")
    fuzz.add_argument(
        "-o",
        "--output",
        dest="out",
        type=Path,
        default=Path("fuzz-out"),
        metavar="DIR",
        help="output directory",
    )
    fuzz.add_argument("--mutant", help=f"run a broken merger: {', '.join(sorted(MUTANTS))}")
    fuzz.add_argument(
        "--system",
        choices=("config", "kvgossip"),
        default="config",
        help="the design to fuzz (kvgossip: K/V Gossip's simulated network)",
    )
    fuzz.add_argument(
        "--per-scenario", type=positive, default=DEFAULT_PER_SCENARIO, help="schedules per scenario"
    )
    fuzz.set_defaults(handler=guarded(run_campaign))
    commands = fuzz.add_subparsers(dest="fuzz_command", metavar="{replay,shrink}")
    for name, handler, text in (
        ("replay", replay_command, "replay one case and show its violations"),
        ("shrink", shrink_command, "minimize a failing case"),
    ):
        command = commands.add_parser(
            name, help=text, description=text, **examples(*CASE_EXAMPLES[name])
        )
        command.add_argument("case", help="a counterexample JSON file, or SEED:SCENARIO:SCHEDULE")
        command.add_argument("--mutant", choices=sorted(MUTANTS), dest="case_mutant")
        command.set_defaults(handler=guarded(handler))
    commands.choices["shrink"].add_argument(
        "-o", "--output", type=Path, metavar="FILE", help="where to write it"
    )


def run_campaign(args: argparse.Namespace) -> int:
    known = kv_mutants() if args.system == "kvgossip" else sorted(MUTANTS)
    if args.mutant is not None and args.mutant not in known:
        detail = f"{args.mutant!r}; known: {', '.join(known)}"
        raise CommandError(CliReason.BAD_MUTANT, detail, Exit.USAGE)
    import_extra("fuzz", ("pyspark", "matplotlib"))
    output_dir(args.out)
    from .config import Config
    from .job import run

    config = Config(
        interleavings=args.interleavings,
        seed=args.seed,
        master=args.master,
        out=args.out,
        mutant=args.mutant,
        per_scenario=args.per_scenario,
        system=args.system,
    )
    summary = run(config)
    failing = summary["failing_cases"]
    violations = f"; violations {summary['violations']}" if "violations" in summary else ""
    print(
        f"fuzz: {summary['cases']} cases in {summary['seconds']} s "
        f"({summary['interleavings_per_second']}/s){violations}; {failing} failing cases"
    )
    print(f"fuzz: report {(args.out / 'report.html').resolve()}")
    if failing:
        raise CommandError(CliReason.FUZZ_FAILED, f"{failing} failing cases (see the report)")
    return Exit.OK


def kv_mutants() -> list[str]:
    from swarmconf.fuzz.kvgossip.mutants import MUTANTS as KV_MUTANTS

    return sorted(KV_MUTANTS)


def load_case(args: argparse.Namespace) -> Case:
    """The case of a file or of `SEED:SCENARIO:SCHEDULE`, or BAD_CASE."""
    try:
        if Path(args.case).is_file():
            case = read_case(Path(args.case))
            return replace(case, mutant=args.case_mutant) if args.case_mutant else case
        return parse_case_id(args.case, args.case_mutant)
    except (ValueError, KeyError, json.JSONDecodeError) as error:
        raise CommandError(CliReason.BAD_CASE, str(error), Exit.USAGE) from error


def replay_command(args: argparse.Namespace) -> int:
    """Exit status 1 when the case still fails, 0 when it passes."""
    case = load_case(args)
    outcome = replay_case(case)
    print(
        f"{case.name}: {len(case.scenario.clients)} clients, {case.scenario.edit_count} edits, "
        f"{len(case.schedule.events)} events, lag {case.scenario.lag}"
    )
    for violation in outcome.violations:
        print(f"  {violation}")
    print("  passes" if not outcome.violations else f"  fails: {' '.join(outcome.properties)}")
    if outcome.violations:
        raise CommandError(CliReason.FUZZ_FAILED, f"{case.name} still fails")
    return Exit.OK


def shrink_command(args: argparse.Namespace) -> int:
    from .configmerge.shrink import shrink

    case = load_case(args)
    try:
        scenario, schedule = shrink((case.scenario, case.schedule), case.mutant)
    except (ValueError, KeyError) as error:
        raise CommandError(CliReason.BAD_CASE, str(error), Exit.USAGE) from error
    small = replace(case, scenario=scenario, schedule=schedule, shrunk=True)
    output = args.output or Path(f"{case.name}-shrunk.json")
    outcome = replay_case(small)
    try:
        write_case(small, outcome, output)
    except OSError as error:
        detail = f"cannot write {output}: {error.strerror or error}"
        raise CommandError(CliReason.OUTPUT_UNWRITABLE, detail, Exit.USAGE) from error
    print(
        f"{case.name}: {len(case.scenario.clients)} -> {len(scenario.clients)} clients, "
        f"{case.scenario.edit_count} -> {scenario.edit_count} edits, "
        f"{len(case.schedule.events)} -> {len(schedule.events)} events; wrote {output}"
    )
    print(f"replay: swarmconf fuzz replay {output}")
    return 0
