"""The deployed client's emulation as a client that really dies: a test client for campaigns.

    python -m swarmconf.fuzz.configmerge.aborting_adapter [--abort-on X4 ...]

It declares the emulation's quirks and answers as the emulation does, except where the
emulation says the deployed client stops: on an abort it exits at once with status 134, as the
deployed client's assertion does, and where it loops forever it really loops (burning CPU, never
answering), as the deployed client does, until the campaign kills it. `--abort-on QUIRK` makes
it exit on every request where that quirk fires too (as a build asserting where the emulation
answers would): deaths the campaign reports as C2, and a client that dies often.
"""

from __future__ import annotations

import argparse
import os

from swarmconf.conformance.adapter import serve
from swarmconf.conformance.configmerge.deployed import ABORT_STATUS, HANG, DeployedAdapter
from swarmconf.conformance.registry import Request, Result


class AbortingAdapter:
    """The emulation, dying where the deployed client dies (and where `abort_on` fires)."""

    def __init__(self, abort_on: frozenset[str] = frozenset()) -> None:
        self.emulation = DeployedAdapter()
        self.abort_on = abort_on

    def handle(self, request: Request) -> Result:
        if request.get("op") == "hello":
            return self.emulation.handle(request)
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
    serve(AbortingAdapter(frozenset(parser.parse_args(argv).abort_on)))


if __name__ == "__main__":
    main()
