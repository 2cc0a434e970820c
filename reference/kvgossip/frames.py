"""Sync-session framing: each frame is a 4-byte big-endian length followed by that many bytes.

The reader enforces a size cap (checked on the length prefix, before any body is read) and an
idle timeout per frame, so a silent, slow or hostile peer costs a bounded amount of memory and
time. Every failure is a `FrameError` carrying a stable reason code: the spec's
`SESSION_FRAME_TOO_LARGE` and `SESSION_TIMEOUT`, or the node's `CONNECTION_CLOSED` and
`FRAME_TRUNCATED`.
"""

from __future__ import annotations

import asyncio
import struct
from typing import Protocol

from swarmconf.spec.kvgossip.messages import MAX_FRAME_BYTES
from swarmconf.spec.kvgossip.reasons import KvReason

from .reasons import NodeReason

IDLE_TIMEOUT = 5.0
_LENGTH = struct.Struct(">I")


class FrameReader(Protocol):
    """What frames are read from: an `asyncio.StreamReader`, or a sealed one (`wire`)."""

    async def readexactly(self, n: int, /) -> bytes:
        """Exactly `n` bytes; `asyncio.IncompleteReadError` if the stream ends first."""
        ...


class FrameWriter(Protocol):
    """What frames are written to: an `asyncio.StreamWriter`, or a sealed one (`wire`)."""

    def write(self, data: bytes, /) -> None:
        """Queue `data` (one whole frame) for sending."""

    async def drain(self) -> None:
        """Wait until the queued data is handed to the OS."""

    def close(self) -> None:
        """Close the connection."""

    async def wait_closed(self) -> None:
        """Wait until the connection is closed."""


class FrameError(Exception):
    """A frame could not be read or written; `.reason` is a stable code."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


def encode_frame(payload: bytes, *, max_size: int = MAX_FRAME_BYTES) -> bytes:
    """The frame carrying `payload`."""
    if len(payload) > max_size:
        raise FrameError(KvReason.SESSION_FRAME_TOO_LARGE, f"{len(payload)} > {max_size} bytes")
    return _LENGTH.pack(len(payload)) + payload


async def read_frame(
    reader: FrameReader,
    *,
    max_size: int = MAX_FRAME_BYTES,
    idle_timeout: float = IDLE_TIMEOUT,
) -> bytes:
    """Read one frame's payload."""
    try:
        async with asyncio.timeout(idle_timeout):
            try:
                prefix = await reader.readexactly(_LENGTH.size)
            except asyncio.IncompleteReadError as exc:
                reason = NodeReason.FRAME_TRUNCATED if exc.partial else NodeReason.CONNECTION_CLOSED
                raise FrameError(reason) from exc
            (length,) = _LENGTH.unpack(prefix)
            if length > max_size:
                raise FrameError(KvReason.SESSION_FRAME_TOO_LARGE, f"{length} > {max_size} bytes")
            try:
                return await reader.readexactly(length)
            except asyncio.IncompleteReadError as exc:
                raise FrameError(
                    NodeReason.FRAME_TRUNCATED, f"{len(exc.partial)}/{length}"
                ) from exc
    except TimeoutError as exc:
        raise FrameError(KvReason.SESSION_TIMEOUT, f"{idle_timeout} s") from exc
    except ConnectionError as exc:
        raise FrameError(NodeReason.CONNECTION_CLOSED, str(exc)) from exc


async def write_frame(
    writer: FrameWriter, payload: bytes, *, max_size: int = MAX_FRAME_BYTES
) -> None:
    """Send one frame and wait until it is handed to the OS."""
    writer.write(encode_frame(payload, max_size=max_size))
    try:
        await writer.drain()
    except ConnectionError as exc:
        raise FrameError(NodeReason.CONNECTION_CLOSED, str(exc)) from exc
