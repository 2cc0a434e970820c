"""A module first imported while a mutant is active gets the spec back when the block ends."""

import importlib
import sys

from swarmconf.fuzz.kvgossip.mutants import MUTANTS, active
from swarmconf.spec.kvgossip import treehash

LATE = "swarmconf.conformance.kvgossip.runner"


def test_a_module_loaded_under_a_mutant_is_restored() -> None:
    earlier = sys.modules.pop(LATE, None)
    ((_, replacement),) = MUTANTS["key-blind-tree-hash"].items()
    try:
        with active("key-blind-tree-hash"):
            late = importlib.import_module(LATE)
            assert late.tree_hash_of is replacement
        assert late.tree_hash_of is treehash.tree_hash_of
    finally:
        if earlier is not None:
            sys.modules[LATE] = earlier
