"""The `swarmconf` command line: one argparse tree, one sub-command group per part."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# Each module exposes `register(subparsers)`, adding its commands with a `handler` default.
COMMAND_MODULES: tuple[str, ...] = (
    "swarmconf.conformance.cli",
    "swarmconf.fuzz.cli",
    "swarmconf.reference.kvgossip.cli",
    "swarmconf.reference.configmerge.cli",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="swarmconf",
        description="Reference tools for the config-merge and K/V Gossip designs.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(sys.stderr)
        return 2
    return int(handler(args))


if __name__ == "__main__":
    sys.exit(main())
