"""An attacker on the path between two real nodes: it reads nothing, and its tampering is refused.

Each node announces the port of a loopback forwarder in front of its sync port
(`--advertise-port`), so every sync connection to it (sessions, pushes, fetches) passes through
the forwarder, which records both directions and can alter the next sealed message going to the
node.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from bench.kvgossip.testbed.localcluster import LocalCluster, LocalNode
from swarmconf.reference.kvgossip.membership import (
    ID_SIZE,
    KX_SIZE,
    MAC_SIZE,
    NONCE_SIZE,
    OPENING_SIZE,
    SIG_SIZE,
)
from swarmconf.reference.kvgossip.reasons import NodeReason
from swarmconf.reference.kvgossip.wire import ABYTES, HEADER_SIZE
from swarmconf.spec.kvgossip.fixtures import ROOT
from swarmconf.spec.kvgossip.records import make_record

TO_NODE = OPENING_SIZE + MAC_SIZE + SIG_SIZE + KX_SIZE + HEADER_SIZE
"""Bytes a connection sends the node before its first sealed message."""
FROM_NODE = NONCE_SIZE + ID_SIZE + MAC_SIZE + SIG_SIZE + KX_SIZE + HEADER_SIZE
FINAL_MESSAGE = 4 + ABYTES
"""A sealed stream's closing message: its length prefix and an empty sealed body."""
TAMPERING = {
    "flip": NodeReason.WIRE_TAMPERED,
    "replay": NodeReason.WIRE_REPLAYED,
    "cut": NodeReason.WIRE_TRUNCATED,
    "drop": NodeReason.WIRE_TAMPERED,
}
"""Each attack, and the reason the node refuses it with. A dropped message is seen when the next
one arrives (here the FINAL message of the push connection the writer gives up on), so the
attacker drops one that is not a connection's first: a node waits 5 s for a first message, but
for a later push far longer."""


class OnPath:
    """A forwarder to one node's sync port that records every byte, both ways, and can alter
    the next sealed message that goes to the node (`arm`)."""

    def __init__(self) -> None:
        self.target: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self.recording = bytearray()
        self.connections = 0
        self.armed: str | None = None
        self.applied: list[str] = []
        self._server: asyncio.Server | None = None

    async def start(self) -> int:
        """Listen on a free loopback port; return it."""
        self._server = await asyncio.start_server(self._forward, "127.0.0.1", 0)
        return int(self._server.sockets[0].getsockname()[1])

    def arm(self, attack: str) -> None:
        self.armed = attack

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()

    async def _forward(self, client: asyncio.StreamReader, back: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            node, onward = await asyncio.open_connection("127.0.0.1", await self.target)
        except OSError:
            back.close()
            return
        await asyncio.gather(
            self._pump(client, onward, TO_NODE, tamper=True),
            self._pump(node, back, FROM_NODE, tamper=False),
            return_exceptions=True,
        )

    async def _pump(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, clear: int, tamper: bool
    ) -> None:
        """Pass the clear handshake on as it is, then one sealed message at a time."""
        buffer, passed, index = bytearray(), 0, 0
        try:
            while chunk := await reader.read(65536):
                self.recording += chunk
                buffer += chunk
                if passed < clear:
                    take = min(clear - passed, len(buffer))
                    writer.write(bytes(buffer[:take]))
                    del buffer[:take]
                    passed += take
                while passed == clear and len(buffer) >= 4:
                    size = 4 + int.from_bytes(buffer[:4], "big")
                    if len(buffer) < size:
                        break
                    message = bytes(buffer[:size])
                    del buffer[:size]
                    may = tamper and (index > 0 or self.armed != "drop")
                    index += 1
                    if not self._pass(message, writer, may):
                        return
                await writer.drain()
        except ConnectionError:
            pass
        finally:
            writer.close()

    def _pass(self, message: bytes, writer: asyncio.StreamWriter, tamper: bool) -> bool:
        """Send `message` on, altered if an attack is armed; False to cut the connection."""
        attack = self.armed
        if not tamper or attack is None or len(message) == FINAL_MESSAGE:
            writer.write(message)
            return True
        self.armed = None
        self.applied.append(attack)
        if attack == "flip":
            flipped = bytearray(message)
            flipped[len(message) // 2] ^= 0x01
            writer.write(bytes(flipped))
        elif attack == "replay":
            writer.write(message + message)
        elif attack == "cut":
            writer.write(message[: len(message) // 2])
            return False
        return True  # "drop": nothing sent


async def until(check: Callable[[], Awaitable[bool]], timeout: float = 30.0) -> None:
    async with asyncio.timeout(timeout):
        while not await check():
            await asyncio.sleep(0.05)


async def behind(cluster: LocalCluster, name: str) -> tuple[LocalNode, OnPath]:
    """A node reached only through a forwarder of its own."""
    path = OnPath()
    node = await cluster.add(name, advertise_port=await path.start())
    path.target.set_result(int((await node.status())["sync_port"]))
    return node, path


def secret_write(writer: LocalNode, label: str) -> tuple[str, bytes, Awaitable[object]]:
    key = f"/onpath/{label}-{os.urandom(6).hex()}"
    value = f"confidential-{label}-{os.urandom(8).hex()}".encode()
    record = make_record(ROOT.seed, key, time.time_ns() // 1_000_000, value)
    return key, value, writer.call({"op": "put", "record": record.encode()})


async def holds(node: LocalNode, key: str, value: bytes) -> bool:
    return await node.value(key) == value


async def wire_refused(node: LocalNode, reason: str) -> int:
    return int((await node.status())["wire_refused"].get(reason, 0))


def test_an_on_path_attacker_reads_nothing_and_its_tampering_is_refused(tmp_path: Path) -> None:
    async def scenario(cluster: LocalCluster, paths: list[OnPath]) -> None:
        a, to_a = await behind(cluster, "a")
        paths.append(to_a)
        b, to_b = await behind(cluster, "b")
        paths.append(to_b)
        await cluster.linked()

        # Distinctive keys and values written on both sides cross the wire sealed.
        written = []
        for i in range(20):
            for writer in (a, b):
                key, value, put = secret_write(writer, f"{writer.name}{i}")
                await put
                written.append((key, value))
        for node in (a, b):
            for key, value in written:
                await until(lambda n=node, k=key, v=value: holds(n, k, v))
        assert to_a.connections and to_b.connections
        recorded = bytes(to_a.recording + to_b.recording)
        assert len(recorded) > sum(len(k) + len(v) for k, v in written)
        for key, value in written:
            assert key.encode() not in recorded and value not in recorded
            assert value[-8:] not in recorded  # not even a fragment

        # Each tampering with what b sends a: refused with its reason, and logged; the write
        # reaches a all the same.
        for attack, reason in TAMPERING.items():
            key, value, put = secret_write(b, f"before-{attack}")  # b has a push connection
            await put
            await until(lambda k=key, v=value: holds(a, k, v))
            before = await wire_refused(a, reason)
            to_a.arm(attack)
            key, value, put = secret_write(b, attack)
            await put
            await until(lambda k=key, v=value: holds(a, k, v))
            await until(lambda r=reason, n=before: _more(a, r, n))
            assert to_a.applied[-1] == attack
        log = (a.data_dir / "node.log").read_text()
        for reason in set(TAMPERING.values()):
            assert "refused sealed sync connection with 127.0.0.1:" in log
            assert f": {reason}: " in log
        await cluster.converged()

    async def main() -> None:
        cluster = LocalCluster(tmp_path, ROOT.pk)
        paths: list[OnPath] = []
        try:
            async with asyncio.timeout(240):
                await scenario(cluster, paths)
        finally:
            await cluster.close()
            for path in paths:
                with contextlib.suppress(Exception):
                    await path.close()

    asyncio.run(main())


async def _more(node: LocalNode, reason: str, than: int) -> bool:
    return await wire_refused(node, reason) > than
