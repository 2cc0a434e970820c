"""What sealing costs the sync wire on its own, in one process (`make bench-kv`, first).

Times, over in-memory streams: one frame sealed by a `SealedWriter` and opened by a
`SealedReader` (a PUSH-sized frame of 300 bytes, a 64 KiB one and a largest 4 MiB one), the
same frame written and read in clear, and the membership handshake, then the key exchange,
between the two ends of a socket pair (both ends in this process). Medians of `--rounds` rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import statistics
import time

from swarmconf.reference.kvgossip.frames import read_frame, write_frame
from swarmconf.reference.kvgossip.identity import Directory, Identity
from swarmconf.reference.kvgossip.membership import (
    ClusterKey,
    answer_membership,
    exchange_keys,
    open_handshake,
)
from swarmconf.reference.kvgossip.serf_rpc import Member
from swarmconf.reference.kvgossip.wire import SealedReader, SealedWriter
from swarmconf.spec.kvgossip.messages import MAX_FRAME_BYTES

SIZES = (300, 64 * 1024, MAX_FRAME_BYTES - 64)
KEY = b"k" * 32


class _Sink:
    """A stream writer's stand-in that keeps what is written."""

    def __init__(self) -> None:
        self.data = bytearray()

    def write(self, data: bytes) -> None:
        self.data += data

    def is_closing(self) -> bool:
        return False

    async def drain(self) -> None:
        return None


async def frame_round(size: int, sealed: bool) -> float:
    """Seconds to write one frame of `size` bytes and read it back."""
    payload, sink = bytes(size), _Sink()
    raw = asyncio.StreamReader(limit=2 * MAX_FRAME_BYTES)
    writer = SealedWriter(sink, KEY) if sealed else sink  # type: ignore[arg-type]
    reader = SealedReader(raw, KEY, lambda reason, detail: None) if sealed else raw
    start = time.perf_counter()
    await write_frame(writer, payload)  # type: ignore[arg-type]
    raw.feed_data(bytes(sink.data))
    assert await read_frame(reader) == payload
    return time.perf_counter() - start


async def handshake_round() -> tuple[float, float]:
    """Seconds for the handshake, then for the key exchange, between the two ends of a socket
    pair."""
    key, one, two = ClusterKey(b"c" * 32), Identity(b"1" * 32), Identity(b"2" * 32)
    directory = Directory()
    directory.update(
        Member(n, "127.0.0.1", 1, i.tags(), "alive") for n, i in (("1", one), ("2", two))
    )
    left, right = socket.socketpair()
    i_reader, i_writer = await asyncio.open_connection(sock=left)
    r_reader, r_writer = await asyncio.open_connection(sock=right)
    start = time.perf_counter()
    opened, answered = await asyncio.gather(
        open_handshake(key, one, directory, i_reader, i_writer),
        answer_membership(key, two, directory, r_reader, r_writer),
    )
    proven = time.perf_counter()
    await asyncio.gather(
        exchange_keys(key, one, opened, True, i_reader, i_writer, lambda r, d: None),
        exchange_keys(key, two, answered, False, r_reader, r_writer, lambda r, d: None),
    )
    sealed = time.perf_counter()
    i_writer.close()
    r_writer.close()
    return proven - start, sealed - proven


async def main(rounds: int) -> None:
    print(f"Sealing the sync wire, one process (medians of {rounds} rounds):")
    print("| frame | in clear | sealed | sealed MB/s |")
    print("|---:|---:|---:|---:|")
    for size in SIZES:
        clear = statistics.median([await frame_round(size, False) for _ in range(rounds)])
        sealed = statistics.median([await frame_round(size, True) for _ in range(rounds)])
        print(
            f"| {size:,} B | {clear * 1e6:,.0f} µs | {sealed * 1e6:,.0f} µs |"
            f" {size / sealed / 1e6:,.0f} |"
        )
    times = [await handshake_round() for _ in range(rounds)]
    handshake = statistics.median(t for t, _ in times)
    exchange = statistics.median(t for _, t in times)
    print(f"handshake {handshake * 1000:.2f} ms, then key exchange {exchange * 1000:.2f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=50)
    asyncio.run(main(parser.parse_args().rounds))
