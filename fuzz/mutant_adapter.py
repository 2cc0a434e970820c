"""A config-merge mutant as a conformance adapter process: the spec with one merge rule broken.

    python -m swarmconf.fuzz.mutant_adapter ties

Differential campaigns are proven on it: each mutant must be caught through the adapter
protocol as it is caught in-process (`swarmconf.fuzz.configmerge.mutants`).
"""

from __future__ import annotations

import argparse
import types

from swarmconf.conformance.adapter import Adapter, serve
from swarmconf.spec import configmerge as spec

from .configmerge.mutants import MUTANTS, mutant_merge


def mutant_adapter(name: str) -> Adapter:
    module = types.ModuleType(spec.__name__)
    module.__dict__.update(vars(spec))
    module.merge = mutant_merge(name)  # type: ignore[attr-defined]
    return Adapter(module, f"swarmconf.spec+{name}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mutant", choices=sorted(MUTANTS))
    serve(mutant_adapter(parser.parse_args(argv).mutant))


if __name__ == "__main__":
    main()
