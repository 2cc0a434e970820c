"""The adapter protocol's operations: their request and result fields, one table for all.

The vector schema, the runner and the built-in adapter are all derived from `OPS`, so a field
is declared once. Field kinds say how a value travels in JSON and how failures are shown:

- `int`: a JSON integer; `bool`: a JSON boolean; `str`: a JSON string;
- `hex`: raw bytes as lowercase hex; `hex?`: the same, or null;
- `bt`: bt-encoded bytes as lowercase hex (a message, data, a diff, lagged entries);
- `btlist`: a JSON list of `bt` values;
- `json`: any JSON value (the K/V operations' lists and objects, described in PROTOCOL.md).

The config-merge operations come first; the K/V Gossip operations are named `kv_*`.
"""

from __future__ import annotations

from dataclasses import dataclass

PROTOCOL_VERSION = 1

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


_MESSAGE_RESULT: FieldKinds = {"msg": "bt", "hash": "hex"}

OPS: dict[str, Op] = {
    op.name: op
    for op in (
        Op(
            "parse",
            "Parse `msg`; describe the message.",
            {"msg": "bt", "lag": "int"},
            {"verify_key": "hex"},
            {
                "seqno": "int",
                "hash": "hex",
                "data": "bt",
                "diff": "bt",
                "lagged": "bt",
                "extra": "bt",
                "signature": "hex?",
            },
        ),
        Op("hash", "Parse `msg`; give its hash.", {"msg": "bt", "lag": "int"}, {}, {"hash": "hex"}),
        Op(
            "new",
            "Make a new message with `seqno`, set its data to `data`, serialize it.",
            {"seqno": "int", "lag": "int", "data": "bt"},
            {"sign_key": "hex"},
            {**_MESSAGE_RESULT, "diff": "bt"},
        ),
        Op(
            "serialize",
            "Parse `msg` (verifying if `verify_key`), serialize it (signing if `sign_key`).",
            {"msg": "bt", "lag": "int"},
            {"verify_key": "hex", "sign_key": "hex"},
            _MESSAGE_RESULT,
        ),
        Op(
            "diff",
            "The diff that editing data `old` into data `new` records.",
            {"old": "bt", "new": "bt"},
            {},
            {"diff": "bt"},
        ),
        Op(
            "increment",
            "Parse `msg`, increment it, set its data to `data` (if given), serialize it.",
            {"msg": "bt", "lag": "int"},
            {"data": "bt", "verify_key": "hex", "sign_key": "hex"},
            _MESSAGE_RESULT,
        ),
        Op(
            "merge",
            "Merge `msgs`; if a new message is made, set its data to `data` (if given) and"
            " serialize it; else serialize the surviving message.",
            {"msgs": "btlist", "lag": "int"},
            {"data": "bt", "verify_key": "hex", "sign_key": "hex"},
            {"merged": "bool", **_MESSAGE_RESULT},
        ),
        Op(
            "sign",
            "Parse `msg` without verifying; serialize it signed with `sign_key`.",
            {"msg": "bt", "lag": "int", "sign_key": "hex"},
            {},
            _MESSAGE_RESULT,
        ),
        Op(
            "verify",
            "Parse `msg` requiring a valid signature under `verify_key`.",
            {"msg": "bt", "lag": "int", "verify_key": "hex"},
            {},
            {"seqno": "int", "hash": "hex"},
        ),
        Op(
            "encrypt",
            "Encrypt `plaintext` under `key` with `profile` (and `domain`).",
            {"plaintext": "hex", "key": "hex", "profile": "str"},
            {"domain": "hex"},
            {"ciphertext": "hex"},
        ),
        Op(
            "decrypt",
            "Decrypt `ciphertext` under `key` with `profile` (and `domain`).",
            {"ciphertext": "hex", "key": "hex", "profile": "str"},
            {"domain": "hex"},
            {"plaintext": "hex"},
        ),
        Op(
            "pad",
            "Pad `plaintext` with leading zeros to `padded_size(len, overhead)`.",
            {"plaintext": "hex", "overhead": "int"},
            {},
            {"padded": "hex"},
        ),
        Op(
            "unpad",
            "Strip the leading zero bytes of padding from `padded`.",
            {"padded": "hex"},
            {},
            {"plaintext": "hex"},
        ),
    )
}

_KV_STORE: FieldKinds = {"records": "json", "treeHash": "hex", "revsetHash": "hex"}
_KV_SESSION: FieldKinds = {"rootKey": "hex", "skewMs": "int", "maxLoops": "int"}

KV_OPS: dict[str, Op] = {
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
CONFIG_OPS = dict(OPS)
OPS.update(KV_OPS)

HOISTED = ("lag", "profile")
"""Config-merge request fields that vector files hoist into their test groups."""
