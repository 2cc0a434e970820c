"""A mutant as a conformance adapter process: the spec with one rule broken.

    python -m swarmconf.fuzz.mutant_adapter ties
    python -m swarmconf.fuzz.mutant_adapter unbound-chain

A config-merge mutant (`swarmconf.fuzz.configmerge.mutants`) breaks the merge; a K/V Gossip
mutant (`swarmconf.fuzz.kvgossip.mutants`, the Go holes) swaps one spec function for the whole
process. Differential campaigns and the conformance runner are proven on them: each mutant must
be caught through the adapter protocol as it is caught in-process.
"""

from __future__ import annotations

import argparse
import types

from swarmconf.conformance.adapter import Adapter, builtin_adapter, serve
from swarmconf.conformance.configmerge.adapter import ApiAdapter
from swarmconf.spec import configmerge as spec

from .configmerge.impl import mutated
from .configmerge.mutants import MUTANTS
from .kvgossip.mutants import MUTANTS as KV_MUTANTS
from .kvgossip.mutants import active


def spec_adapter(name: str) -> Adapter:
    """The built-in spec adapter, named after the mutant it runs with."""
    adapter = builtin_adapter("spec")
    adapter.name = f"swarmconf.spec+{name}"
    return adapter


def mutant_adapter(name: str) -> Adapter:
    module = types.ModuleType(spec.__name__)
    module.__dict__.update(vars(spec))
    module.merge = mutated(name, spec.merge)  # type: ignore[attr-defined]
    adapter = spec_adapter(name)
    adapter.handlers.update(ApiAdapter(module, adapter.name).handlers)
    return adapter


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mutant", choices=sorted({*MUTANTS, *KV_MUTANTS}))
    name = parser.parse_args(argv).mutant
    if name in KV_MUTANTS:
        with active(name):
            serve(spec_adapter(name))
    else:
        serve(mutant_adapter(name))


if __name__ == "__main__":
    main()
