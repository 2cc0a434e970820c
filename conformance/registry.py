"""The designs this role serves, each registered under one entry-point group.

A design provides one `Design` record (its vector suites, the operations and handlers of the
built-in adapter, the reason codes and rules its coverage table counts) and names it in
`pyproject.toml`:

    [project.entry-points."swarmconf.conformance"]
    name = "package.module:DESIGN"

The shared modules ask this registry and never name a design; adding a design, a suite or an
operation touches only the design's own package.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from swarmconf.conformance.protocol import Op

if TYPE_CHECKING:
    from swarmconf.conformance.vectors import Suite

ENTRY_POINT_GROUP = "swarmconf.conformance"

Request = dict[str, Any]
Result = dict[str, Any]
Handler = Callable[[Request], Result]


@dataclass(frozen=True)
class Design:
    """What one design registers with the conformance role."""

    name: str
    """The `design` of its vector files' headers, and its `--design` choice."""
    prefix: str
    """What its suite ids start with: a suite's id (its file's stem) is the prefix and the name."""
    ops: Mapping[str, Op]
    """Its operations of the adapter protocol."""
    suites: Callable[[], list[Suite]]
    """Builds every suite of its vectors, in file order, with the answers of its spec."""
    handlers: Callable[[str], Mapping[str, Handler]]
    """The built-in adapter's handler per operation, over `spec` or `reference`."""
    reasons: tuple[str, ...]
    """The reason codes its coverage table counts."""
    rules: Callable[[], list[str]]
    """The rule ids its coverage table counts, in order (its rule registry's ids)."""
    unreachable: Mapping[str, str] = field(default_factory=dict)
    """Reason codes and rules no vector can show, and why."""
    profiles: tuple[str, ...] = ()
    """The encryption profiles its operations take (`profile`), listed by `hello`."""

    def suite_id(self, name: str) -> str:
        return self.prefix + name


@functools.cache
def designs() -> dict[str, Design]:
    """Every registered design, by name, in name order."""
    from importlib.metadata import entry_points  # costly to import: only when asked

    found: dict[str, Design] = {}
    for point in entry_points(group=ENTRY_POINT_GROUP):
        design = point.load()
        if not isinstance(design, Design) or design.name != point.name:
            raise TypeError(f"entry point {point.value} is not the Design named {point.name}")
        found[design.name] = design
    return dict(sorted(found.items()))


def design_of(suite_id: str) -> Design:
    """The design a suite id belongs to: the one with the longest prefix it starts with."""
    by_prefix = sorted(designs().values(), key=lambda design: -len(design.prefix))
    for design in by_prefix:
        if suite_id.startswith(design.prefix):
            return design
    raise ValueError(f"no design owns suite {suite_id!r}")


@functools.cache
def all_ops() -> dict[str, Op]:
    """The operations of every design; two designs never declare one name."""
    ops: dict[str, Op] = {}
    for design in designs().values():
        clash = sorted(set(ops) & set(design.ops))
        if clash:
            raise ValueError(f"{design.name} declares operations already declared: {clash}")
        ops.update(design.ops)
    return ops


def all_profiles() -> list[str]:
    return [profile for design in designs().values() for profile in design.profiles]
