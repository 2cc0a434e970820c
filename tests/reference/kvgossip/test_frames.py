"""Length-prefixed frames: round trip, size cap, truncation, idle timeout."""

from __future__ import annotations

import asyncio
import struct

import pytest

from swarmconf.reference.kvgossip.frames import (
    FrameError,
    encode_frame,
    read_frame,
)
from swarmconf.reference.kvgossip.reasons import NodeReason
from swarmconf.spec.kvgossip.reasons import KvReason


def read(data: bytes, *, eof: bool = True, max_size: int = 64, idle: float = 0.2) -> bytes:
    async def scenario() -> bytes:
        reader = asyncio.StreamReader()
        reader.feed_data(data)
        if eof:
            reader.feed_eof()
        return await read_frame(reader, max_size=max_size, idle_timeout=idle)

    return asyncio.run(scenario())


def reason_of(data: bytes, **kwargs: object) -> str:
    with pytest.raises(FrameError) as info:
        read(data, **kwargs)  # type: ignore[arg-type]
    return info.value.reason


def test_round_trip() -> None:
    assert read(encode_frame(b"hello") + b"next") == b"hello"
    assert read(encode_frame(b"")) == b""
    assert encode_frame(b"ab") == b"\x00\x00\x00\x02ab"


def test_oversize_is_refused_before_reading_the_body() -> None:
    assert reason_of(struct.pack(">I", 65), eof=False) == KvReason.SESSION_FRAME_TOO_LARGE
    assert reason_of(struct.pack(">I", 2**32 - 1)) == KvReason.SESSION_FRAME_TOO_LARGE
    with pytest.raises(FrameError) as info:
        encode_frame(b"x" * 65, max_size=64)
    assert info.value.reason == KvReason.SESSION_FRAME_TOO_LARGE


def test_truncated_and_closed() -> None:
    assert reason_of(b"") == NodeReason.CONNECTION_CLOSED
    assert reason_of(b"\x00\x00") == NodeReason.FRAME_TRUNCATED
    assert reason_of(struct.pack(">I", 10) + b"abc") == NodeReason.FRAME_TRUNCATED


def test_silence_times_out() -> None:
    assert reason_of(b"", eof=False) == KvReason.SESSION_TIMEOUT
    assert reason_of(struct.pack(">I", 10) + b"abc", eof=False) == KvReason.SESSION_TIMEOUT
