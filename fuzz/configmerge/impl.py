"""The mergers a campaign runs and checks: `swarmconf.spec.configmerge`,
`swarmconf.reference.configmerge`, mutants.

Both libraries expose the same API (parse, merge, ConfigMessage); the campaign runs clients on
the *primary* one and checks every distinct operation against the *checker* (P3).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .mutants import MUTANTS, mutant_merge, parsed_merger

Merge = Callable[..., Any]


@dataclass(frozen=True)
class Implementation:
    name: str
    parse: Callable[..., Any]
    merge: Merge
    new: Callable[..., Any]
    merge_parsed: Merge | None = None
    """The merge of already parsed valid messages, when the library's steps allow it."""


def load(name: str) -> Implementation | None:
    """`spec` or `reference`, or None when that library does not provide the API (yet)."""
    module = importlib.import_module(f"swarmconf.{name}.configmerge")
    if not all(hasattr(module, attr) for attr in ("parse", "merge", "ConfigMessage")):
        return None
    merge_parsed = parsed_merger(None) if name == "spec" else module.merge_parsed
    return Implementation(name, module.parse, module.merge, module.ConfigMessage.new, merge_parsed)


def choose(
    mutant: str | None = None, differential: bool = True
) -> tuple[Implementation, Implementation | None]:
    """(primary, checker) for a campaign.

    The reference runs the clients through its merge of already parsed messages (each
    distinct message parsed once per scenario); measured, about twice the rate of the spec in
    that role. The spec checks a sample of the distinct operations (P3). A mutant replaces the
    spec's merge and is checked against the intact spec it was derived from, on every distinct
    operation.
    """
    spec = load("spec")
    assert spec is not None
    if mutant is not None:
        if mutant not in MUTANTS:
            raise ValueError(f"unknown mutant {mutant!r}; known: {', '.join(MUTANTS)}")
        broken = Implementation(
            f"spec+{mutant}", spec.parse, mutant_merge(mutant), spec.new, parsed_merger(mutant)
        )
        return broken, spec if differential else None
    reference = load("reference")
    assert reference is not None
    return reference, spec if differential else None
