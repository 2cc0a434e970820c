"""The mergers a campaign runs and checks: `swarmconf.spec.configmerge`,
`swarmconf.reference.configmerge`, mutants.

Both libraries expose the same API (parse, merge, ConfigMessage, and what a push deletes:
obsolete_after_merge, obsolete_after_edit); the campaign runs clients on the *primary* one and
checks every distinct operation against the *checker* (P3).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from .mutants import MUTANTS, active

Merge = Callable[..., Any]


@dataclass(frozen=True)
class Implementation:
    name: str
    parse: Callable[..., Any]
    merge: Merge
    new: Callable[..., Any]
    obsolete_after_merge: Callable[..., list[bytes]]
    """The hashes a push of a merge's result deletes (D27)."""
    obsolete_after_edit: Callable[..., list[bytes]]
    """The hashes a push of an edit deletes (D27)."""
    merge_parsed: Merge | None = None
    """The merge of already parsed valid messages, when the library provides one."""


def load(name: str) -> Implementation | None:
    """`spec` or `reference`, or None when that library does not provide the API (yet)."""
    module = importlib.import_module(f"swarmconf.{name}.configmerge")
    if not all(hasattr(module, attr) for attr in ("parse", "merge", "ConfigMessage")):
        return None
    merge_parsed = getattr(module, "merge_parsed", None)
    return Implementation(
        name,
        module.parse,
        module.merge,
        module.ConfigMessage.new,
        module.obsolete_after_merge,
        module.obsolete_after_edit,
        merge_parsed,
    )


def late(module: ModuleType, name: str) -> Callable[..., Any]:
    """`module.name`, looked up at each call: a mutant that swaps that very function (rather
    than one it calls) then takes effect."""

    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(module, name)(*args, **kwargs)

    return call


def mutated(mutant: str, function: Callable[..., Any]) -> Callable[..., Any]:
    """`function` run with `mutant`'s swap in place for the length of each call."""

    def call(*args: Any, **kwargs: Any) -> Any:
        with active(mutant):
            return function(*args, **kwargs)

    return call


def choose(
    mutant: str | None = None, differential: bool = True
) -> tuple[Implementation, Implementation | None]:
    """(primary, checker) for a campaign.

    The reference runs the clients through its merge of already parsed messages (each
    distinct message parsed once per scenario); measured, about twice the rate of the spec in
    that role. The spec checks a sample of the distinct operations (P3). A mutant runs the
    spec's merge with one function swapped and is checked against the intact spec, on every
    distinct operation.
    """
    spec = load("spec")
    assert spec is not None
    library = importlib.import_module("swarmconf.spec.configmerge")
    if mutant is not None:
        if mutant not in MUTANTS:
            raise ValueError(f"unknown mutant {mutant!r}; known: {', '.join(MUTANTS)}")
        assert spec.merge_parsed is not None
        broken = Implementation(
            f"spec+{mutant}",
            spec.parse,
            mutated(mutant, spec.merge),
            spec.new,
            mutated(mutant, late(library, "obsolete_after_merge")),
            mutated(mutant, late(library, "obsolete_after_edit")),
            mutated(mutant, spec.merge_parsed),
        )
        return broken, spec if differential else None
    reference = load("reference")
    assert reference is not None
    return reference, spec if differential else None
