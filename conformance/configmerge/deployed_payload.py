"""The deployed client's payload layer at the pin (`8762e9d33f6c`), as `deployed-wire.md` reads
it in `src/config/base.cpp` and `src/config/internal.cpp`: its push and its receive path, where
they differ from swarmconf's (D21..D24).

- X9: the padding is stripped only when some byte is not zero (`_merge`: `find_first_not_of(0)`,
  `p > 0 && p != npos`), so an all-zero plaintext is handed on whole, to the parser.
- X11: no parts (`m` is skipped, a push over 76,800 bytes fails).
- X13: the message is not bounded: only the blob's 76,800 bytes are (`push()`), so a message
  over 5,000,000 bytes that compresses into one blob is pushed.
- X15: a `z` payload is inflated with no maximum (`zstd_decompress` called without `max_size`,
  base.cpp:180-181, internal.hpp:216-218): only a failure or an empty result skips it.
- X16: the compression level is not checked (`compress_message`: 0 is no compression, any other
  value goes to `ZSTD_compress`, which clamps it to zstd's range).

Each function records the quirks it meets in `fired`; a refusal is swarmconf's reason code for
the same skip (X5).
"""

from __future__ import annotations

from swarmconf.spec.configmerge.compression import (
    COMPRESSED_MARKER,
    LEVELS,
    MAX_INFLATED_SIZE,
    announced_size,
    check_level,
    decompress,
    zstd_compress,
)
from swarmconf.spec.configmerge.encryption import encrypt, pad
from swarmconf.spec.configmerge.parts import MULTIPART_MARKER
from swarmconf.spec.configmerge.payload import MAX_PAYLOAD_SIZE, check_blob_size, open_blob
from swarmconf.spec.configmerge.reasons import (
    ConfigError,
    DecryptError,
    PayloadError,
    PayloadReason,
    require_payload,
)

MAX_LEVEL = 22
"""zstd's highest level: `ZSTD_compress` uses it for any level above (X16)."""
INT_RANGE = range(-(2**31), 2**31)
"""The levels the deployed API's `int` can hold; anything else it cannot even be asked."""
UNBOUNDED = 2**64
"""No limit: the deployed receive path inflates whatever a `z` payload holds (X15)."""


def deployed_level(level: int | None, fired: set[str]) -> int | None:
    """The zstd level the deployed push compresses at for `level`, None for no compression:
    0 is none, a level above 22 is 22, negative levels are zstd's fast levels (X16)."""
    if level is None:
        return None
    if isinstance(level, bool) or level not in INT_RANGE:
        check_level(level)  # not even expressible: swarmconf's refusal
    if level not in LEVELS:
        fired.add("X16")
    return None if level == 0 else min(level, MAX_LEVEL)


def deployed_compress(message: bytes, level: int | None) -> bytes:
    """`compress_message`: `z` and the zstd frame at `level` if strictly shorter (D21)."""
    if level is None:
        return message
    compressed = COMPRESSED_MARKER + zstd_compress(message, level)
    return compressed if len(compressed) < len(message) else message


def deployed_wrap(
    message: bytes, key: bytes, domain: bytes, level: int | None, fired: set[str]
) -> list[bytes]:
    """`push()` at the pin: compress, pad, encrypt, one blob of at most 76,800 bytes (X11),
    whatever the message's size (X13)."""
    compressed = deployed_compress(message, deployed_level(level, fired))
    padded = pad(compressed)
    if len(padded) > MAX_PAYLOAD_SIZE:
        fired.add("X11")  # only the blob is bounded, once encrypted
    if len(message) > MAX_PAYLOAD_SIZE:
        fired.add("X13")
    blob = encrypt(padded, key, profile="libsession", domain=domain)
    try:
        check_blob_size(blob)
    except ConfigError:
        fired.add("X11")
        raise
    return [blob]


def deployed_unpad(plaintext: bytes, fired: set[str]) -> bytes:
    """The leading zeros stripped only when some byte is not zero (X9)."""
    if plaintext and not any(plaintext):
        fired.add("X9")
        return plaintext
    return plaintext.lstrip(b"\0")


def deployed_read(plaintext: bytes, fired: set[str]) -> bytes:
    """What `_merge` hands to the parser for one decrypted blob, or the skip as swarmconf's
    reason: nothing left, a part (X11), a `z` payload that fails or inflates to nothing."""
    payload = deployed_unpad(plaintext, fired)
    require_payload(payload != b"", PayloadReason.PAYLOAD_EMPTY)
    if payload.startswith(MULTIPART_MARKER):
        fired.add("X11")
        raise PayloadError(PayloadReason.PAYLOAD_MULTIPART_UNSUPPORTED, "not yet supported")
    if not payload.startswith(COMPRESSED_MARKER):
        return payload
    frames = payload[len(COMPRESSED_MARKER) :]
    if (announced_size(frames) or 0) > MAX_INFLATED_SIZE:
        fired.add("X15")  # not refused unread: the deployed loop never reads the header
    message = decompress(frames, UNBOUNDED)
    if len(message) > MAX_INFLATED_SIZE:
        fired.add("X15")
    return message


def deployed_unwrap(blobs: list[bytes], keys: list[bytes], domain: bytes, fired: set[str]) -> bytes:
    """`unwrap` over the deployed receive path: the one message the blobs give, or the first
    skip by blob position (D23's answer, the deployed client's steps)."""
    messages: list[bytes] = []
    for position, blob in enumerate(blobs):
        try:
            messages.append(deployed_read(open_blob(blob, keys, domain), fired))
        except ConfigError as error:
            cls = PayloadError if isinstance(error.reason, PayloadReason) else DecryptError
            raise cls(error.reason, f"blob {position + 1} of {len(blobs)}") from None
    require_payload(
        len(messages) == 1, PayloadReason.PAYLOAD_SEVERAL_MESSAGES, f"{len(messages)} messages"
    )
    return messages[0]
