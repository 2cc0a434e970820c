"""`swarmconf conformance run` and `swarmconf vectors generate`: the command lines."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from swarmconf.conformance.client import ClientFailure, make_client
from swarmconf.conformance.configmerge import generate as generate_vectors
from swarmconf.conformance.configmerge.coverage import missing
from swarmconf.conformance.report import failure_lines, junit_xml, summary_lines
from swarmconf.conformance.runner import PASSED, run_cases
from swarmconf.conformance.vectorfile import load_cases

# The checked-in vectors, found next to this package in a source checkout.
DEFAULT_VECTORS = Path(__file__).resolve().parent.parent / "vectors" / "v1"


def register(subparsers: Any) -> None:
    """Add the `conformance` and `vectors` command groups."""
    vectors = subparsers.add_parser("vectors", help="generate the conformance vectors")
    vector_commands = vectors.add_subparsers(
        dest="vectors_command", metavar="COMMAND", required=True
    )
    generate = vector_commands.add_parser(
        "generate",
        help="rewrite the vector files from the spec",
        description="Rewrite every vector file, its schema and COVERAGE.md from"
        " swarmconf.spec; the output is the same bytes on every run.",
    )
    generate.add_argument("--out", type=Path, default=DEFAULT_VECTORS, help="vector directory")
    generate.set_defaults(handler=generate_command)

    group = subparsers.add_parser("conformance", help="run the conformance vectors on a client")
    commands = group.add_subparsers(dest="conformance_command", metavar="COMMAND", required=True)
    run = commands.add_parser(
        "run",
        help="run the vectors on a client",
        description="Start CLIENT once, send it every case over the JSON-lines adapter protocol"
        " and report where it disagrees with the vectors.",
    )
    run.add_argument(
        "--client",
        required=True,
        help="builtin:spec, builtin:reference, or the command line of an adapter process",
    )
    run.add_argument(
        "--category",
        action="append",
        default=[],
        help="run only this category (repeatable); default: all",
    )
    run.add_argument("--vectors", type=Path, default=DEFAULT_VECTORS, help="vector directory")
    run.add_argument("--junit", type=Path, help="write JUnit XML to this file")
    run.add_argument("--timeout", type=float, default=10.0, help="seconds per request")
    run.add_argument(
        "--lenient-reasons",
        action="store_true",
        help="accept any reason code for an invalid case",
    )
    run.add_argument(
        "--show", type=int, default=20, help="print details of at most this many failures"
    )
    run.set_defaults(handler=run_command)


def run_command(args: argparse.Namespace) -> int:
    try:
        cases = load_cases(args.vectors, args.category)
        client = make_client(args.client, args.timeout)
    except (OSError, ValueError) as error:
        print(f"swarmconf conformance: {error}", file=sys.stderr)
        return 2
    try:
        report = run_cases(client, cases, strict_reasons=not args.lenient_reasons)
    except ClientFailure as failure:
        print(f"swarmconf conformance: the client {failure}", file=sys.stderr)
        return 2
    failed = report.failed
    for outcome in failed[: args.show]:
        print("\n".join(failure_lines(outcome)), end="\n\n")
    if len(failed) > args.show:
        print(f"... and {len(failed) - args.show} more failures (see --show, --junit)\n")
    print("\n".join(summary_lines(report)))
    if args.junit is not None:
        args.junit.write_bytes(junit_xml(report))
    # A case the client skipped was never checked: that fails the run too.
    unchecked = [outcome for outcome in report.outcomes if outcome.status != PASSED]
    return 1 if unchecked else 0


def generate_command(args: argparse.Namespace) -> int:
    suites = generate_vectors(args.out)
    for suite in suites:
        print(f"{suite.category:<28} {len(suite.cases):>6} cases")
    print(f"{'total':<28} {sum(len(suite.cases) for suite in suites):>6} cases in {args.out}")
    gaps = missing(suites)
    if gaps:
        print(f"not covered by any case: {', '.join(gaps)}", file=sys.stderr)
        return 1
    return 0
