"""The K/V Gossip operations of the adapter protocol (`kv_*`): their request and result fields.

This table is the operations' one registration: the design's record (`design.DESIGN`), the
schema parts of its vector groups (`vocabulary.SCHEMAS`), `hello` and the built-in adapter's
handlers are derived from it. The spec answers an operation through `runner.RUNNERS`; a `json`
field's JSON Schema is in `vocabulary.SCHEMAS` (by its name, or its shape in one operation),
and its shape in words in PROTOCOL.md.
"""

from __future__ import annotations

from swarmconf.conformance.protocol import FieldKinds, Op

_KV_STORE: FieldKinds = {"records": "json", "treeHash": "hex", "revsetHash": "hex"}
_KV_SESSION: FieldKinds = {"rootKey": "hex", "skewMs": "int", "maxLoops": "int"}

OPS: dict[str, Op] = {
    op.name: op
    for op in (
        Op(
            "kv_decode",
            "Decode `bytes` as a `kind` (grant, revocation or record); give its id.",
            {"rootKey": "hex", "kind": "str", "bytes": "hex"},
            {},
            {"id": "hex"},
        ),
        Op("kv_key", "Check that `key` is a valid key.", {"key": "str"}, {}, {}),
        Op("kv_pattern", "Check that `pattern` is a valid pattern.", {"pattern": "str"}, {}, {}),
        Op(
            "kv_match",
            "Does `pattern` match `key`?",
            {"pattern": "str", "key": "str"},
            {},
            {"matches": "bool"},
        ),
        Op(
            "kv_grant_for_key",
            "Decode `grant`; may it stand on a chain for `key` at time `ts`, given `revokedIds`?",
            {"rootKey": "hex", "grant": "hex", "key": "str", "ts": "int", "revokedIds": "json"},
            {},
            {"grantId": "hex"},
        ),
        Op(
            "kv_revocation",
            "Decode and verify `revocation`; give the revoked grant and its revoker.",
            {"rootKey": "hex", "revocation": "hex"},
            {},
            {"grantId": "hex", "revoker": "hex"},
        ),
        Op(
            "kv_authorize",
            "Decode `record` and authorise it under the revoked grant ids.",
            {"rootKey": "hex", "record": "hex", "revokedIds": "json"},
            {},
            {"chain": "json", "entryHash": "hex", "revokedIds": "json"},
        ),
        Op(
            "kv_apply",
            "Apply `ops` (records and revocations) in order to an empty store.",
            {"rootKey": "hex", "skewMs": "int", "ops": "json"},
            {},
            {"outcomes": "json", **_KV_STORE},
        ),
        Op(
            "kv_tree",
            "The entry sum, count and tree hash of `records`.",
            {"records": "json"},
            {},
            {"entrySum": "hex", "count": "int", "treeHash": "hex"},
        ),
        Op(
            "kv_revset",
            "The revocation-set hash of `grantIds`.",
            {"grantIds": "json"},
            {},
            {"revsetHash": "hex"},
        ),
        Op(
            "kv_reconcile",
            "Reconcile the item sets of `initiator` and `responder` to the end.",
            {"initiator": "json", "responder": "json", "limit": "int"},
            {},
            {"messages": "json", "have": "json", "need": "json"},
        ),
        Op(
            "kv_step",
            "One reconciliation step over `items` answering `message`.",
            {"items": "json", "message": "hex", "initiator": "bool"},
            {},
            {"reply": "hex?", "have": "json", "need": "json"},
        ),
        Op(
            "kv_transcript",
            "Two honest sessions over the given stores talk until neither sends.",
            {**_KV_SESSION, "initiator": "json", "responder": "json", "now": "int"},
            {},
            {"frames": "json", "initiator": "json", "responder": "json"},
        ),
        Op(
            "kv_scripted",
            "One session in `role` over `store`, fed the peer's `frames`.",
            {
                **_KV_SESSION,
                "role": "str",
                "store": "json",
                "now": "int",
                "frames": "json",
                "timeout": "bool",
            },
            {},
            {
                "replies": "json",
                "done": "bool",
                "error": "json",
                "passes": "int",
                **_KV_STORE,
            },
        ),
        Op(
            "kv_push",
            "Answer a PUSH or FETCH `frame` outside a session over `store`.",
            {**_KV_SESSION, "store": "json", "now": "int", "frame": "hex"},
            {},
            {"reply": "hex", **_KV_STORE},
        ),
    )
}

HOISTED = ("rootKey", "skewMs", "maxLoops")
"""Request fields that K/V vector files hoist into their test groups."""
