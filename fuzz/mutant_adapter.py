"""A mutant as a conformance adapter process: the spec with one rule broken.

    python -m swarmconf.fuzz.mutant_adapter ties
    python -m swarmconf.fuzz.mutant_adapter unbound-chain

Every campaign that registers a `mutant_adapter` (see `campaigns`) offers its mutants here: a
merge that breaks one rule, or one spec function swapped for the whole process. Differential
campaigns and the conformance runner are proven on them: each mutant must be caught through the
adapter protocol as it is caught in-process.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from swarmconf.conformance.adapter import serve

from .campaigns import campaigns

if TYPE_CHECKING:
    from swarmconf.conformance.adapter import Adapter


def mutant_adapters() -> dict[str, Callable[[str], AbstractContextManager[Adapter]]]:
    """Each mutant served as an adapter, by name, to the hook of the campaign it breaks."""
    return {
        name: campaign.mutant_adapter
        for campaign in campaigns()
        if campaign.mutant_adapter is not None
        for name in campaign.mutants()
    }


def main(argv: list[str] | None = None) -> None:
    adapters = mutant_adapters()
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("mutant", choices=sorted(adapters))
    name = parser.parse_args(argv).mutant
    with adapters[name](name) as adapter:
        serve(adapter)


if __name__ == "__main__":
    main()
