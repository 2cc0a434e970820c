"""The built-in adapter: the protocol's operations answered by handler tables, one per design.

Each registered design gives the handler of each of its operations over `spec` or `reference`
(`registry.Design.handlers`); `builtin:spec` and `builtin:reference` are `Adapter`s over the
tables of every design. Run as a process it speaks the JSON-lines protocol on stdin/stdout:

    python -m swarmconf.conformance.adapter --impl spec
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Mapping
from typing import Any

from swarmconf import __version__
from swarmconf.conformance.protocol import PROTOCOL_VERSION
from swarmconf.conformance.registry import Handler, Request, Result, all_profiles, designs

IMPLEMENTATIONS = ("spec", "reference")
"""The implementations a built-in adapter runs on: this project's spec, or its reference."""


class Refusal(Exception):
    """A handler refuses the input: its reason code, and the state the refusal leaves where the
    operation describes one."""

    def __init__(self, reason: str, result: Result | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.result = result

    def answer(self) -> Result:
        answer: Result = {"reason": self.reason}
        if self.result is not None:
            answer["result"] = self.result
        return answer


class Adapter:
    """Answers protocol requests with a handler per operation."""

    def __init__(
        self,
        name: str,
        handlers: Mapping[str, Handler],
        profiles: Iterable[str] = (),
        quirks: Iterable[str] = (),
    ) -> None:
        self.name = name
        self.handlers = dict(handlers)
        self.profiles = list(profiles)
        self.quirks = list(quirks)

    def handle(self, request: Request) -> Result:
        """One response: `result`, `reason` (a refusal), or `errored` (a bug in the client)."""
        op = request.get("op")
        if op == "hello":
            return {
                "name": self.name,
                "version": __version__,
                "language": "python",
                "protocol": PROTOCOL_VERSION,
                "ops": sorted(self.handlers),
                "profiles": self.profiles,
                "quirks": self.quirks,
            }
        handler = self.handlers.get(op) if isinstance(op, str) else None
        if handler is None:
            return {"skipped": f"unknown op {op!r}"}
        try:
            return {"result": handler(request)}
        except Refusal as refusal:
            return refusal.answer()
        except Exception as error:
            reason = getattr(error, "reason", None)
            if isinstance(reason, str):
                return {"reason": str(reason)}
            import traceback  # only on a bug: an adapter process starts without it

            return {"errored": "".join(traceback.format_exception(error))}


def builtin_adapter(impl: str) -> Adapter:
    """`Adapter` over every design's handlers for `impl` (`spec` or `reference`)."""
    if impl not in IMPLEMENTATIONS:
        raise ValueError(f"no built-in implementation {impl!r}: use {', '.join(IMPLEMENTATIONS)}")
    handlers: dict[str, Handler] = {}
    for design in designs().values():
        handlers.update(design.handlers(impl))
    return Adapter(f"swarmconf.{impl}", handlers, all_profiles())


def serve(adapter: Any, stdin: Any = sys.stdin, stdout: Any = sys.stdout) -> None:
    """Answer JSON-lines requests with `adapter.handle` until `stop` or end of input."""
    for line in stdin:
        request = json.loads(line)
        if request.get("op") == "stop":
            return
        response = {"id": request.get("id"), **adapter.handle(request)}
        stdout.write(json.dumps(response) + "\n")
        stdout.flush()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="The built-in conformance adapter.")
    parser.add_argument("--impl", choices=IMPLEMENTATIONS, default="spec")
    args = parser.parse_args(argv)
    serve(builtin_adapter(args.impl))


if __name__ == "__main__":
    main()
