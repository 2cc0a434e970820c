"""The `swarmconf` command line: one argparse tree, one command group per part.

A command group is a module named `cli` at the top of a role folder (`conformance/cli.py`) or of
a design's subpackage in it (`reference/kvgossip/cli.py`): found there, never listed here. Each
exposes `register(subparsers)`, adding its commands with a `handler` default; the groups import
`swarmconf.cliutil` for the shared conventions, never this module. A group imports its machinery
in its handlers, so building the whole tree for `--help` or for one command costs only the
argument definitions.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

from swarmconf import __version__
from swarmconf.cliutil import PROG, CliReason, Exit, Parser, error_line, meaning
from swarmconf.layout import ROLES


def group_names() -> list[str]:
    """The command groups' modules, in the order `--help` lists their commands: by role folder
    (lowest layer first), a role's own group before its designs' groups, designs by name."""
    found = []
    for role in ROLES:
        spec = importlib.util.find_spec(f"swarmconf.{role}")
        folders = spec.submodule_search_locations if spec is not None else None
        for folder in map(Path, folders or []):
            if (folder / "cli.py").is_file():
                found.append(f"swarmconf.{role}.cli")
            for design in sorted(d.name for d in folder.iterdir() if (d / "cli.py").is_file()):
                found.append(f"swarmconf.{role}.{design}.cli")
    return found


def groups() -> list[ModuleType]:
    return [importlib.import_module(name) for name in group_names()]


def exit_statuses() -> str:
    """The exit-status table every command follows, for `--help`."""
    lines = ["exit statuses (every command):"]
    for status in Exit:
        text = f"  {status.value:<4} {meaning(status)}"
        lines.append(textwrap.fill(text, width=96, subsequent_indent=" " * 7))
    return "\n".join(lines)


VERSION = f"{PROG} {__version__}"
EXAMPLES = (
    "swarmconf merge a.bin b.bin -o merged.bin",
    "swarmconf kv status --data node-a",
    "swarmconf conformance run --client builtin:reference",
    "swarmconf fuzz --interleavings 2000",
    "swarmconf COMMAND --help",
)


class _TopParser(Parser):
    """The top of the tree, whose `--help` ends with the exit statuses and examples: written
    when help is asked for (reading the statuses' meanings costs more than the rest of a start)."""

    def format_help(self) -> str:
        if self.epilog is None:
            lines = "\n".join(f"  {line}" for line in EXAMPLES)
            self.epilog = f"{exit_statuses()}\n\nexamples:\n{lines}"
        return super().format_help()


def build_parser() -> argparse.ArgumentParser:
    parser = _TopParser(
        prog=PROG,
        description="Reference tools for the config-merge and K/V Gossip designs. Every refusal"
        f" is one line on stderr, `{error_line('REASON', 'detail')}`, and a status below.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=VERSION)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for group in groups():
        group.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    if list(sys.argv[1:] if argv is None else argv) == ["--version"]:
        print(VERSION)  # as argparse would, without loading any command group
        return Exit.OK
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
