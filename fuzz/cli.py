"""`swarmconf fuzz`: run a campaign, replay a case, shrink a case."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:
    from .client import PooledClient


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


CAMPAIGN_EXAMPLES = (
    "swarmconf fuzz --interleavings 2000 -o fuzz-out",
    "swarmconf fuzz --mutant ties --interleavings 2000",
    "swarmconf fuzz --system kvgossip --interleavings 500",
    "swarmconf fuzz --system kvgossip-parser --interleavings 1000000",
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
        default="fuzz-out",
        metavar="DIR|URI",
        help="output directory, or a Hadoop URI (file:///..., hdfs://..., s3a://...)",
    )
    fuzz.add_argument("--mutant", help=f"run a broken merger: {', '.join(sorted(MUTANTS))}")
    fuzz.add_argument(
        "--system",
        choices=("config", "kvgossip", "parser", "kvgossip-parser"),
        default="config",
        help="what to fuzz (kvgossip: K/V Gossip's simulated network; parser: hostile inputs "
        "to the config-merge parsers; kvgossip-parser: hostile K/V Gossip objects, frames, "
        "sessions, Serf payloads and handshakes; --interleavings counts inputs for both)",
    )
    fuzz.add_argument(
        "--client",
        metavar="CMD",
        help="check a foreign client through its conformance adapter command, the reference as "
        "oracle and the spec as judge",
    )
    fuzz.add_argument(
        "--client-timeout",
        type=float,
        default=10.0,
        help="seconds the adapter may take on one request before it counts as hung",
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
        command.add_argument("--client", metavar="CMD", dest="case_client", help="through it")
        command.add_argument("--client-timeout", type=float, default=10.0, dest="case_timeout")
        command.set_defaults(handler=guarded(handler))
    commands.choices["shrink"].add_argument(
        "-o", "--output", type=Path, metavar="FILE", help="where to write it"
    )


def run_campaign(args: argparse.Namespace) -> int:
    known = {"kvgossip": kv_mutants, "kvgossip-parser": kv_decoder_mutants}.get(
        args.system, lambda: sorted(MUTANTS)
    )()
    if args.mutant is not None and args.mutant not in known:
        detail = f"{args.mutant!r}; known: {', '.join(known)}"
        raise CommandError(CliReason.BAD_MUTANT, detail, Exit.USAGE)
    if args.client is not None and args.system in ("kvgossip", "kvgossip-parser"):
        raise CommandError(CliReason.BAD_CLIENT, "--client checks config-merge clients", Exit.USAGE)
    if args.client is not None:
        started_client(args.client, args.client_timeout).close()
    import_extra("fuzz", ("pyspark", "matplotlib"))
    from .config import Config
    from .job import run
    from .storage import destination

    where = destination(args.out)
    output_dir(where.local)
    config = Config(
        interleavings=args.interleavings,
        seed=args.seed,
        master=args.master,
        out=where.local,
        out_uri=where.uri,
        mutant=args.mutant,
        per_scenario=args.per_scenario,
        system=args.system,
        client=args.client,
        client_timeout=args.client_timeout,
    )
    summary = run(config)
    if args.system in ("parser", "kvgossip-parser"):
        return report_hostile(summary, where.show("report.html"))
    failing = summary["failing_cases"]
    found = summary.get("violations")
    swarmconf_bugs = found.get("R1", 0) if isinstance(found, dict) else 0
    if swarmconf_bugs:
        print(
            f"fuzz: SWARMCONF BUG: the reference contradicts the spec in {swarmconf_bugs} "
            "interleavings (R1, first in the report)"
        )
    violations = f"; violations {summary['violations']}" if "violations" in summary else ""
    print(
        f"fuzz: {summary['cases']} cases in {summary['seconds']} s "
        f"({summary['interleavings_per_second']}/s){violations}; {failing} failing cases"
    )
    print(f"fuzz: report {where.show('report.html')}")
    if failing:
        raise CommandError(CliReason.FUZZ_FAILED, f"{failing} failing cases (see the report)")
    return Exit.OK


def report_hostile(summary: dict[str, Any], report: str) -> int:
    violations = ", ".join(f"{name} {count}" for name, count in summary["violations"].items())
    print(
        f"fuzz: {summary['inputs']:,} inputs ({summary['distinct_inputs']:,} distinct) in "
        f"{summary['seconds']} s ({summary['inputs_per_second']:,}/s); violations {violations}"
    )
    print(f"fuzz: report {report}")
    if summary["failing_inputs"]:
        detail = f"{summary['failing_inputs']} failing inputs (see the report)"
        raise CommandError(CliReason.FUZZ_FAILED, detail)
    return Exit.OK


def started_client(command: str, timeout: float) -> PooledClient:
    """The adapter `command`, started, or CLIENT_FAILED."""
    from swarmconf.conformance.client import ClientFailure

    from .client import start

    try:
        return start(command, timeout)
    except ClientFailure as failure:
        raise CommandError(CliReason.CLIENT_FAILED, str(failure), Exit.USAGE) from failure


def kv_mutants() -> list[str]:
    from swarmconf.fuzz.kvgossip.mutants import MUTANTS as KV_MUTANTS

    return sorted(KV_MUTANTS)


def kv_decoder_mutants() -> list[str]:
    from swarmconf.fuzz.kvgossip.decoder_mutants import MUTANTS as DECODER_MUTANTS

    return sorted(DECODER_MUTANTS)


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
    if args.case_client is not None:
        violations = replay_through_client(case, args.case_client, args.case_timeout)
    else:
        violations = replay_case(case).violations
    print(
        f"{case.name}: {len(case.scenario.clients)} clients, {case.scenario.edit_count} edits, "
        f"{len(case.schedule.events)} events, lag {case.scenario.lag}"
    )
    for violation in violations:
        print(f"  {violation}")
    properties = sorted({violation.split(" ", 1)[0] for violation in violations})
    print("  passes" if not violations else f"  fails: {' '.join(properties)}")
    if violations:
        raise CommandError(CliReason.FUZZ_FAILED, f"{case.name} still fails")
    return Exit.OK


def replay_through_client(case: Case, command: str, timeout: float) -> list[str]:
    """The case's violations with its operations checked through `command`."""
    from .configmerge.differential import replay_with_client

    client = started_client(command, timeout)
    try:
        outcome, counts = replay_with_client(case.scenario, case.schedule, client)
    finally:
        client.close()
    print(
        f"client {client.hello.get('name', '?')}: {counts['requests']} requests, "
        f"{counts['skipped']} skipped, {counts['quirk']} as declared quirks"
    )
    return outcome.violations


def shrink_command(args: argparse.Namespace) -> int:
    from .configmerge.shrink import shrink

    case = load_case(args)
    if args.case_client is not None:
        return shrink_through_client(args, case)
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


def shrink_through_client(args: argparse.Namespace, case: Case) -> int:
    """Shrink a case that fails through a client; each candidate replays on a fresh adapter."""
    from .config import Config
    from .report import replay_command, write_counterexample

    output = args.output or Path(f"{case.name}-shrunk.json")
    config = Config(
        interleavings=1,
        mutant=case.mutant,
        client=args.case_client,
        client_timeout=args.case_timeout,
    )
    started_client(args.case_client, args.case_timeout).close()
    try:
        write_counterexample(case, config, output, shrunk=True)
    except ValueError as error:
        raise CommandError(CliReason.BAD_CASE, str(error), Exit.USAGE) from error
    small = read_case(output)
    print(
        f"{case.name}: {len(case.scenario.clients)} -> {len(small.scenario.clients)} clients, "
        f"{case.scenario.edit_count} -> {small.scenario.edit_count} edits, "
        f"{len(case.schedule.events)} -> {len(small.schedule.events)} events; wrote {output}"
    )
    print(f"replay: {replay_command(str(output), args.case_client)}")
    return Exit.OK
