"""The adapter protocol's operations: their request and result fields, one table for all.

The vector schema, the runner and the built-in adapter are all derived from `OPS`, so a field
is declared once. Field kinds say how a value travels in JSON and how failures are shown:

- `int`: a JSON integer; `bool`: a JSON boolean; `str`: a JSON string;
- `hex`: raw bytes as lowercase hex; `hex?`: the same, or null;
- `bt`: bt-encoded bytes as lowercase hex (a message, data, a diff, lagged entries);
- `btlist`: a JSON list of `bt` values.
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

# Request fields the runner fills from the vector file's header when a case leaves them out.
HEADER_DEFAULTS = ("lag", "profile")
