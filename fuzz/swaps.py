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


Binding = tuple[ModuleType, str, Any, Callable[..., Any]]
"""A module's name for a spec function: (module, name, original, replacement)."""
_BINDINGS: dict[int, tuple[int, Swaps, list[Binding]]] = {}
"""The bindings of each table of swaps, found once per number of loaded modules."""


def bindings(swaps: Swaps) -> list[Binding]:
    """Every swarmconf module's name bound to an original that `swaps` replaces. Found again
    when a module was loaded since (a campaign swaps at every step of a client)."""
    loaded = len(sys.modules)
    found = _BINDINGS.get(id(swaps))
    if found is not None and found[0] == loaded and found[1] is swaps:
        return found[2]
    result: list[Binding] = []
    for (module, attr), replacement in swaps.items():
        original = getattr(module, attr)
        for name, bound in list(sys.modules.items()):
            if name.startswith("swarmconf.") and getattr(bound, attr, None) is original:
                result.append((bound, attr, original, replacement))
    _BINDINGS[id(swaps)] = (loaded, swaps, result)
    return result


@contextmanager
def swapped(swaps: Swaps) -> Iterator[None]:
    """Run the block with `swaps` in place; the originals come back afterwards, also on error."""
    undo: list[tuple[ModuleType, str, Any]] = []
    loaded = len(sys.modules)
    try:
        for bound, attr, original, replacement in bindings(swaps):
            if getattr(bound, attr, None) is original:
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
