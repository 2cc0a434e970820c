"""The `swarmconf` command line: one argparse tree, one command group per part.

Each group module exposes `register(subparsers)`, adding its commands with a `handler` default;
the groups import `swarmconf.cliutil` for the shared conventions, never this module.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Callable, Sequence
from typing import Any

from swarmconf import __version__
from swarmconf.cliutil import PROG, CliReason, Exit, Parser, error_line, meaning
from swarmconf.conformance import cli as conformance_cli
from swarmconf.fuzz import cli as fuzz_cli
from swarmconf.reference.configmerge import cli as configmerge_cli
from swarmconf.reference.kvgossip import cli as kvgossip_cli

GROUPS: tuple[Callable[[Any], None], ...] = (
    configmerge_cli.register,
    kvgossip_cli.register,
    conformance_cli.register,
    fuzz_cli.register,
)
"""The command groups, in the order `--help` lists their commands."""


def exit_statuses() -> str:
    """The exit-status table every command follows, for `--help`."""
    lines = ["exit statuses (every command):"]
    for status in Exit:
        text = f"  {status.value:<4} {meaning(status)}"
        lines.append(textwrap.fill(text, width=96, subsequent_indent=" " * 7))
    return "\n".join(lines)


EXAMPLES = (
    "swarmconf merge a.bin b.bin -o merged.bin",
    "swarmconf kv status --data node-a",
    "swarmconf conformance run --client builtin:reference",
    "swarmconf fuzz --interleavings 2000",
    "swarmconf COMMAND --help",
)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog=PROG,
        description="Reference tools for the config-merge and K/V Gossip designs. Every refusal"
        f" is one line on stderr, `{error_line('REASON', 'detail')}`, and a status below.",
        epilog=exit_statuses() + "\n\nexamples:\n" + "\n".join(f"  {line}" for line in EXAMPLES),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for register in GROUPS:
        register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_usage(sys.stderr)
        print(error_line(CliReason.USAGE, "choose a COMMAND (see --help)"), file=sys.stderr)
        return Exit.USAGE
    return int(handler(args))


if __name__ == "__main__":
    sys.exit(main())
