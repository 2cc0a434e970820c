"""zstd compression of a pushed message (D21) and its bounded decompression (D24).

The deployed client compresses with libzstd's one-shot API at level 1; swarmconf uses the same
library through python-zstandard, whose frames carry the content size and no checksum, as the
one-shot API writes them.
"""

from __future__ import annotations

import io

import zstandard

from .reasons import PayloadError, PayloadReason, UsageError, require_payload

COMPRESSED_MARKER = b"z"
"""The byte in front of a compressed message (D21)."""
DEFAULT_LEVEL = 1
"""The deployed client's level for every config type (D21)."""
LEVELS = range(1, 23)
"""The zstd levels a caller may ask for; None asks for no compression."""
MAX_INFLATED_SIZE = 5_000_000
"""No `z` payload inflates past this many bytes (D24)."""
READ_SIZE = 1 << 16
"""How much decompressed output is read at a time while the bound is checked."""


def check_level(level: int | None) -> None:
    """A compression level is None (no compression) or a zstd level from 1 to 22 (D21)."""
    if level is not None and (isinstance(level, bool) or level not in LEVELS):
        raise UsageError(PayloadReason.BAD_LEVEL, f"{level!r} is not a level from 1 to 22")


def zstd_compress(data: bytes, level: int) -> bytes:
    """One zstd frame of `data`: content size in the header, no checksum, no dictionary (D21)."""
    return zstandard.ZstdCompressor(level=level).compress(data)


def compress(message: bytes, level: int | None = DEFAULT_LEVEL) -> bytes:
    """The message, or `z` and its zstd frame when that is strictly shorter (D21).

    A tie keeps the message as it is, so a reader never inflates what it could read directly.
    """
    check_level(level)
    if level is None:
        return message
    compressed = COMPRESSED_MARKER + zstd_compress(message, level)
    return compressed if len(compressed) < len(message) else message


def announced_size(frames: bytes) -> int | None:
    """The content size the first frame's header announces, None when it announces none (D24)."""
    try:
        size = zstandard.frame_content_size(frames)
    except zstandard.ZstdError as error:
        raise PayloadError(PayloadReason.ZSTD_BAD_FRAME, str(error)) from error
    return None if size < 0 else size


def inflate_bounded(frames: bytes, limit: int) -> bytes:
    """Decompress every frame in turn, stopping as soon as the output passes `limit` (D24)."""
    reader = zstandard.ZstdDecompressor().stream_reader(io.BytesIO(frames), read_across_frames=True)
    pieces: list[bytes] = []
    total = 0
    try:
        while piece := reader.read(READ_SIZE):
            total += len(piece)
            # Verify the output stays within the limit before reading on
            require_payload(total <= limit, PayloadReason.ZSTD_TOO_LARGE, f"over {limit} bytes")
            pieces.append(piece)
    except zstandard.ZstdError as error:
        raise PayloadError(PayloadReason.ZSTD_BAD_FRAME, str(error)) from error
    return b"".join(pieces)


def frames_complete(frames: bytes) -> bool:
    """Whether `frames` is one or more whole zstd frames and nothing else (D24).

    Called only on input already known to inflate within the limit.
    """
    rest = frames
    while rest:
        decoder = zstandard.ZstdDecompressor().decompressobj()
        try:
            decoder.decompress(rest)
        except zstandard.ZstdError:
            return False
        if not decoder.eof:
            return False
        rest = decoder.unused_data
    return True


def decompress(frames: bytes, limit: int = MAX_INFLATED_SIZE) -> bytes:
    """The message inside a `z` payload's frames, never more than `limit` bytes (D24).

    The bound holds before anything is allocated: a header announcing more is refused unread,
    and a frame without one is inflated a piece at a time.
    """
    # Verify the first frame's header announces no more than the limit
    size = announced_size(frames)
    require_payload(size is None or size <= limit, PayloadReason.ZSTD_TOO_LARGE, f"{size} bytes")
    message = inflate_bounded(frames, limit)
    # Verify the frames are whole: a truncated frame is not a shorter message
    require_payload(frames_complete(frames), PayloadReason.ZSTD_BAD_FRAME, "incomplete frame")
    # Verify something came out
    require_payload(message != b"", PayloadReason.ZSTD_EMPTY)
    return message
