"""The schema parts of every K/V operation, derived from its fields in `ops.OPS`.

A field's JSON Schema comes from its name where the name fixes it (`rootKey` is 32 bytes of
hex, `revokedIds` a list of ids), from its protocol kind otherwise, and for the `json` fields
whose shape depends on the operation, from `SHAPES`; the group fields are `ops.HOISTED`.
"""

from __future__ import annotations

from swarmconf.conformance.protocol import FieldKinds
from swarmconf.conformance.vectors import HEX, HEX32, GroupKind, Json, hexlist, obj

from .ops import HOISTED, OPS

INTEGER: Json = {"type": "integer"}
NULLABLE_STRING: Json = {"type": ["string", "null"]}
ROLE: Json = {"enum": ["initiator", "responder"]}
RECORD_HASHES: Json = {"type": "object", "additionalProperties": HEX32}
ITEMS: Json = {"type": "array", "items": obj({"ts": INTEGER, "id": HEX32})}
SNAPSHOT = obj({"records": hexlist(), "revocations": hexlist()})
SIDE = obj(
    {
        "error": NULLABLE_STRING,
        "passes": INTEGER,
        "records": RECORD_HASHES,
        "treeHash": HEX32,
        "revsetHash": HEX32,
    }
)
APPLY_OP = obj({"op": {"enum": ["record", "revocation"]}, "bytes": HEX, "now": INTEGER})
OUTCOME = obj(
    {
        "outcome": {"enum": ["accepted", "agree", "stale", "rejected", "deferred", "new", "known"]},
        "reason": NULLABLE_STRING,
        "purged": {"type": "array", "items": {"type": "string"}},
    }
)

BY_KIND: dict[str, Json] = {
    "int": INTEGER,
    "bool": {"type": "boolean"},
    "str": {"type": "string"},
    "hex": HEX,
    "hex?": NULLABLE_STRING,
}
BY_NAME: dict[str, Json] = {
    **dict.fromkeys(
        ("rootKey", "id", "grantId", "revoker", "entryHash", "entrySum", "treeHash", "revsetHash"),
        HEX32,
    ),
    **dict.fromkeys(("revokedIds", "chain", "grantIds", "messages", "have", "need"), hexlist()),
    "kind": {"enum": ["grant", "revocation", "record"]},
    "role": ROLE,
    "items": ITEMS,
    "store": SNAPSHOT,
    "records": RECORD_HASHES,
    "ops": {"type": "array", "items": APPLY_OP},
    "outcomes": {"type": "array", "items": OUTCOME},
    "replies": {"type": "array", "items": hexlist()},
    "error": NULLABLE_STRING,
}
SHAPES: dict[tuple[str, str], Json] = {
    ("kv_tree", "records"): hexlist(),
    ("kv_reconcile", "initiator"): ITEMS,
    ("kv_reconcile", "responder"): ITEMS,
    ("kv_transcript", "initiator"): SNAPSHOT,
    ("kv_transcript", "responder"): SNAPSHOT,
    ("kv_transcript", "result.initiator"): SIDE,
    ("kv_transcript", "result.responder"): SIDE,
    ("kv_transcript", "result.frames"): {
        "type": "array",
        "items": obj({"from": ROLE, "frame": HEX}),
    },
    ("kv_scripted", "frames"): hexlist(),
}
"""The shapes a field's name does not fix: request fields, and result fields as `result.*`."""

EXPECTED: dict[str, Json] = {
    "kv_authorize": {
        "oneOf": [
            obj({"chain": hexlist(), "entryHash": HEX32}),
            obj({"revokedIds": hexlist()}),
        ]
    }
}
"""Results of two shapes: an authorised record's chain, or the ids a REVOKED refusal leaves."""


def schemas(op: str, fields: FieldKinds, part: str = "") -> dict[str, Json]:
    """Each field's schema: its shape in `op`, else by its name, else by its protocol kind."""
    found = {}
    for name, kind in fields.items():
        shape = SHAPES.get((op, part + name))
        if shape is None:
            shape = BY_NAME.get(name) if kind == "json" or name in BY_NAME else BY_KIND[kind]
        if shape is None:
            raise KeyError(f"{op}: no schema for the json field {name}")
        found[name] = shape
    return found


def group_kind(op: str) -> GroupKind:
    request = schemas(op, OPS[op].request_kinds())
    params = {name: request.pop(name) for name in HOISTED if name in request}
    expected = EXPECTED.get(op) or obj(schemas(op, OPS[op].result, "result."))
    return GroupKind(
        params=params, input=obj(request, optional=OPS[op].optional), expected=expected
    )


KINDS = {op: group_kind(op) for op in OPS}
