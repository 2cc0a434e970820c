"""Hostile clients of a node, one per kind of attack, for the attack tests and the attack
benchmark (`bench/kvgossip/attack.py`).

Each opens its connections on loopback and hands them back (or runs for a while), so a caller can
measure the node while the attack holds, then `close_all` them. None of them needs more than the
node's addresses; the member attacks also take the cluster key and an identity the membership
announces, as a member gone bad would (`Impostor` claims an id that is not its own).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import struct
from dataclasses import dataclass
from pathlib import Path

from swarmconf.reference.kvgossip import gossip
from swarmconf.reference.kvgossip.control import SOCKET_NAME
from swarmconf.reference.kvgossip.frames import FrameError, FrameWriter, encode_frame, read_frame
from swarmconf.reference.kvgossip.identity import Directory, Identity
from swarmconf.reference.kvgossip.membership import ClusterKey, MembershipError, connect_member
from swarmconf.reference.kvgossip.serf_rpc import SerfRPC
from swarmconf.spec.kvgossip import messages as m

Held = list[FrameWriter]
HOST = "127.0.0.1"
_HASH = b"\x00" * 32


@dataclass(frozen=True)
class Impostor(Identity):
    """A member's identity key claiming the node id `claimed`, which is not derived from it."""

    claimed: bytes = b""

    @property
    def node_id(self) -> bytes:
        """The claimed node id."""
        return self.claimed


def rss_bytes(pid: int) -> int:
    """A process's resident set size."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def close_all(held: Held) -> None:
    """Close every connection an attack holds."""
    for writer in held:
        writer.close()


def hello_frame(node_id: bytes = b"intruder") -> bytes:
    """A well-formed session opening, as a stranger who knows the protocol would send it."""
    return encode_frame(m.message(m.HELLO, m.PROTOCOL_VERSION, node_id, _HASH, _HASH, 0))


async def _open(port: int, first: bytes = b"") -> asyncio.StreamWriter | None:
    try:
        _, writer = await asyncio.open_connection(HOST, port)
        if first:
            writer.write(first)
            await writer.drain()
    except OSError:
        return None
    return writer


async def idle_strangers(port: int, count: int) -> Held:
    """`count` connections that send nothing."""
    opened = await asyncio.gather(*(_open(port) for _ in range(count)))
    return [w for w in opened if w is not None]


async def stranger_hellos(port: int, count: int) -> Held:
    """`count` connections that open a session the way the protocol says, without the key."""
    opened = await asyncio.gather(*(_open(port, hello_frame()) for _ in range(count)))
    return [w for w in opened if w is not None]


async def member_squatters(
    port: int,
    key: ClusterKey,
    identity: Identity,
    directory: Directory,
    count: int,
    timed_out: list[int] | None = None,
) -> Held:
    """`count` sessions from one member that say HELLO and then sit on their slot. The
    attempts that gave up at the handshake timeout, before the node could refuse or admit
    them (a loaded node), are counted in `timed_out[0]` if given."""
    held: Held = []
    for _ in range(count):
        try:
            reader, writer = await connect_member(HOST, port, key, identity, directory)
            writer.write(hello_frame(identity.node_id))
            await read_frame(reader)  # the node's HELLO: a slot is held
        except TimeoutError:
            if timed_out is not None:
                timed_out[0] += 1
            continue
        except (MembershipError, FrameError, OSError):
            continue  # refused: its share of slots is taken
        held.append(writer)
    return held


async def reconnect_storm(port: int, clients: int, stop: asyncio.Event, rate: float = 0.0) -> int:
    """`clients` loops connecting and dropping at once until `stop`, `rate` connects a second
    in all, spread evenly (0: as fast as they can); the number of connects."""
    period = clients / rate if rate else 0.0

    async def client(phase: float) -> int:
        connects = 0
        loop = asyncio.get_running_loop()
        await asyncio.sleep(phase)
        while not stop.is_set():
            started = loop.time()
            writer = await _open(port)
            if writer is not None:
                connects += 1
                writer.close()
            await asyncio.sleep(max(0.0, started + period - loop.time()))
        return connects

    return sum(await asyncio.gather(*(client(period * i / clients) for i in range(clients))))


async def garbage_frames(port: int, count: int, size: int) -> None:
    """`count` connections at once, each sending a `size`-byte frame of random bytes."""
    chunk = os.urandom(64 << 10)

    async def one() -> None:
        writer = await _open(port, struct.pack(">I", size))
        if writer is None:
            return
        with contextlib.suppress(OSError):
            for _ in range(0, size, len(chunk)):  # streamed: the attacker's memory stays small
                writer.write(chunk)
                await writer.drain()
        writer.close()

    await asyncio.gather(*(one() for _ in range(count)))


async def control_flood(data_dir: Path, count: int, size: int) -> Held:
    """`count` control connections, each sending a frame of `size` bytes; held open."""

    async def one() -> asyncio.StreamWriter | None:
        try:
            _, writer = await asyncio.open_unix_connection(str(data_dir / SOCKET_NAME))
            writer.write(struct.pack(">I", size) + b"\x00" * size)
            await writer.drain()
        except OSError:
            return None
        return writer

    opened = await asyncio.gather(*(one() for _ in range(count)))
    return [w for w in opened if w is not None]


async def stranger_replies(port: int, count: int, timeout: float = 10.0) -> int:
    """`count` strangers open a session; how many got any byte back before being closed."""

    async def one() -> int:
        try:
            reader, writer = await asyncio.open_connection(HOST, port)
            writer.write(hello_frame())
            answer = await asyncio.wait_for(reader.read(), timeout)
        except (OSError, TimeoutError):
            return 0
        writer.close()
        return 1 if answer else 0

    return sum(await asyncio.gather(*(one() for _ in range(count))))


async def forged_notices(rpc: SerfRPC, node_id: bytes, count: int, ts: int) -> None:
    """`count` change notices naming `node_id` as the writer of keys nobody has."""
    for i in range(count):
        change = gossip.Change(node_id, f"/forged/{i}", ts, os.urandom(32))
        await rpc.event(gossip.CHANGE_EVENT, change.encode())
