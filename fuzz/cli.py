"""`swarmconf fuzz`: run a campaign, replay a case, shrink a case.

Every command drives the campaign record its `--system` (or a case file's `system`) names
(`campaigns`): which campaigns exist, their mutants, how a case replays and shrinks, and what a
run prints are the designs' to say.
"""

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

from .config import DEFAULT_PER_SCENARIO

if TYPE_CHECKING:
    from .campaigns import Campaign, CaseOptions
    from .client import PooledClient


def positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


CAMPAIGN_EXAMPLES = (
    "swarmconf fuzz --interleavings 2000 -o fuzz-out",
    "swarmconf fuzz --mutant ties --interleavings 2000",
    "swarmconf fuzz --system NAME --mutant MUTANT --interleavings 500 -o fuzz-out",
    "swarmconf fuzz --behaviours libsession,deployed --interleavings 20000 -o mix-out",
    "swarmconf fuzz replay fuzz-out/counterexamples/case-1-0-0.json",
)
CASE_EXAMPLES = {
    "replay": ("swarmconf fuzz replay case.json", "swarmconf fuzz replay 1:0:0 --mutant ties"),
    "shrink": ("swarmconf fuzz shrink case.json -o small.json",),
    "vectors": (
        "swarmconf fuzz vectors case.json -o case-vectors",
        "swarmconf conformance run --client CMD --vectors case-vectors",
    ),
}
SWARM_HELP = (
    "client behaviours, comma-separated, given to each scenario's clients in turn (the list "
    "repeats), in place of the mixes of behaviours the seeds draw (default: drawn; an unknown "
    "name lists them)"
)
SYSTEM_HELP = (
    "the campaign to run, by the name its design registers (default: the interleavings of "
    "config-merge clients; an unknown name lists them); --interleavings counts its cases "
    "or inputs"
)


def register(subparsers: Any) -> None:
    fuzz = subparsers.add_parser(
        "fuzz",
        help="run a fuzz campaign on Spark",
        description="Run a fuzz campaign on Spark and check its properties on every case: by "
        "default clients racing to update one config through a swarm, each scenario of a mix "
        "of client behaviours its seed draws, checked for P1-P7 on every interleaving; "
        "`--system` picks another campaign a design registers. Without a "
        "sub-command, runs a campaign (it needs the `fuzz` extra: pip install "
        "'swarmconf[fuzz]').",
        **examples(*CAMPAIGN_EXAMPLES),
    )
    fuzz.add_argument(
        "--interleavings",
        type=positive,
        default=200_000,
        help="interleavings to run (the cases or inputs of another --system; default: 200,000)",
    )
    fuzz.add_argument("--seed", type=int, default=1, help="campaign seed (default: 1)")
    fuzz.add_argument("--master", help="Spark master URL (default: local[*])")
    fuzz.add_argument(
        "-o",
        "--output",
        dest="out",
        default="fuzz-out",
        metavar="DIR|URI",
        help="output directory, or a Hadoop URI (file:///..., hdfs://..., s3a://...; default: "
        "fuzz-out)",
    )
    fuzz.add_argument(
        "--mutant", help="run a broken variant of the design (an unknown name lists them)"
    )
    fuzz.add_argument("--system", metavar="NAME", help=SYSTEM_HELP)
    fuzz.add_argument("--behaviours", "--swarm", dest="swarm", metavar="NAMES", help=SWARM_HELP)
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
        help="seconds the adapter may take on one request before it counts as hung (default: 10)",
    )
    fuzz.add_argument(
        "--lenient-reasons",
        action="store_true",
        help="with --client: a refusal with another reason code than the spec's counts as "
        "agreement (counted per pair of reasons in the summary and the report), for a client "
        "without the spec's reason codes",
    )
    fuzz.add_argument(
        "--per-scenario",
        type=positive,
        default=DEFAULT_PER_SCENARIO,
        help=f"interleavings per scenario, which share its clients' memoized steps (default: "
        f"{DEFAULT_PER_SCENARIO})",
    )
    fuzz.set_defaults(handler=guarded(run_campaign))
    commands = fuzz.add_subparsers(dest="fuzz_command", metavar="{replay,shrink,vectors}")
    for name, handler, text in (
        ("replay", replay_command, "replay one case and show its violations"),
        ("shrink", shrink_command, "minimize a failing case"),
        ("vectors", vectors_command, "write a case as conformance vectors any adapter runs"),
    ):
        command = commands.add_parser(
            name, help=text, description=text, **examples(*CASE_EXAMPLES[name])
        )
        command.add_argument(
            "case", help="a counterexample JSON file, or the id of a case (SEED:SCENARIO:SCHEDULE)"
        )
        command.add_argument(
            "--system", metavar="NAME", dest="case_system", help="the campaign of a case id"
        )
        command.add_argument(
            "--mutant", dest="case_mutant", help="replay under this mutant (default: the case's)"
        )
        command.add_argument(
            "--behaviours",
            "--swarm",
            metavar="NAMES",
            dest="case_swarm",
            help="a case id's behaviours (default: those its seed draws)",
        )
        command.add_argument("--client", metavar="CMD", dest="case_client", help="through it")
        command.add_argument(
            "--client-timeout",
            type=float,
            default=10.0,
            dest="case_timeout",
            help="seconds the adapter may take on one request (default: 10)",
        )
        command.set_defaults(handler=guarded(handler))
    commands.choices["shrink"].add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="FILE",
        help="where to write it (default: NAME-shrunk.json in the working directory, NAME the "
        "case's)",
    )
    commands.choices["vectors"].add_argument(
        "-o",
        "--output",
        type=Path,
        metavar="DIR",
        default=Path("case-vectors"),
        help="the folder of the vector file (default: case-vectors)",
    )


def campaign(system: str | None, client: str | None) -> Campaign:
    """The campaign `--system` names, run with or without a client, or USAGE / BAD_CLIENT."""
    from .campaigns import UnknownCampaign, campaign_for, systems

    if system is not None and system not in systems(aliases=True):
        detail = f"no campaign is called {system!r}; known: {', '.join(systems())}"
        raise CommandError(CliReason.USAGE, detail, Exit.USAGE)
    try:
        return campaign_for(system, client is not None)
    except UnknownCampaign as error:
        raise CommandError(CliReason.BAD_CLIENT, str(error), Exit.USAGE) from error


def swarm_campaign(system: str | None, swarm: str | None, client: str | None) -> Campaign:
    """The campaign to run: `--system`'s, or with `--behaviours` alone the one that takes it."""
    from .campaigns import campaigns

    if system is None and swarm is not None:
        takers = {record.system for record in campaigns() if record.behaviours}
        if len(takers) == 1:
            system = takers.pop()
    return campaign(system, client)


def behaviours(
    chosen: Campaign, text: str | None, client: str | None = None
) -> tuple[str, ...] | None:
    """`--behaviours`'s behaviours, checked against what the campaign takes, or USAGE (None
    without `--behaviours`: the campaign draws them). The behaviour `client` is the adapter
    `--client` names: it needs one."""
    known = list(chosen.behaviours)
    if text is None:
        return None
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    if not known:
        raise CommandError(
            CliReason.USAGE, f"--system {chosen.system} takes no --behaviours", Exit.USAGE
        )
    unknown = [name for name in names if name not in known] or ([] if names else [text])
    if unknown:
        detail = f"no behaviour {', '.join(map(repr, unknown))}; known: {', '.join(known)}"
        raise CommandError(CliReason.USAGE, detail, Exit.USAGE)
    if ("client" in names) != (client is not None):
        detail = "the behaviour `client` is the adapter --client names: give both or neither"
        raise CommandError(CliReason.USAGE, detail, Exit.USAGE)
    return names


def check_mutant(chosen: Campaign, mutant: str | None) -> None:
    known = sorted(chosen.mutants())
    if mutant is not None and mutant not in known:
        detail = f"{mutant!r}; known: {', '.join(known)}"
        raise CommandError(CliReason.BAD_MUTANT, detail, Exit.USAGE)


def run_campaign(args: argparse.Namespace) -> int:
    chosen = swarm_campaign(args.system, args.swarm, args.client)
    check_mutant(chosen, args.mutant)
    swarm = behaviours(chosen, args.swarm, args.client)
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
        system=chosen.system,
        swarm=swarm,
        client=args.client,
        client_timeout=args.client_timeout,
        lenient_reasons=args.lenient_reasons,
    )
    closing = chosen.closing(run(config))
    for line in closing.lines:
        print(line)
    print(f"fuzz: report {where.show('report.html')}")
    if closing.failure is not None:
        raise CommandError(CliReason.FUZZ_FAILED, closing.failure)
    return Exit.OK


def started_client(command: str, timeout: float) -> PooledClient:
    """The adapter `command`, started, or CLIENT_FAILED."""
    from swarmconf.conformance.client import ClientFailure

    from .client import start

    try:
        return start(command, timeout)
    except ClientFailure as failure:
        raise CommandError(CliReason.CLIENT_FAILED, str(failure), Exit.USAGE) from failure


def unwritable(error: OSError, output: object) -> CommandError:
    """OUTPUT_UNWRITABLE for an output a command could not write."""
    detail = f"cannot write {error.filename or output}: {error.strerror or error}"
    return CommandError(CliReason.OUTPUT_UNWRITABLE, detail, Exit.USAGE)


def bad_case(detail: str) -> CommandError:
    return CommandError(CliReason.BAD_CASE, detail, Exit.USAGE)


def load_case(args: argparse.Namespace) -> tuple[Campaign, Any, CaseOptions]:
    """The campaign of a case (a file's `system`, or `--system` for an id), the case, and the
    options it runs with; or BAD_CASE, BAD_MUTANT, BAD_CLIENT."""
    from .campaigns import CaseOptions

    options = CaseOptions(
        mutant=args.case_mutant,
        client=args.case_client,
        client_timeout=args.case_timeout,
        output=getattr(args, "output", None),
    )
    try:
        if Path(args.case).is_file():
            obj = json.loads(Path(args.case).read_text())
            if not isinstance(obj, dict):
                raise ValueError(f"{args.case} holds no counterexample")
            chosen = campaign(obj.get("system"), options.client)
            cases = chosen.cases
            if cases is None:
                raise bad_case(f"--system {chosen.system} writes no case files")
            check_mutant(chosen, options.mutant)
            return chosen, cases.load(obj, options), options
        chosen = swarm_campaign(args.case_system, args.case_swarm, options.client)
        if chosen.cases is None or chosen.cases.parse is None:
            raise bad_case(f"--system {chosen.system} has no case ids; give a case file")
        check_mutant(chosen, options.mutant)
        swarm = behaviours(chosen, args.case_swarm, options.client)
        options = replace(options, swarm=swarm)
        return chosen, chosen.cases.parse(args.case, options), options
    except (ValueError, KeyError, TypeError, OSError) as error:
        raise bad_case(str(error)) from error


def replay_command(args: argparse.Namespace) -> int:
    """Exit status 1 when the case still fails, 0 when it passes."""
    from swarmconf.conformance.client import ClientFailure

    chosen, case, options = load_case(args)
    assert chosen.cases is not None
    if options.client is not None:
        started_client(options.client, options.client_timeout).close()
    try:
        replayed = chosen.cases.replay(case, options)
    except ClientFailure as failure:
        raise CommandError(CliReason.CLIENT_FAILED, str(failure), Exit.USAGE) from failure
    for line in replayed.lines:
        print(line)
    for violation in replayed.violations:
        print(f"  {violation}")
    if not replayed.violations:
        print("  passes")
        return Exit.OK
    print(f"  fails: {' '.join(replayed.properties)}")
    raise CommandError(CliReason.FUZZ_FAILED, f"{replayed.name} still fails")


def vectors_command(args: argparse.Namespace) -> int:
    chosen, case, options = load_case(args)
    assert chosen.cases is not None
    if chosen.cases.export is None:
        raise bad_case(f"--system {chosen.system} writes no vectors of its cases")
    try:
        written = chosen.cases.export(case, options)
    except ValueError as error:
        raise bad_case(str(error)) from error
    except OSError as error:
        raise unwritable(error, options.output) from error
    for line in written.lines:
        print(line)
    print(f"run: {written.replay}")
    return Exit.OK


def shrink_command(args: argparse.Namespace) -> int:
    from swarmconf.conformance.client import ClientFailure

    chosen, case, options = load_case(args)
    assert chosen.cases is not None
    if options.client is not None:
        started_client(options.client, options.client_timeout).close()
    try:
        shrunk = chosen.cases.shrink(case, options)
    except ClientFailure as failure:
        raise CommandError(CliReason.CLIENT_FAILED, str(failure), Exit.USAGE) from failure
    except (ValueError, KeyError) as error:
        raise bad_case(str(error)) from error
    except OSError as error:
        raise unwritable(error, options.output) from error
    for line in shrunk.lines:
        print(line)
    print(f"replay: {shrunk.replay}")
    return Exit.OK
