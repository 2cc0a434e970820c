"""Canonical msgpack encoding of every signed body (notes 1.2, table row 2).

Every body is a msgpack array whose first element is a domain tag string. msgpack-python emits
the smallest encoding of every value, so one logical object has exactly one byte form; a decoder
re-encodes what it read and refuses any difference. That makes ids and hashes unique.
"""

from __future__ import annotations

from typing import Any

import msgpack  # type: ignore[import-untyped]

from .reasons import KvError, KvReason, require

GRANT_TAG = "kvg/grant/1"
REVOCATION_TAG = "kvg/revoke/1"
RECORD_TAG = "kvg/record/1"
TREE_TAG = b"kvg/tree/2"
REVSET_TAG = b"kvg/revset/1"

UINT64_MAX = (1 << 64) - 1


def encode(value: Any) -> bytes:
    """The canonical msgpack bytes of `value` (str as str, bytes as bin, smallest ints)."""
    return bytes(msgpack.packb(value, use_bin_type=True))


def decode_canonical(data: bytes, max_size: int) -> Any:
    """Decode exactly one msgpack value and check that it is canonical.

    Refuses oversize input, anything msgpack cannot read (truncation, trailing bytes, invalid
    UTF-8, maps with non-string keys), and bytes that re-encode differently.
    """
    # Verify the size cap before parsing
    if len(data) > max_size:
        raise KvError(KvReason.OVERSIZE, f"{len(data)} > {max_size} bytes")
    # Verify the bytes are one msgpack value
    try:
        value = msgpack.unpackb(data, raw=False, use_list=True, strict_map_key=True)
    except (ValueError, TypeError, msgpack.UnpackException) as exc:
        raise KvError(KvReason.MALFORMED_ENCODING, type(exc).__name__) from exc
    # Verify re-encoding gives the same bytes
    try:
        again = encode(value)
    except (ValueError, TypeError, OverflowError) as exc:
        raise KvError(KvReason.NONCANONICAL_ENCODING, type(exc).__name__) from exc
    require(again == data, KvReason.NONCANONICAL_ENCODING)
    return value


def decode_body(data: bytes, tag: str, fields: tuple[type, ...], max_size: int) -> list[Any]:
    """Decode a tagged body `[tag, *fields]`, checking the tag and every field's type."""
    value = decode_canonical(data, max_size)
    # Verify the body is an array of the right length
    require(isinstance(value, list), KvReason.BAD_SHAPE, "body is not an array")
    require(len(value) == 1 + len(fields), KvReason.BAD_SHAPE, "wrong number of fields")
    # Verify the domain tag
    require(value[0] == tag, KvReason.WRONG_DOMAIN_TAG, f"{type(value[0]).__name__} as tag")
    # Verify every field's type
    check_types(value[1:], fields)
    return list(value[1:])


def decode_tuple(data: bytes, fields: tuple[type, ...], max_size: int) -> list[Any]:
    """Decode an untagged envelope array (a signed body with its signature, a record)."""
    value = decode_canonical(data, max_size)
    require(isinstance(value, list), KvReason.BAD_SHAPE, "envelope is not an array")
    require(len(value) == len(fields), KvReason.BAD_SHAPE, "wrong number of fields")
    check_types(value, fields)
    return list(value)


def check_types(values: list[Any], fields: tuple[type, ...]) -> None:
    """Refuse a field whose type is not the expected one, or an integer outside uint64."""
    for item, kind in zip(values, fields, strict=True):
        found = type(item)
        if found is not kind:
            raise KvError(KvReason.BAD_SHAPE, f"expected {kind.__name__}")
        if kind is int:
            require(0 <= item <= UINT64_MAX, KvReason.BAD_SHAPE, "integer out of uint64 range")
