"""The adapter protocol's operations: the shape of one operation and the kinds of its fields.

Each design declares its operations as a table of `Op` (its `ops` module) and registers it
(`registry.all_ops()` joins them); the vector schema, the runner and the built-in adapter are
derived from those tables, so a field is declared once. Field kinds say how a value travels in
JSON and how failures are shown:

- `int`: a JSON integer; `bool`: a JSON boolean; `str`: a JSON string;
- `hex`: raw bytes as lowercase hex; `hex?`: the same, or null;
- `bt`: bt-encoded bytes as lowercase hex (a message, data, a diff, lagged entries);
- `btlist`: a JSON list of `bt` values; `hexlist`: a JSON list of `hex` values;
- `json`: any JSON value (lists and objects, described in PROTOCOL.md).
"""

from __future__ import annotations

from dataclasses import dataclass

PROTOCOL_VERSION = 1
HUNG = "hung"
"""The answer of an adapter that knows its client never answers a request (PROTOCOL.md)."""

FieldKinds = dict[str, str]


@dataclass(frozen=True)
class Op:
    """One operation: required and optional request fields, and the result's fields."""

    name: str
    summary: str
    required: FieldKinds
    optional: FieldKinds
    result: FieldKinds

    def request_kinds(self) -> FieldKinds:
        return {**self.required, **self.optional}
