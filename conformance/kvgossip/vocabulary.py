"""What K/V Gossip cases are written in: the `kv_*` operations' schema parts and the spec's
answers (`runner.run`).

A field's schema comes from its name where the name fixes it (`rootKey` is 32 bytes of hex,
`revokedIds` a list of ids), from its protocol kind otherwise, and for the `json` fields whose
shape depends on the operation, from `SHAPES`. Rules cite sections of kv-gossip.md (`design:`),
the notes (`notes:`), the table of Go holes (`row:`), the attacks (`attack:`) and the sync
decisions (`sync:K<n>`).
"""

from __future__ import annotations

from collections.abc import Mapping

from swarmconf.conformance.builder import Answer, SuiteBuilder, Vocabulary
from swarmconf.conformance.fields import SchemaTable
from swarmconf.conformance.vectors import HEX, HEX32, Flag, Json, hexlist, obj

from . import NAME, PREFIX
from .ops import HOISTED, OPS
from .runner import run

RULE_PATTERN = (
    r"^(design:[a-z-]+|notes:[1-7](\.[1-9])?|row:[1-9][0-9]?|attack:[1-9][0-9]?|sync:K[1-9][0-9]?)$"
)

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

SCHEMAS = SchemaTable(
    by_kind={
        "int": INTEGER,
        "bool": {"type": "boolean"},
        "str": {"type": "string"},
        "hex": HEX,
        "hex?": NULLABLE_STRING,
    },
    hoisted=HOISTED,
    by_name={
        **dict.fromkeys(
            (
                "rootKey",
                "id",
                "grantId",
                "revoker",
                "entryHash",
                "entrySum",
                "treeHash",
                "revsetHash",
            ),
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
    },
    shapes={
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
    },
    expected={
        # an authorised record's chain, or the ids a REVOKED refusal leaves
        "kv_authorize": {
            "oneOf": [
                obj({"chain": hexlist(), "entryHash": HEX32}),
                obj({"revokedIds": hexlist()}),
            ]
        }
    },
)
KINDS = SCHEMAS.kinds(OPS)


def answer(request: Json, flags: list[str]) -> Answer:
    """The spec's verdict on `request` (`runner.run`)."""
    op = request["op"]
    params = {name: request[name] for name in KINDS[op].params}
    data = {key: value for key, value in request.items() if key != "op" and key not in params}
    got = run(op, params, data)
    return Answer(got.result, got.expected, got.reason)


VOCABULARY = Vocabulary(
    design=NAME,
    prefix=PREFIX,
    kinds=KINDS,
    rule_pattern=RULE_PATTERN,
    answer=answer,
    reasons=(),
)


def new_suite(
    name: str, description: str, flags: Mapping[str, Flag], *, strict: bool = True
) -> SuiteBuilder:
    """A K/V Gossip suite; a suite that is not strict records the spec's verdicts as they are."""
    return SuiteBuilder(VOCABULARY, name, description, flags, strict=strict)
