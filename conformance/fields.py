"""From an operation's fields to the schema parts of its vector groups, for every design.

A field's JSON Schema comes from its shape in that operation where one is given (`shapes`,
result fields as `result.<name>`), else from its name where the design's names fix it
(`by_name`: `rootKey` is 32 bytes of hex), else from its protocol kind (`by_kind`). The group
fields (`hoisted`) are taken out of the input into the group.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from swarmconf.conformance.protocol import FieldKinds, Op
from swarmconf.conformance.vectors import GroupKind, Json, obj


@dataclass(frozen=True)
class SchemaTable:
    """How one design's field kinds and names become JSON Schemas."""

    by_kind: Mapping[str, Json]
    hoisted: tuple[str, ...] = ()
    by_name: Mapping[str, Json] = field(default_factory=dict)
    shapes: Mapping[tuple[str, str], Json] = field(default_factory=dict)
    expected: Mapping[str, Json] = field(default_factory=dict)
    """Whole result schemas of operations whose result has more than one shape."""

    def schemas(self, op: str, fields: FieldKinds, part: str = "") -> dict[str, Json]:
        """Each field's schema: its shape in `op`, else by its name, else by its kind."""
        found = {}
        for name, kind in fields.items():
            shape = self.shapes.get((op, part + name))
            if shape is None:
                by_name = kind == "json" or name in self.by_name
                shape = self.by_name.get(name) if by_name else self.by_kind[kind]
            if shape is None:
                raise KeyError(f"{op}: no schema for the json field {name}")
            found[name] = shape
        return found

    def group_kind(self, op: Op) -> GroupKind:
        """The schema parts of `op`'s groups: hoisted fields, the input, the result."""
        request = self.schemas(op.name, op.request_kinds())
        params = {name: request.pop(name) for name in self.hoisted if name in request}
        expected = self.expected.get(op.name) or obj(self.schemas(op.name, op.result, "result."))
        return GroupKind(params=params, input=obj(request, optional=op.optional), expected=expected)

    def kinds(self, ops: Mapping[str, Op]) -> dict[str, GroupKind]:
        return {name: self.group_kind(op) for name, op in ops.items()}
