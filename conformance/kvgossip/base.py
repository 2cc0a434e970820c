"""Building K/V Gossip vector files in the one vector format (`swarmconf.conformance.vectors`).

Each suite module defines its flags; the schema parts of its case types come from the
operations' fields (`kinds.KINDS`). `add` runs a case's
input through the spec (`runner.run`) and records the spec's verdict, checking it against what
the case was written to show. Rules cite sections of kv-gossip.md (`design:`), the notes
(`notes:`), the table of Go holes (`row:`), the attacks (`attack:`) and the sync decisions
(`sync:K<n>`).
"""

from __future__ import annotations

from typing import Any

from swarmconf.conformance import vectors
from swarmconf.conformance.vectors import HEX, HEX32, Flag, Group, GroupKind, Json, hexlist, obj

from . import NAME, PREFIX
from .kinds import KINDS
from .runner import op_name, run

__all__ = ["HEX", "HEX32", "Flag", "Group", "GroupKind", "Json", "Suite", "add", "hexlist", "obj"]

RULE_PATTERN = (
    r"^(design:[a-z-]+|notes:[1-7](\.[1-9])?|row:[1-9][0-9]?|attack:[1-9][0-9]?|sync:K[1-9][0-9]?)$"
)


class Suite(vectors.Suite):
    """A K/V Gossip suite: its groups are named by the design's case types (`grant-for-key`),
    each the protocol operation `kv_<type>` (`kv_grant_for_key`)."""

    def __init__(self, name: str, header: list[str], flags: dict[str, Flag]) -> None:
        super().__init__(
            NAME, name, " ".join(header), flags, KINDS, rule_pattern=RULE_PATTERN, prefix=PREFIX
        )

    def group(self, type_: str, **params: Any) -> Group:
        return super().group(op_name(type_), **params)


class Mismatch(AssertionError):
    """The spec's verdict on a generated case differs from what the case was written to show."""


def add(
    suite: Suite,
    group: Group,
    name: str,
    comment: str,
    *,
    flags: list[str],
    rules: list[str],
    input: Json,
    want: str,
    reason: str | None = None,
    strict: bool = True,
) -> None:
    """Run `input` through the spec and record the case; in strict mode check the intent.

    `want` and `reason` are what the case was written to show. Strict generation refuses any
    difference; non-strict generation (used to regenerate under a mutant) records the spec's
    verdict as it is.
    """
    got = run(group.type, group.params, input)
    if strict and (got.result, got.reason) != (want, reason):
        raise Mismatch(f"{suite.name}/{name}: spec says {got.result} {got.reason}")
    suite.case(
        group,
        name,
        comment,
        flags=flags,
        rules=rules,
        input=input,
        expected=got.expected,
        result=got.result,
        reason=got.reason,
    )
