"""The config-merge operations of the adapter protocol: their request and result fields.

This table is the operations' one registration: the design's record (`design.DESIGN`), the
schema parts of its vector groups (`vocabulary.SCHEMAS`, from the fields' kinds), `hello` and
the handlers of the built-in adapter and of the deployed client's emulation are derived from it.
Each operation `name` is answered by `adapter.ApiAdapter.op_<name>`.
"""

from __future__ import annotations

from swarmconf.conformance.protocol import FieldKinds, Op

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
            {"merged": "bool", **_MESSAGE_RESULT, "obsolete": "hexlist"},
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
        Op(
            "wrap",
            "The blobs a client pushes for the serialized message `message`: compressed with"
            " zstd at `level` when strictly shorter (no compression without `level`), padded,"
            " encrypted under `key` and `domain`, split into parts above 76,800 bytes.",
            {"message": "hex", "key": "hex", "domain": "hex"},
            {"level": "int"},
            {"blobs": "hexlist"},
        ),
        Op(
            "unwrap",
            "The one message that `blobs` (a single blob, or the parts of one message in any"
            " order) hold, each opened with the first of `keys` that opens it under `domain`.",
            {"blobs": "hexlist", "keys": "hexlist", "domain": "hex"},
            {},
            {"msg": "hex"},
        ),
        Op(
            "client",
            "Play `steps` (bt dicts: `do` is `receive` with `msgs`, `edit` with `data`, `push`"
            " or `confirm`) on one client of `profile`, starting from the stored message `msg`"
            " (clean) or from nothing; per step, a bt dict of its state after the step (its"
            " `current` hashes, `needs_push`, its message `msg` as it would push it, the hashes"
            " `to_delete` with its next push), the hashes `deleted` by the step, and the"
            " message `pushed` and its `hash` when it pushes.",
            {"steps": "btlist", "lag": "int", "profile": "str"},
            {"msg": "bt", "verify_key": "hex", "sign_key": "hex"},
            {"answers": "btlist"},
        ),
    )
}

HOISTED = ("lag", "profile")
"""Request fields that config-merge vector files hoist into their test groups."""
