"""The deployed client's emulation as a client that really dies: a test client for campaigns.

    python -m swarmconf.fuzz.configmerge.aborting_adapter [--abort-on X4 ...] [--undeclared X3 ...]

It declares the emulation's quirks and answers as the emulation does, except where the
emulation says the deployed client stops: on an abort it exits at once with status 134, as the
deployed client's assertion does, and where it loops forever it really loops (burning CPU, never
answering), as the deployed client does, until the campaign kills it. `--abort-on QUIRK` makes
it exit on every request where that quirk fires too (as a build asserting where the emulation
answers would): deaths the campaign reports as C2, and a client that dies often.
`--undeclared QUIRK` leaves that quirk out of `hello` and behaves as before: `--undeclared X3`
is a client that spins where the deployed client loops without saying it may, hangs that no
campaign can predict.
"""

from __future__ import annotations

import argparse
import os

from swarmconf.conformance.adapter import serve
from swarmconf.conformance.configmerge.deployed import ABORT_STATUS, HANG, DeployedAdapter
from swarmconf.conformance.registry import Request, Result


class AbortingAdapter:
    """The emulation, dying where the deployed client dies (and where `abort_on` fires), its
    `undeclared` quirks left out of `hello`."""

    def __init__(
        self, abort_on: frozenset[str] = frozenset(), undeclared: frozenset[str] = frozenset()
    ) -> None:
        self.emulation = DeployedAdapter()
        self.abort_on = abort_on
        self.undeclared = undeclared

    def handle(self, request: Request) -> Result:
        if request.get("op") == "hello":
            hello = self.emulation.handle(request)
            return {**hello, "quirks": [q for q in hello["quirks"] if q not in self.undeclared]}
        emulated = self.emulation.emulate(dict(request))
        stop = emulated.stop
        if stop is not None and stop.result == HANG:
            loop_forever()
        if stop is not None or emulated.fired & self.abort_on or emulated.answer is None:
            os._exit(ABORT_STATUS)
        return emulated.answer


def loop_forever() -> None:
    """Spin, as the deployed client's endless loop does."""
    while True:
        pass


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--abort-on", action="append", default=[], metavar="QUIRK")
    parser.add_argument("--undeclared", action="append", default=[], metavar="QUIRK")
    args = parser.parse_args(argv)
    serve(AbortingAdapter(frozenset(args.abort_on), frozenset(args.undeclared)))


if __name__ == "__main__":
    main()
