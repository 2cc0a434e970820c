"""The payload layer's operations of the adapter protocol (D21..D26) and what a merge's push
deletes (D27): their fields, and how the built-in adapter answers them over an implementation
of the API contract (`swarmconf.spec.configmerge` or `swarmconf.reference.configmerge`).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from swarmconf.conformance.protocol import Op

Request = dict[str, Any]
Result = dict[str, Any]

PAYLOAD_OPS: dict[str, Op] = {
    op.name: op
    for op in (
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
    )
}

OBSOLETE_RESULT = {"obsolete": "hexlist"}
"""The merge result's field (D27): the hashes, ascending, of the inputs its push deletes."""


def _hex_list(request: Request, name: str) -> list[bytes]:
    return [bytes.fromhex(text) for text in request[name]]


def wrap(impl: ModuleType, request: Request) -> Result:
    blobs = impl.wrap(
        bytes.fromhex(request["message"]),
        bytes.fromhex(request["key"]),
        bytes.fromhex(request["domain"]),
        level=request.get("level"),
    )
    return {"blobs": [blob.hex() for blob in blobs]}


def unwrap(impl: ModuleType, request: Request) -> Result:
    message = impl.unwrap(
        _hex_list(request, "blobs"), _hex_list(request, "keys"), bytes.fromhex(request["domain"])
    )
    return {"msg": message.hex()}


def obsolete(impl: ModuleType, request: Request, result: Any, verify_key: bytes | None) -> Result:
    """The `obsolete` field of a merge's answer, for the merge `result` of `request["msgs"]`."""
    hashes = impl.obsolete_after_merge(
        _hex_list(request, "msgs"), result, lag=request["lag"], verify_key=verify_key
    )
    return {"obsolete": [digest.hex() for digest in hashes]}
