"""Building blocks for vectors: raw msgpack pieces and re-signed tampered objects."""

from __future__ import annotations

from typing import Any

from swarmconf.spec.kvgossip import crypto
from swarmconf.spec.kvgossip.encoding import GRANT_TAG, RECORD_TAG, encode
from swarmconf.spec.kvgossip.grants import Grant
from swarmconf.spec.kvgossip.records import Record


def raw_array(parts: list[bytes]) -> bytes:
    """A msgpack fixarray of already-encoded parts (lets a vector hold non-canonical pieces)."""
    assert len(parts) < 16
    return bytes([0x90 | len(parts)]) + b"".join(parts)


def signed(seed: bytes, body: bytes) -> bytes:
    """An envelope `[body, signature]` signed by `seed` whatever the body holds."""
    return encode([body, crypto.sign(seed, body)])


def grant_fields(grant: Grant) -> list[Any]:
    """The grant's body fields after the tag."""
    return [
        grant.issuer,
        grant.issuee,
        grant.pattern,
        grant.flags,
        grant.issued_at,
        grant.expires_at,
    ]


def grant_body_parts(grant: Grant) -> list[bytes]:
    """The grant body as separately encoded parts, tag first."""
    return [encode(GRANT_TAG), *(encode(f) for f in grant_fields(grant))]


def record_fields(record: Record) -> list[Any]:
    """The record's body fields after the tag."""
    return [record.key, record.ts, record.tombstone, record.value_hash, record.signer]


def record_body_parts(record: Record) -> list[bytes]:
    """The record body as separately encoded parts, tag first."""
    return [encode(RECORD_TAG), *(encode(f) for f in record_fields(record))]


def record_wire(body: bytes, signature: bytes, value: bytes, chain: tuple[bytes, ...]) -> bytes:
    """A record envelope from its parts."""
    return encode([body, signature, value, list(chain)])


def resigned_record(seed: bytes, record: Record, body: bytes) -> bytes:
    """`record` with `body` replaced and signed again by `seed` (value and chain kept)."""
    return record_wire(body, crypto.sign(seed, body), record.value, record.chain)
