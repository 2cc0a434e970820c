"""Mutants as swaps: a named spec function replaced for the duration of a block.

A mutant of either design is a table of the spec functions it replaces, by (module, name).
While it is active, every swarmconf module that bound the original gets the replacement, so
everything built on the spec (merges, records, sessions, simulations, vector runners) behaves
like the broken implementation, and the spec itself is never copied.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

Swaps = dict[tuple[ModuleType, str], Callable[..., Any]]
"""The spec functions a mutant replaces, by (module, name), and their replacements."""


@contextmanager
def swapped(swaps: Swaps) -> Iterator[None]:
    """Run the block with `swaps` in place; the originals come back afterwards, also on error."""
    undo: list[tuple[ModuleType, str, Any]] = []
    loaded = len(sys.modules)
    try:
        for (module, attr), replacement in swaps.items():
            original = getattr(module, attr)
            for name, bound in list(sys.modules.items()):
                if name.startswith("swarmconf.") and getattr(bound, attr, None) is original:
                    undo.append((bound, attr, original))
                    setattr(bound, attr, replacement)
        yield
    finally:
        for bound, attr, original in reversed(undo):
            setattr(bound, attr, original)
        if len(sys.modules) != loaded:
            _unbind_loaded_during(swaps)


def _unbind_loaded_during(swaps: Swaps) -> None:
    """Give the originals back to modules first loaded inside the block: they bound the
    replacements, and would keep them for the rest of the process."""
    for (module, attr), replacement in swaps.items():
        original = getattr(module, attr)
        for name, bound in list(sys.modules.items()):
            if name.startswith("swarmconf.") and getattr(bound, attr, None) is replacement:
                setattr(bound, attr, original)
