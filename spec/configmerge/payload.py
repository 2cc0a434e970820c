"""The payload layer: what a client stores in the swarm for a message, and how it reads the
blobs it finds there (D21..D26; the deployed client's source, not the design text).

Push: serialize, compress if strictly shorter (`z`), pad (D19), encrypt with the key and the
config type's domain (D19); a payload that would encrypt to more than 76,800 bytes is split
into parts (D25), or refused by a client that does not split (X11).

Receive: decrypt each blob with each key in turn, strip the padding, then dispatch on the first
byte: `m` a part, `z` a compressed message, anything else the message, which the parser judges.
A blob that yields no message is skipped with a reason code, never fatal to the others.
"""

from __future__ import annotations

from typing import NamedTuple

from . import parts
from .compression import COMPRESSED_MARKER, DEFAULT_LEVEL, compress, decompress
from .encryption import decrypt, encrypt, pad, unpad
from .parts import MAX_BLOB_SIZE, MULTIPART_MARKER, Part
from .reasons import (
    AnyReason,
    ConfigError,
    DecryptError,
    PayloadError,
    PayloadReason,
    UsageError,
    require_payload,
)

MAX_PAYLOAD_SIZE = 5_000_000
"""No message or padded payload over this many bytes is pushed or joined (D22, D26)."""
MESSAGE_MARKER = b"d"
"""The first byte of every message (D8)."""


# Push


def check_payload_size(message: bytes, padded: bytes) -> None:
    """Neither the message nor its padded payload is over 5,000,000 bytes (D22).

    The deployed client bounds the padded payload only (X13); swarmconf bounds the message too,
    so that every payload it writes inflates within the reader's bound (D24).
    """
    require_payload(
        len(message) <= MAX_PAYLOAD_SIZE, PayloadReason.PAYLOAD_TOO_LARGE, "the message"
    )
    require_payload(
        len(padded) <= MAX_PAYLOAD_SIZE, PayloadReason.PAYLOAD_TOO_LARGE, "the padded payload"
    )


def check_blob_size(blob: bytes) -> None:
    """A client that does not split refuses a payload over 76,800 bytes encrypted (D22, X11)."""
    require_payload(len(blob) <= MAX_BLOB_SIZE, PayloadReason.PUSH_TOO_LARGE, f"{len(blob)} bytes")


def wrap(
    message: bytes,
    key: bytes,
    domain: bytes,
    *,
    level: int | None = DEFAULT_LEVEL,
    multipart: bool = True,
) -> list[bytes]:
    """The blobs a client pushes for a serialized message: one, or the parts in index order
    (D21, D22, D25; X11 with `multipart=False`)."""
    padded = pad(compress(message, level))
    if not multipart:
        blob = encrypt(padded, key, profile="libsession", domain=domain)
        check_blob_size(blob)
        return [blob]
    check_payload_size(message, padded)
    if not parts.needs_split(padded):
        return [encrypt(padded, key, profile="libsession", domain=domain)]
    return [
        encrypt(parts.encode_part(part), key, profile="libsession", domain=domain)
        for part in parts.split(padded)
    ]


# Receive


def open_blob(blob: bytes, keys: list[bytes], domain: bytes) -> bytes:
    """The plaintext of a blob under the first key that opens it; a blob no key opens is
    refused with the last key's reason (D23)."""
    if not keys:
        raise UsageError(PayloadReason.NO_KEYS, "at least one key opens blobs")
    refusal: ConfigError | None = None
    for key in keys:
        try:
            return decrypt(blob, key, profile="libsession", domain=domain)
        except ConfigError as error:
            refusal = error
    assert refusal is not None
    raise refusal


def read_message(payload: bytes) -> bytes:
    """An unpadded single payload's message: a `z` payload inflated (D24), anything else as it
    is, for the parser to judge (D23)."""
    if payload.startswith(COMPRESSED_MARKER):
        return decompress(payload[len(COMPRESSED_MARKER) :])
    return payload


def read_plaintext(plaintext: bytes, blob_size: int, *, multipart: bool) -> bytes | Part:
    """Dispatch a decrypted blob on its first byte once the padding is stripped (D23): a part
    (D26), or a message (`read_message`)."""
    payload = unpad(plaintext)
    # Verify something is left
    require_payload(payload != b"", PayloadReason.PAYLOAD_EMPTY)
    if payload.startswith(MULTIPART_MARKER):
        # Verify the client joins parts, and the part fits in one blob
        require_payload(multipart, PayloadReason.PAYLOAD_MULTIPART_UNSUPPORTED)
        require_payload(
            blob_size <= MAX_BLOB_SIZE, PayloadReason.PART_TOO_LARGE, f"{blob_size} bytes"
        )
        return parts.decode_part(payload)
    return read_message(payload)


def read_joined(padded: bytes) -> bytes:
    """The message inside a joined payload: stripped, inflated if `z`, and a message (D26)."""
    payload = unpad(padded)
    # Verify something is left
    require_payload(payload != b"", PayloadReason.PAYLOAD_EMPTY)
    message = read_message(payload)
    # Verify a message is left
    require_payload(message.startswith(MESSAGE_MARKER), PayloadReason.PAYLOAD_NOT_MESSAGE)
    return message


class Skipped(NamedTuple):
    """Blobs that gave no message, and why (D23)."""

    blobs: tuple[int, ...]
    """Positions in the input; several for a set of parts refused as a whole."""
    reason: AnyReason


class Received(NamedTuple):
    """What a client makes of the blobs it finds: the messages to merge and what it skipped."""

    messages: list[bytes]
    """In the order of the blob that gave each; a joined set at its first part's position."""
    skipped: list[Skipped]
    """Ordered by first blob position."""


def receive(
    blobs: list[bytes], keys: list[bytes], domain: bytes, *, multipart: bool = True
) -> Received:
    """Every message the blobs hold, and every blob skipped with its reason (D23, D26)."""
    found: dict[int, bytes] = {}
    skipped: list[Skipped] = []
    part_positions: list[tuple[int, Part]] = []
    for position, blob in enumerate(blobs):
        try:
            plaintext = open_blob(blob, keys, domain)
            read = read_plaintext(plaintext, len(blob), multipart=multipart)
        except ConfigError as error:
            skipped.append(Skipped((position,), error.reason))
            continue
        if isinstance(read, Part):
            part_positions.append((position, read))
        else:
            found[position] = read
    joined, refused = receive_parts(part_positions)
    found.update(joined)
    skipped = sorted(skipped + refused, key=lambda skip: skip.blobs[0])
    return Received([found[position] for position in sorted(found)], skipped)


def collect_parts(
    positioned: list[tuple[int, Part]],
) -> tuple[dict[bytes, dict[int, tuple[int, Part]]], list[Skipped]]:
    """Parts grouped by their hash, then by index, with their positions (D26).

    A repeated index is ignored, the first one kept; a part whose count is not its set's (the
    count of the set's first part) is skipped alone.
    """
    sets: dict[bytes, dict[int, tuple[int, Part]]] = {}
    refused: list[Skipped] = []
    for position, part in positioned:
        found = sets.setdefault(part.hash, {})
        first = next(iter(found.values()), (position, part))[1]
        if part.count != first.count:
            refused.append(Skipped((position,), PayloadReason.PARTS_COUNT_MISMATCH))
            continue
        found.setdefault(part.index, (position, part))
    return sets, refused


def receive_parts(
    positioned: list[tuple[int, Part]],
) -> tuple[dict[int, bytes], list[Skipped]]:
    """The messages joined from complete sets of parts, each at its first part's position, and
    the sets refused as a whole (D26)."""
    sets, refused = collect_parts(positioned)
    joined: dict[int, bytes] = {}
    for found in sets.values():
        positions = tuple(sorted(position for position, _ in found.values()))
        chunks = {index: part for index, (_, part) in found.items()}
        try:
            joined[positions[0]] = read_joined(parts.join_parts(chunks, MAX_PAYLOAD_SIZE))
        except ConfigError as error:
            refused.append(Skipped(positions, error.reason))
    return joined, refused


def unwrap(
    blobs: list[bytes], keys: list[bytes], domain: bytes, *, multipart: bool = True
) -> bytes:
    """The one message a set of blobs holds (a single blob, or one message's parts in any
    order, repeats ignored), or the first refusal by blob position (D23, D26)."""
    received = receive(blobs, keys, domain, multipart=multipart)
    if received.skipped:
        first = received.skipped[0]
        cls = PayloadError if isinstance(first.reason, PayloadReason) else DecryptError
        raise cls(first.reason, f"blob {first.blobs[0] + 1} of {len(blobs)}")
    # Verify the blobs hold one message
    require_payload(
        len(received.messages) == 1,
        PayloadReason.PAYLOAD_SEVERAL_MESSAGES,
        f"{len(received.messages)} messages",
    )
    return received.messages[0]
