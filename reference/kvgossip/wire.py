"""The sealed sync wire: every byte after the membership handshake, encrypted and authenticated.

Once both sides have proved membership and node ids (`membership`), they exchange ephemeral
X25519 keys and derive one key per direction (`membership.exchange_keys`). Each direction is
then one libsodium `crypto_secretstream_xchacha20poly1305` stream: the sender's first 24 bytes
are the stream's header, and each `write` becomes one stream message, sent as a 4-byte
big-endian length and the ciphertext (the plaintext plus 17 bytes). At a clean close the sender
adds an empty message tagged FINAL.

The stream's state advances with every message, so a message that was altered, forged, replayed,
reordered or follows a dropped one does not authenticate where it arrives, and a stream that
ends without its FINAL message was cut short. Each ends the connection with a `FrameError`
whose reason is `WIRE_TAMPERED`, `WIRE_REPLAYED` (a copy of a message already received, told
apart by its authentication tag) or `WIRE_TRUNCATED` (and a length past the largest frame,
`SESSION_FRAME_TOO_LARGE`); the failure is also reported once to the
callback the reader was given (the node counts and logs it). Nothing of a refused message is
handed on.

`SealedReader` and `SealedWriter` offer what the frame functions use of a stream
(`frames.FrameReader`, `frames.FrameWriter`), so the session, push and fetch code runs on them
unchanged.
"""

from __future__ import annotations

import asyncio
import struct
from collections import deque
from collections.abc import Callable

from nacl.bindings import (
    crypto_secretstream_xchacha20poly1305_ABYTES as ABYTES,
)
from nacl.bindings import (
    crypto_secretstream_xchacha20poly1305_HEADERBYTES as HEADER_SIZE,
)
from nacl.bindings import (
    crypto_secretstream_xchacha20poly1305_init_pull,
    crypto_secretstream_xchacha20poly1305_init_push,
    crypto_secretstream_xchacha20poly1305_pull,
    crypto_secretstream_xchacha20poly1305_push,
    crypto_secretstream_xchacha20poly1305_state,
)
from nacl.bindings import (
    crypto_secretstream_xchacha20poly1305_TAG_FINAL as TAG_FINAL,
)
from nacl.exceptions import CryptoError

from swarmconf.spec.kvgossip.messages import MAX_FRAME_BYTES
from swarmconf.spec.kvgossip.reasons import KvReason

from .frames import FrameError
from .reasons import NodeReason

_LENGTH = struct.Struct(">I")
MAX_SEALED = MAX_FRAME_BYTES + _LENGTH.size + ABYTES
"""The largest ciphertext: one largest frame with its length prefix, sealed."""
_TAG_SIZE = 16
"""A sealed message ends with its Poly1305 authentication tag."""
RECENT_TAGS = 1024
"""Authentication tags of the last messages received, kept to name a replay as such."""

Report = Callable[[str, str], None]
"""Told once `(reason, detail)` when a stream is refused."""


class SealedWriter:
    """The sending half: each `write` is sealed as one message of the stream."""

    def __init__(self, raw: asyncio.StreamWriter, key: bytes) -> None:
        self.raw = raw
        self._state = crypto_secretstream_xchacha20poly1305_state()
        self._closed = False
        raw.write(crypto_secretstream_xchacha20poly1305_init_push(self._state, key))

    def write(self, data: bytes) -> None:
        """Seal `data` as one message and hand it to the transport."""
        sealed = crypto_secretstream_xchacha20poly1305_push(self._state, bytes(data))
        self.raw.write(_LENGTH.pack(len(sealed)))
        self.raw.write(sealed)

    async def drain(self) -> None:
        """Wait until the transport's buffer has room."""
        await self.raw.drain()

    def close(self) -> None:
        """End the stream with its FINAL message, then close the connection."""
        if self._closed:
            return
        self._closed = True
        if not self.raw.is_closing():
            final = crypto_secretstream_xchacha20poly1305_push(self._state, b"", tag=TAG_FINAL)
            self.raw.write(_LENGTH.pack(len(final)) + final)
        self.raw.close()

    async def wait_closed(self) -> None:
        """Wait until the connection is closed."""
        await self.raw.wait_closed()


class SealedReader:
    """The receiving half: `readexactly` hands on plaintext from messages that authenticate."""

    def __init__(self, raw: asyncio.StreamReader, key: bytes, report: Report) -> None:
        self.raw = raw
        self._key = key
        self._report = report
        self._state: crypto_secretstream_xchacha20poly1305_state | None = None
        self._plain = b""
        self._at = 0
        """Plaintext received and not yet read: `_plain[_at:]` (no copy for a whole frame)."""
        self._length: int | None = None
        self._ended = False
        self._error: FrameError | None = None
        self._recent: deque[bytes] = deque(maxlen=RECENT_TAGS)

    async def readexactly(self, n: int) -> bytes:
        """`n` bytes of plaintext; `IncompleteReadError` if the stream ended cleanly first, else
        `FrameError` with the reason it was refused."""
        while len(self._plain) - self._at < n:
            if self._error is not None:
                raise self._error
            if self._ended:
                raise asyncio.IncompleteReadError(self._plain[self._at :], n)
            await self._next_message()
        data = self._plain[self._at : self._at + n]
        self._at += n
        return data

    async def _next_message(self) -> None:
        """Read, open and buffer one message (resumable: a cancelled read loses nothing)."""
        try:
            if self._state is None:
                header = await self.raw.readexactly(HEADER_SIZE)
                state = crypto_secretstream_xchacha20poly1305_state()
                crypto_secretstream_xchacha20poly1305_init_pull(state, header, self._key)
                self._state = state
            if self._length is None:
                (length,) = _LENGTH.unpack(await self.raw.readexactly(_LENGTH.size))
                if length > MAX_SEALED:
                    raise self._refuse(KvReason.SESSION_FRAME_TOO_LARGE, f"{length} sealed bytes")
                self._length = length
            sealed = await self.raw.readexactly(self._length)
        except asyncio.IncompleteReadError as exc:
            raise self._refuse(
                NodeReason.WIRE_TRUNCATED, "the stream ended without its FINAL message"
            ) from exc
        except ConnectionError as exc:
            raise self._refuse(NodeReason.WIRE_TRUNCATED, f"the connection broke: {exc}") from exc
        except FrameError as exc:  # the raw reader's own (its byte budget), or a refusal
            self._error = exc
            raise
        self._length = None
        try:
            plain, tag = crypto_secretstream_xchacha20poly1305_pull(self._state, sealed)
        except CryptoError:
            replayed = sealed[-_TAG_SIZE:] in self._recent
            reason = NodeReason.WIRE_REPLAYED if replayed else NodeReason.WIRE_TAMPERED
            raise self._refuse(reason, "a message did not authenticate here") from None
        self._recent.append(sealed[-_TAG_SIZE:])
        self._plain, self._at = self._plain[self._at :] + plain, 0
        self._ended = tag == TAG_FINAL

    def _refuse(self, reason: str, detail: str) -> FrameError:
        """Refuse the stream for good: report it once, and return the error every read raises."""
        self._error = FrameError(reason, detail)
        self._report(reason, detail)
        return self._error
