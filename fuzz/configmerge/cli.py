"""`swarmconf check`: every reachable state of the config-merge campaign's world, to a bound."""

from __future__ import annotations

import argparse
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

EXAMPLES = (
    "swarmconf check --clients 2 --edits 2 -o check-out",
    "swarmconf check --clients 3 --edits 2 --master 'local[2]'",
    "swarmconf check --clients 2 --edits 2 --mutant ties",
    "swarmconf check --clients 3 --edits 2 --lag 2 --scripts overlap --mutant replay-lowest",
    "swarmconf check --clients 2 --edits 1 --behaviours spec,deployed",
    "swarmconf fuzz replay check-out/counterexamples/P3-ties.json",
)
IN_PROCESS = "none"
SCRIPT_FAMILIES = ("plain", "overlap")
"""`model.SCRIPTS` by name (the model is imported only when a check runs)."""


def bounded(low: int, high: int) -> Any:
    def parse(text: str) -> int:
        value = int(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be from {low} to {high}")
        return value

    return parse


def register(subparsers: Any) -> None:
    check = subparsers.add_parser(
        "check",
        help="check P1-P7 on every reachable state up to a bound",
        description="Breadth-first search of every state the campaign's clients can reach "
        "with the given edits (edits, full polls and pushes in every order), judging P1-P7 on "
        "each step and each state as the campaign does; every failure comes with a shortest "
        "counterexample that `swarmconf fuzz replay` reproduces. Writes summary.json and "
        "report.html (needs the `fuzz` extra).",
        **examples(*EXAMPLES),
    )
    check.add_argument("--clients", type=bounded(1, 4), default=2, help="clients (default: 2)")
    check.add_argument(
        "--edits", type=bounded(1, 4), default=2, help="edits per client (default: 2)"
    )
    check.add_argument("--lag", type=bounded(1, 5), default=1, help="the lag window N (default: 1)")
    check.add_argument(
        "--mutant", help="check a broken merger by name (an unknown name lists the known ones)"
    )
    check.add_argument(
        "--master",
        default=IN_PROCESS,
        help=f"Spark master URL (local[2], spark://...); {IN_PROCESS} (default): in this process",
    )
    check.add_argument(
        "-o",
        "--output",
        dest="out",
        default="check-out",
        metavar="DIR|URI",
        help="output directory, or a Hadoop URI (file:///..., hdfs://..., s3a://...; default: "
        "check-out)",
    )
    check.add_argument(
        "--scripts",
        choices=SCRIPT_FAMILIES,
        default="plain",
        help="the edit-script family: plain (each client its own keys and the contested `a`) or "
        "overlap (the clients remove and write inside one nested dict; with --lag 2 or more "
        "this makes the replay order of lagged diffs observable; default: plain)",
    )
    check.add_argument(
        "--blob",
        action="store_true",
        help="the swarm starts with an unparseable message (a later major version) that sorts "
        "before every other and that the delete rule keeps (D27)",
    )
    check.add_argument(
        "--shared-scripts",
        action="store_true",
        help="every client runs the same script, none writes an unknown key (their messages "
        "then coincide on equal bases)",
    )
    check.add_argument(
        "--no-future", action="store_true", help="no client writes an unknown top-level key"
    )
    check.add_argument(
        "--sleep-sets",
        action="store_true",
        help="skip transitions that commute with one already taken; the config-merge model "
        "declares no two steps independent (any step may change what another poll returns), "
        "so it skips none here",
    )
    check.add_argument(
        "--exhaust", action="store_true", help="search on after the first violating level"
    )
    check.add_argument(
        "--max-depth", type=bounded(0, 1000), help="stop after this depth (default: no limit)"
    )
    check.add_argument(
        "--behaviours",
        "--swarm",
        dest="swarm",
        metavar="NAMES",
        help="the clients' behaviours, comma-separated, given to the clients in turn (default: "
        "spec,reference; spec under --mutant; an unknown name lists them)",
    )
    check.add_argument(
        "--client",
        metavar="CMD",
        help="the conformance adapter command the swarm's `client` clients are played through",
    )
    check.set_defaults(handler=guarded(run_check))


def run_check(args: argparse.Namespace) -> int:
    from .mutants import MUTANTS

    if args.mutant is not None and args.mutant not in MUTANTS:
        detail = f"{args.mutant!r}; known: {', '.join(sorted(MUTANTS))}"
        raise CommandError(CliReason.BAD_MUTANT, detail, Exit.USAGE)
    from .behaviours import BEHAVIOURS

    swarm = None
    if args.swarm is not None:
        swarm = tuple(name.strip() for name in args.swarm.split(",") if name.strip())
        unknown = [name for name in swarm if name not in BEHAVIOURS] or ([] if swarm else [""])
        if unknown:
            detail = f"--behaviours takes {', '.join(BEHAVIOURS)}, not {args.swarm!r}"
            raise CommandError(CliReason.USAGE, detail, Exit.USAGE)
    if ("client" in (swarm or ())) != (args.client is not None):
        detail = "the behaviour `client` is the adapter --client names: give both or neither"
        raise CommandError(CliReason.USAGE, detail, Exit.USAGE)
    spark = args.master != IN_PROCESS
    import_extra("fuzz", ("pyspark", "matplotlib") if spark else ("matplotlib",))
    from ..storage import destination
    from .check import Bound
    from .check_run import Settings, run

    where = destination(args.out)
    if where.uri is not None and not spark:
        detail = "an output URI is written through Spark: give --master"
        raise CommandError(CliReason.USAGE, detail, Exit.USAGE)
    output_dir(where.local)
    bound = Bound(
        args.clients,
        args.edits,
        args.lag,
        shared=args.shared_scripts,
        future=not args.no_future,
        mutant=args.mutant,
        scripts=args.scripts,
        blob=args.blob,
        swarm=swarm,
        client=args.client,
    )
    settings = Settings(
        master=args.master if spark else None,
        out=where.local,
        out_uri=where.uri,
        sleep_sets=args.sleep_sets,
        stop_on_violation=not args.exhaust,
        max_depth=args.max_depth,
    )
    summary = run(bound, settings)
    print(f"check: {summary['verdict']}")
    print(
        f"check: {summary['states']:,} states, {summary['transitions']:,} transitions in "
        f"{summary['seconds']} s ({summary['states_per_second']:,}/s)"
    )
    for item in summary["counterexamples"]:
        print(f"check: {item['property']} at depth {item['depth']}: {item['replay']}")
    print(f"check: report {where.show('report.html')}")
    if not summary["passed"]:
        raise CommandError(CliReason.FUZZ_FAILED, summary["verdict"])
    return Exit.OK
