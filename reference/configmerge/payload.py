"""The payload layer (D21..D26) and what a push deletes (D27), with the spec's API.

Faster than the spec where it counts: one zstd context per level, a frame that announces its
size inflated in one call (a frame that does not is read a piece at a time), a part read at
fixed offsets when it has the writer's layout, and the generic checks only for parts that do
not.
"""

from __future__ import annotations

import hashlib
import io
import re
from collections.abc import Sequence

import zstandard

from swarmconf.spec.configmerge.parts import (
    CHUNK_LENGTH_DIGITS,
    ENCRYPTION_OVERHEAD,
    MAX_BLOB_SIZE,
    MAX_CHUNK_SIZE,
    Part,
)
from swarmconf.spec.configmerge.payload import MAX_PAYLOAD_SIZE, Received, Skipped
from swarmconf.spec.configmerge.reasons import (
    ConfigError,
    DecryptError,
    PayloadError,
    PayloadReason,
    Reason,
    UsageError,
)

from . import bt
from .crypto import decrypt, encrypt, pad
from .merge import _survivors
from .message import ConfigMessage, parse

__all__ = [
    "MAX_PAYLOAD_SIZE",
    "Part",
    "Received",
    "Skipped",
    "compress",
    "decode_part",
    "decompress",
    "deployed_obsolete_after_merge",
    "encode_part",
    "obsolete_after_edit",
    "obsolete_after_merge",
    "receive",
    "unwrap",
    "wrap",
]

_COMPRESSORS: dict[int, zstandard.ZstdCompressor] = {}
_DECOMPRESSOR = zstandard.ZstdDecompressor()
_READ_SIZE = 1 << 16
_PART = re.compile(rb"ml32:(.{32})1:(.)1:(.)([1-9][0-9]{0,4}):", re.DOTALL)


def _fail(reason: PayloadReason, detail: str = "") -> PayloadError:
    return PayloadError(reason, detail)


# Compression (D21, D24)


def compress(message: bytes, level: int | None = 1) -> bytes:
    """`z` and the zstd frame if strictly shorter, else the message (D21)."""
    if level is None:
        return message
    if type(level) is not int or not 1 <= level <= 22:
        raise UsageError(PayloadReason.BAD_LEVEL, f"{level!r} is not a level from 1 to 22")
    compressor = _COMPRESSORS.get(level)
    if compressor is None:
        compressor = _COMPRESSORS[level] = zstandard.ZstdCompressor(level=level)
    frame = compressor.compress(message)
    return b"z" + frame if len(frame) + 1 < len(message) else message


def decompress(frames: bytes, limit: int = MAX_PAYLOAD_SIZE) -> bytes:
    """The content of whole zstd frames, refused past `limit` before it is materialised (D24)."""
    try:
        size = zstandard.frame_content_size(frames)
    except zstandard.ZstdError as error:
        raise _fail(PayloadReason.ZSTD_BAD_FRAME, str(error)) from error
    if size > limit:
        raise _fail(PayloadReason.ZSTD_TOO_LARGE, f"{size} bytes")
    if size >= 0:
        # One frame announcing its size: libzstd refuses a block that outgrows it
        decoder = _DECOMPRESSOR.decompressobj()
        try:
            output = decoder.decompress(frames)
        except zstandard.ZstdError as error:
            raise _fail(PayloadReason.ZSTD_BAD_FRAME, str(error)) from error
        if decoder.eof and not decoder.unused_data:
            if not output:
                raise _fail(PayloadReason.ZSTD_EMPTY)
            return output
    return _decompress_pieces(frames, limit)


def _decompress_pieces(frames: bytes, limit: int) -> bytes:
    """Several frames, or one without a size: inflated a piece at a time, each frame checked
    whole."""
    reader = _DECOMPRESSOR.stream_reader(io.BytesIO(frames), read_across_frames=True)
    pieces: list[bytes] = []
    total = 0
    try:
        while piece := reader.read(_READ_SIZE):
            total += len(piece)
            if total > limit:
                raise _fail(PayloadReason.ZSTD_TOO_LARGE, f"over {limit} bytes")
            pieces.append(piece)
        rest = frames
        while rest:
            decoder = _DECOMPRESSOR.decompressobj()
            decoder.decompress(rest)
            if not decoder.eof:
                raise _fail(PayloadReason.ZSTD_BAD_FRAME, "incomplete frame")
            rest = decoder.unused_data
    except zstandard.ZstdError as error:
        raise _fail(PayloadReason.ZSTD_BAD_FRAME, str(error)) from error
    if not total:
        raise _fail(PayloadReason.ZSTD_EMPTY)
    return b"".join(pieces)


# Parts (D25, D26)


def encode_part(part: Part) -> bytes:
    """`m`, the four-element list, and NUL bytes to 50 + len(chunk) bytes (D25)."""
    chunk = part.chunk
    head = b"ml32:%b1:%c1:%c%d:" % (part.hash, part.index, part.count, len(chunk))
    return b"".join((head, chunk, b"e", bytes(CHUNK_LENGTH_DIGITS - len(str(len(chunk))))))


def decode_part(plaintext: bytes) -> Part:
    """A decrypted part; the writer's layout read at fixed offsets, anything else checked
    field by field in the spec's order (D26)."""
    match = _PART.match(plaintext)
    if match is not None:
        start = match.end()
        end = start + int(match[4])
        tail = plaintext[end + 1 :]
        if (
            plaintext[end : end + 1] == b"e"
            and len(tail) < CHUNK_LENGTH_DIGITS
            and not tail.strip(b"\0")
        ):
            index, count = match[2][0], match[3][0]
            if count > 1 and index < count:
                return Part(match[1], index, count, plaintext[start:end])
    return _decode_part_checked(plaintext)


def _decode_part_checked(plaintext: bytes) -> Part:
    listed = plaintext[1:].rstrip(b"\0")
    try:
        elements = bt.decode(listed)
    except ConfigError as error:
        reason = PayloadReason.PART_MALFORMED
        if error.reason == Reason.BT_TRAILING_BYTES:
            reason = PayloadReason.PART_TRAILING_BYTES
        raise _fail(reason, str(error)) from error
    if type(elements) is not list:
        raise _fail(PayloadReason.PART_MALFORMED, "not a list")
    if len(plaintext) - 1 - len(listed) >= CHUNK_LENGTH_DIGITS:
        raise _fail(PayloadReason.PART_TRAILING_BYTES, "NUL bytes")
    fields: list[bytes] = []
    for element in elements[:4]:
        if type(element) is not bytes:
            break
        fields.append(element)
    checks = (
        (32, PayloadReason.PART_BAD_HASH),
        (1, PayloadReason.PART_BAD_INDEX),
        (1, PayloadReason.PART_BAD_COUNT),
    )
    for position, (size, reason) in enumerate(checks):
        if position >= len(fields):
            raise _fail(PayloadReason.PART_MALFORMED, f"element {position}")
        if len(fields[position]) != size:
            raise _fail(reason)
    if fields[2][0] <= 1:
        raise _fail(PayloadReason.PART_BAD_COUNT)
    if fields[1][0] >= fields[2][0]:
        raise _fail(PayloadReason.PART_INDEX_RANGE)
    if len(fields) < 4:
        raise _fail(PayloadReason.PART_MALFORMED, "element 3")
    if not fields[3]:
        raise _fail(PayloadReason.PART_EMPTY_CHUNK)
    if len(elements) != 4:
        raise _fail(PayloadReason.PART_TRAILING_ELEMENTS)
    return Part(fields[0], fields[1][0], fields[2][0], fields[3])


# Push (D21, D22, D25; X11)


def wrap(
    message: bytes,
    key: bytes,
    domain: bytes,
    *,
    level: int | None = 1,
    multipart: bool = True,
) -> list[bytes]:
    """The blobs a client pushes for a serialized message, in index order (D21, D22, D25)."""
    padded = pad(compress(message, level))
    if not multipart:
        blob = encrypt(padded, key, profile="libsession", domain=domain)
        if len(blob) > MAX_BLOB_SIZE:
            raise _fail(PayloadReason.PUSH_TOO_LARGE, f"{len(blob)} bytes")
        return [blob]
    if len(message) > MAX_PAYLOAD_SIZE or len(padded) > MAX_PAYLOAD_SIZE:
        raise _fail(PayloadReason.PAYLOAD_TOO_LARGE, f"{max(len(message), len(padded))} bytes")
    if len(padded) + ENCRYPTION_OVERHEAD <= MAX_BLOB_SIZE:
        return [encrypt(padded, key, profile="libsession", domain=domain)]
    digest = hashlib.blake2b(padded, digest_size=32).digest()
    count = -(-len(padded) // MAX_CHUNK_SIZE)
    chunks = (padded[n * MAX_CHUNK_SIZE : (n + 1) * MAX_CHUNK_SIZE] for n in range(count))
    parts = [encode_part(Part(digest, n, count, chunk)) for n, chunk in enumerate(chunks)]
    return [encrypt(part, key, profile="libsession", domain=domain) for part in parts]


# Receive (D23, D26)


def _open(blob: bytes, keys: Sequence[bytes], domain: bytes) -> bytes:
    refusal: ConfigError | None = None
    for key in keys:
        try:
            return decrypt(blob, key, profile="libsession", domain=domain)
        except ConfigError as error:
            refusal = error
    assert refusal is not None
    raise refusal


def _message(payload: bytes) -> bytes:
    return decompress(payload[1:]) if payload[:1] == b"z" else payload


def receive(
    blobs: Sequence[bytes], keys: Sequence[bytes], domain: bytes, *, multipart: bool = True
) -> Received:
    """Every message the blobs hold, and every blob skipped with its reason (D23, D26)."""
    if not keys and blobs:
        raise UsageError(PayloadReason.NO_KEYS, "at least one key opens blobs")
    found: dict[int, bytes] = {}
    skipped: list[Skipped] = []
    sets: dict[bytes, dict[int, tuple[int, Part]]] = {}
    for position, blob in enumerate(blobs):
        try:
            plaintext = _open(blob, keys, domain)
            payload = plaintext.lstrip(b"\0")
            if not payload:
                raise _fail(PayloadReason.PAYLOAD_EMPTY)
            if payload[:1] != b"m":
                found[position] = _message(payload)
                continue
            if not multipart:
                raise _fail(PayloadReason.PAYLOAD_MULTIPART_UNSUPPORTED)
            if len(blob) > MAX_BLOB_SIZE:
                raise _fail(PayloadReason.PART_TOO_LARGE, f"{len(blob)} bytes")
            part = decode_part(payload)
        except ConfigError as error:
            skipped.append(Skipped((position,), error.reason))
            continue
        members = sets.setdefault(part.hash, {})
        if members and next(iter(members.values()))[1].count != part.count:
            skipped.append(Skipped((position,), PayloadReason.PARTS_COUNT_MISMATCH))
        else:
            members.setdefault(part.index, (position, part))
    for members in sets.values():
        positions = tuple(sorted(position for position, _ in members.values()))
        try:
            found[positions[0]] = _join(members)
        except ConfigError as error:
            skipped.append(Skipped(positions, error.reason))
    skipped.sort(key=lambda skip: skip.blobs[0])
    return Received([found[position] for position in sorted(found)], skipped)


def _join(members: dict[int, tuple[int, Part]]) -> bytes:
    count = next(iter(members.values()))[1].count
    if len(members) != count:
        missing = [index for index in range(count) if index not in members]
        raise _fail(PayloadReason.PARTS_INCOMPLETE, f"missing {missing}")
    chunks = [members[index][1].chunk for index in range(count)]
    size = sum(map(len, chunks))
    if size > MAX_PAYLOAD_SIZE:
        raise _fail(PayloadReason.PAYLOAD_TOO_LARGE, f"{size} bytes")
    padded = b"".join(chunks)
    if hashlib.blake2b(padded, digest_size=32).digest() != members[0][1].hash:
        raise _fail(PayloadReason.PARTS_HASH_MISMATCH, "joined")
    payload = padded.lstrip(b"\0")
    if not payload:
        raise _fail(PayloadReason.PAYLOAD_EMPTY)
    message = _message(payload)
    if message[:1] != b"d":
        raise _fail(PayloadReason.PAYLOAD_NOT_MESSAGE)
    return message


def unwrap(
    blobs: Sequence[bytes], keys: Sequence[bytes], domain: bytes, *, multipart: bool = True
) -> bytes:
    """The one message the blobs hold, or the first refusal by blob position (D23, D26)."""
    received = receive(blobs, keys, domain, multipart=multipart)
    if received.skipped:
        first = received.skipped[0]
        detail = f"blob {first.blobs[0] + 1} of {len(blobs)}"
        if isinstance(first.reason, PayloadReason):
            raise PayloadError(first.reason, detail)
        raise DecryptError(first.reason, detail)
    if len(received.messages) != 1:
        raise _fail(PayloadReason.PAYLOAD_SEVERAL_MESSAGES, f"{len(received.messages)} messages")
    return received.messages[0]


# What a push deletes (D27; X12)


def _parsed(messages: Sequence[bytes], lag: int, verify_key: bytes | None) -> list[ConfigMessage]:
    valid = []
    for raw in messages:
        try:
            valid.append(parse(raw, lag=lag, verify_key=verify_key))
        except ConfigError:
            continue
    return valid


def obsolete_after_merge(
    messages: Sequence[bytes],
    result: ConfigMessage,
    *,
    lag: int = 5,
    verify_key: bytes | None = None,
    valid: list[ConfigMessage] | None = None,
) -> list[bytes]:
    """The hashes, ascending, of the inputs a push of the merge `result` deletes (D27);
    `valid`, when given, is the inputs that parse, in order (parsed by the caller)."""
    if valid is None:
        valid = _parsed(messages, lag, verify_key)
    absorbed = {m.hash for m in valid}
    if not result.merged and valid:
        absorbed -= {m.hash for m in _survivors(valid, lag)}
    absorbed.discard(result.hash)
    return sorted(absorbed)


def obsolete_after_edit(previous: ConfigMessage) -> list[bytes]:
    """The hash of the message an edit incremented (D27)."""
    return [previous.hash]


def deployed_obsolete_after_merge(
    messages: Sequence[bytes],
    result: ConfigMessage,
    *,
    lag: int = 5,
    verify_key: bytes | None = None,
    valid: list[ConfigMessage] | None = None,
) -> list[bytes]:
    """What the deployed client deletes: every parsed input but the one at the survivor's
    position among parsed inputs, counted among all inputs (X12); `valid` as above."""
    if valid is None:
        valid = _parsed(messages, lag, verify_key)
    parsed = {m.hash for m in valid}
    if result.merged:
        return sorted(parsed)
    position = [m.hash for m in valid].index(result.hash)
    parsed.discard(hashlib.blake2b(messages[position], digest_size=32).digest())
    return sorted(parsed)
