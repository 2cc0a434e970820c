"""`swarmconf conformance run` and `swarmconf vectors generate`: the command lines (the runner
and the generator are imported when their command runs, not when the command line is built)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from swarmconf.cliutil import (
    PROG,
    CliReason,
    CommandError,
    Exit,
    examples,
    guarded,
    output_dir,
    write_file,
)

GENERATE_EXAMPLE = "swarmconf vectors generate -o my-vectors"
RUN_EXAMPLES = (
    "swarmconf conformance run --client builtin:reference",
    "swarmconf conformance run --client 'node my-adapter.js' --suite merges --junit out.xml",
    "swarmconf conformance run --client ./adapter --suite merges --suite diffs --json report.json",
    "swarmconf conformance run --client ./adapter --lenient-reasons --show 5",
)


def register(subparsers: Any) -> None:
    """Add the `conformance` and `vectors` command groups."""
    summary = "generate the conformance vectors"
    vectors = subparsers.add_parser(
        "vectors", help=summary, description=summary, **examples(GENERATE_EXAMPLE)
    )
    vector_commands = vectors.add_subparsers(
        dest="vectors_command", metavar="COMMAND", required=True
    )
    generate = vector_commands.add_parser(
        "generate",
        help="rewrite the vector files from the spec",
        description="Rewrite every vector file, its schema and COVERAGE.md from"
        " swarmconf.spec; the output is the same bytes on every run.",
        **examples(GENERATE_EXAMPLE),
    )
    generate.add_argument(
        "-o", "--output", type=Path, required=True, metavar="DIR", help="vector directory"
    )
    generate.set_defaults(handler=guarded(generate_command))

    summary = "run the conformance vectors on a client"
    group = subparsers.add_parser(
        "conformance", help=summary, description=summary, **examples(*RUN_EXAMPLES)
    )
    commands = group.add_subparsers(dest="conformance_command", metavar="COMMAND", required=True)
    run = commands.add_parser(
        "run",
        help="run the vectors on a client",
        description="Start CLIENT once, send it every case over the JSON-lines adapter protocol"
        " and report where it disagrees with the vectors.",
        **examples(*RUN_EXAMPLES),
    )
    run.add_argument(
        "--client",
        required=True,
        help="builtin:spec, builtin:reference, or the command line of an adapter process",
    )
    run.add_argument(
        "--suite",
        action="append",
        default=[],
        metavar="ID",
        help="run only this suite, by the id its file is named after (repeatable); default: all",
    )
    # The option's former name, still accepted.
    run.add_argument("--category", action="append", dest="suite", help=argparse.SUPPRESS)
    run.add_argument(
        "--design",
        action="append",
        default=[],
        metavar="NAME",
        help="run only this design's vectors (repeatable); default: every design's",
    )
    run.add_argument(
        "--vectors",
        type=Path,
        help="vector directory; default: those of the installed swarmconf-vectors",
    )
    run.add_argument("--junit", type=Path, help="write JUnit XML to this file")
    run.add_argument("--json", type=Path, help="write every case's grade as JSON to this file")
    run.add_argument("--timeout", type=float, default=10.0, help="seconds per request")
    run.add_argument(
        "--hang-timeout",
        type=float,
        default=2.0,
        help="seconds to wait on a case where a declared quirk makes the deployed client hang",
    )
    run.add_argument(
        "--lenient-reasons",
        action="store_true",
        help="accept any reason code for an invalid case",
    )
    run.add_argument(
        "--show", type=int, default=20, help="print details of at most this many failures"
    )
    run.set_defaults(handler=guarded(run_command))


def run_command(args: argparse.Namespace) -> int:
    from .client import ClientFailure, make_client
    from .registry import designs
    from .report import failure_lines, json_report, junit_xml, summary_lines
    from .runner import run_cases
    from .vectors import bundled_vectors, load_cases, vectors_version_mismatch

    unknown = sorted(set(args.design) - set(designs()))
    if unknown:
        detail = f"unknown designs {unknown}: use {' or '.join(designs())}"
        raise CommandError(CliReason.BAD_VECTORS, detail, Exit.USAGE)
    try:
        vectors = bundled_vectors() if args.vectors is None else args.vectors
        cases = load_cases(vectors, args.suite, args.design)
    except (OSError, ValueError) as error:
        raise CommandError(CliReason.BAD_VECTORS, str(error), Exit.USAGE) from error
    mismatch = vectors_version_mismatch() if args.vectors is None else None
    if mismatch is not None:
        print(f"{PROG}: warning: {mismatch}", file=sys.stderr)
    try:
        client = make_client(args.client, args.timeout)
    except (OSError, ValueError) as error:
        raise CommandError(CliReason.BAD_CLIENT, str(error), Exit.USAGE) from error
    try:
        report = run_cases(
            client,
            cases,
            strict_reasons=not args.lenient_reasons,
            hang_timeout=args.hang_timeout,
        )
    except ClientFailure as failure:
        detail = f"the client {failure}"
        raise CommandError(CliReason.CLIENT_FAILED, detail, Exit.UNAVAILABLE) from failure
    failed = report.failed
    for outcome in failed[: args.show]:
        print("\n".join(failure_lines(outcome)), end="\n\n")
    if len(failed) > args.show:
        print(f"... and {len(failed) - args.show} more failures (see --show, --junit)\n")
    print("\n".join(summary_lines(report)))
    if args.junit is not None:
        write_file(str(args.junit), junit_xml(report))
    if args.json is not None:
        write_file(str(args.json), json_report(report))
    # A case the client skipped was never checked: that fails the run too, as does a run that
    # checked nothing.
    if not report.ok:
        totals = report.totals()
        if totals["failed"] or totals["skipped"]:
            detail = f"{totals['failed']} failed and {totals['skipped']} skipped"
        else:
            detail = "no case was checked: the client supports none of them"
        raise CommandError(
            CliReason.CONFORMANCE_FAILED, f"{detail} of {len(report.outcomes)} cases"
        )
    return Exit.OK


def generate_command(args: argparse.Namespace) -> int:
    from .coverage import missing
    from .generate import generate

    built = generate(output_dir(args.output))
    suites = [suite for _, design_suites in built.values() for suite in design_suites]
    for suite in suites:
        print(f"{suite.id:<28} {len(suite.cases):>6} cases")
    print(f"{'total':<28} {sum(len(suite.cases) for suite in suites):>6} cases in {args.output}")
    gaps = missing(built)
    if gaps:
        raise CommandError(CliReason.COVERAGE_GAP, f"not covered by any case: {', '.join(gaps)}")
    return Exit.OK
