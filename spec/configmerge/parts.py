"""Multi-part payloads (D25, D26): how a padded payload too large for one blob is split into
parts, how each part is encoded, and how a receiver checks, collects and joins them.

A part, before its own encryption, is `m` followed by a bt list of four byte strings: the
BLAKE2b-256 of the whole padded payload, the part's index and the part count (one byte each)
and the chunk. The deployed writer sizes every part for a five-digit chunk length, so a part
whose chunk length has fewer digits ends in one to four NUL bytes after the list's `e`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from . import bt
from .reasons import ConfigError, PayloadError, PayloadReason, Reason, require_payload

MULTIPART_MARKER = b"m"
"""The first byte of a decrypted part (D25)."""
MAX_BLOB_SIZE = 76_800
"""The storage server's limit on one stored blob, and so on an encrypted part (D22, D26)."""
ENCRYPTION_OVERHEAD = 40
"""The 16-byte tag and 24-byte nonce every blob adds (D18, D19)."""
PART_ENCODING_SIZE = 50
"""`m`, the list's `l` and `e`, `32:` and the hash, `1:` twice with a byte each, `76710:` (D25)."""
MAX_CHUNK_SIZE = MAX_BLOB_SIZE - PART_ENCODING_SIZE - ENCRYPTION_OVERHEAD
"""76,710: the chunk a part carries when the whole blob is at its limit (D25)."""
CHUNK_LENGTH_DIGITS = len(str(MAX_CHUNK_SIZE))
"""Every part's buffer has room for a chunk length of this many digits (D25)."""
HASH_SIZE = 32


@dataclass(frozen=True)
class Part:
    """One part of a padded payload (D25)."""

    hash: bytes
    """BLAKE2b-256 of the whole padded payload."""
    index: int
    count: int
    chunk: bytes


def payload_hash(padded: bytes) -> bytes:
    """Unkeyed BLAKE2b-256 of the whole padded payload: the parts' common hash (D25)."""
    return hashlib.blake2b(padded, digest_size=HASH_SIZE).digest()


def needs_split(padded: bytes) -> bool:
    """A padded payload is split when it would encrypt to more than 76,800 bytes (D25)."""
    return len(padded) + ENCRYPTION_OVERHEAD > MAX_BLOB_SIZE


def split(padded: bytes) -> list[Part]:
    """Chunks of at most 76,710 bytes in order, ceil(size / 76,710) of them, each carrying the
    whole payload's hash, its index and the count (D25)."""
    chunks = [
        padded[start : start + MAX_CHUNK_SIZE] for start in range(0, len(padded), MAX_CHUNK_SIZE)
    ]
    digest = payload_hash(padded)
    return [Part(digest, index, len(chunks), chunk) for index, chunk in enumerate(chunks)]


def encode_part(part: Part) -> bytes:
    """`m`, the bt list [hash, index byte, count byte, chunk], then NUL bytes up to the size a
    five-digit chunk length would take: 50 + len(chunk) bytes in all (D25)."""
    listed = bt.encode([part.hash, bytes([part.index]), bytes([part.count]), part.chunk])
    encoded = MULTIPART_MARKER + listed
    return encoded + bytes(PART_ENCODING_SIZE + len(part.chunk) - len(encoded))


def part_fields(plaintext: bytes) -> list[bt.BtValue]:
    """The elements of a decrypted part's list, and no more than four NUL bytes after it (D26).

    The list ends in `e`, never a NUL, so the writer's NUL bytes are exactly the ones at the end.
    """
    listed = plaintext[len(MULTIPART_MARKER) :].rstrip(b"\0")
    nuls = len(plaintext) - len(MULTIPART_MARKER) - len(listed)
    try:
        elements = bt.decode(listed)
    except ConfigError as error:
        reason = PayloadReason.PART_MALFORMED
        if error.reason == Reason.BT_TRAILING_BYTES:
            reason = PayloadReason.PART_TRAILING_BYTES
        raise PayloadError(reason, str(error)) from error
    # Verify the part is a list, followed by the writer's NUL bytes only
    require_payload(isinstance(elements, list), PayloadReason.PART_MALFORMED, "not a list")
    require_payload(nuls < CHUNK_LENGTH_DIGITS, PayloadReason.PART_TRAILING_BYTES, f"{nuls} NULs")
    assert isinstance(elements, list)
    return elements


def field(elements: list[bt.BtValue], position: int) -> bytes:
    """The byte string at `position` of a part's list (D26)."""
    # Verify the list goes on, with a byte string
    require_payload(position < len(elements), PayloadReason.PART_MALFORMED, "the list ends early")
    value = elements[position]
    require_payload(isinstance(value, bytes), PayloadReason.PART_MALFORMED, f"element {position}")
    assert isinstance(value, bytes)
    return value


def decode_part(plaintext: bytes) -> Part:
    """A decrypted part, its fields checked in the order they are read (D26)."""
    elements = part_fields(plaintext)
    # Verify the hash is 32 bytes
    digest = field(elements, 0)
    require_payload(len(digest) == HASH_SIZE, PayloadReason.PART_BAD_HASH, f"{len(digest)} bytes")
    # Verify index and count are one byte each, the count at least 2 and above the index
    index = field(elements, 1)
    require_payload(len(index) == 1, PayloadReason.PART_BAD_INDEX, f"{len(index)} bytes")
    count = field(elements, 2)
    require_payload(len(count) == 1, PayloadReason.PART_BAD_COUNT, f"{len(count)} bytes")
    require_payload(count[0] > 1, PayloadReason.PART_BAD_COUNT, f"count {count[0]}")
    require_payload(index[0] < count[0], PayloadReason.PART_INDEX_RANGE, f"index {index[0]}")
    # Verify the chunk is not empty
    chunk = field(elements, 3)
    require_payload(chunk != b"", PayloadReason.PART_EMPTY_CHUNK)
    # Verify nothing follows the chunk in the list
    require_payload(len(elements) == 4, PayloadReason.PART_TRAILING_ELEMENTS, f"{len(elements)}")
    return Part(digest, index[0], count[0], chunk)


def join_parts(found: dict[int, Part], limit: int) -> bytes:
    """The padded payload of a complete set of parts, joined in index order; its size within
    `limit` and its hash the one the parts carry (D26)."""
    count = next(iter(found.values())).count
    # Verify every part is there
    missing = [index for index in range(count) if index not in found]
    require_payload(missing == [], PayloadReason.PARTS_INCOMPLETE, f"missing {missing}")
    # Verify the joined payload stays within the limit before it is joined
    size = sum(len(part.chunk) for part in found.values())
    require_payload(size <= limit, PayloadReason.PAYLOAD_TOO_LARGE, f"{size} bytes")
    padded = b"".join(found[index].chunk for index in range(count))
    # Verify the joined payload has the parts' hash
    require_payload(
        payload_hash(padded) == found[0].hash, PayloadReason.PARTS_HASH_MISMATCH, "joined"
    )
    return padded
