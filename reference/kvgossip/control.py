"""The node's local control API: a Unix socket in the data directory, msgpack maps in frames.

A request is `{"op": ..., ...}`; every reply carries `ok` and, when refused, a stable `reason`.
Operations: `put` (signed record bytes), `revoke` (signed revocation bytes), `get`, `list`,
`grants`, `status`, and `watch`, which keeps the connection open and streams one map per change.
A malformed request gets `CONTROL_BAD_REQUEST` and never disturbs the node.

The socket is mode 0600 in the 0700 data directory whatever the umask, so only the node's user
can connect. Even so at most `MAX_CONTROL_CONNECTIONS` are served at once (more are answered
`CONTROL_LIMIT` and closed), and a request frame may not exceed `MAX_CONTROL_FRAME`: the largest
real request, a `put` of the largest record the spec allows, with room for its msgpack framing.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import msgpack  # type: ignore[import-untyped]

from swarmconf.spec.kvgossip.messages import MAX_FRAME_BYTES
from swarmconf.spec.kvgossip.records import MAX_RECORD_BYTES, Record

from . import memory
from .frames import FrameError, read_frame, write_frame
from .privacy import FILE_MODE, check_private_file
from .reasons import NodeReason

if TYPE_CHECKING:
    from .node import Node

T = TypeVar("T")
SOCKET_NAME = "control.sock"
MAX_CONTROL_FRAME = MAX_RECORD_BYTES + 1024
MAX_CONTROL_CONNECTIONS = 8
MAX_REPLY_FRAME = MAX_FRAME_BYTES
REQUEST_TIMEOUT = 60.0
WATCH_IDLE = 365 * 24 * 3600.0
BAD_REQUEST = NodeReason.CONTROL_BAD_REQUEST
NOT_RUNNING = NodeReason.NODE_NOT_RUNNING


def pack(value: dict[str, Any]) -> bytes:
    """One control message."""
    return bytes(msgpack.packb(value, use_bin_type=True))


def unpack(data: bytes) -> dict[str, Any]:
    """Decode one control message; anything but a map with a string `op` or `ok` is refused."""
    error = ""
    try:
        value = msgpack.unpackb(data, raw=False, strict_map_key=True)
    except (ValueError, TypeError, msgpack.UnpackException) as exc:
        # Raised outside this block: msgpack's exception holds the request's bytes, and a
        # chained traceback would keep them alive in a reference cycle until a GC pass.
        error = f"not msgpack: {type(exc).__name__}"
    if error:
        raise ValueError(error)
    if not isinstance(value, dict):
        raise ValueError("not a map")
    return value


def describe(record: Record) -> dict[str, Any]:
    """A record as the control API reports it."""
    return {
        "key": record.key,
        "ts": record.ts,
        "state": "deleted" if record.tombstone else "set",
        "value": record.value,
        "signer": record.signer.hex(),
    }


def _field(request: dict[str, Any], name: str, kind: type[T], default: T | None = None) -> T:
    """A request field of the given type (absent: the default, if any)."""
    value = request.get(name, default)
    if not isinstance(value, kind):
        raise ValueError(f"{name} must be {kind.__name__}")
    return value


class ControlServer:
    """Serves the control API of one node."""

    def __init__(self, node: Node) -> None:
        self.node = node
        self.path = node.config.data_dir / SOCKET_NAME
        self._server: asyncio.Server | None = None
        self.connections = 0
        self.refused = 0
        self._large = False
        """A large request was read since the connections last all closed."""

    async def start(self) -> None:
        """Listen on the socket (replacing a stale one left by a crash), mode 0600."""
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        self._server = await asyncio.start_unix_server(self._admit, path=str(self.path))
        os.chmod(self.path, FILE_MODE)  # the bind follows the umask; the 0700 directory guards
        check_private_file(self.path)

    async def _admit(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.connections >= MAX_CONTROL_CONNECTIONS:
            self.refused += 1
            with contextlib.suppress(FrameError):
                await write_frame(writer, pack({"ok": False, "reason": NodeReason.CONTROL_LIMIT}))
            writer.close()
            return
        self.connections += 1
        try:
            await self._serve(reader, writer)
        finally:
            self.connections -= 1
            if self.connections == 0 and self._large:
                self._large = False  # once the closed connections' buffers are gone too:
                asyncio.get_running_loop().call_later(memory.SETTLE, memory.release)

    async def stop(self) -> None:
        """Stop listening."""
        if self._server is not None:
            self._server.close()
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                try:
                    frame = await read_frame(
                        reader, max_size=MAX_CONTROL_FRAME, idle_timeout=REQUEST_TIMEOUT
                    )
                except FrameError as exc:
                    with contextlib.suppress(FrameError):
                        await write_frame(writer, pack({"ok": False, "reason": exc.reason}))
                    return
                self._large |= len(frame) >= memory.LARGE
                try:
                    request = unpack(frame)
                    op = request["op"]
                except (ValueError, KeyError) as exc:
                    await write_frame(
                        writer, pack({"ok": False, "reason": BAD_REQUEST, "detail": str(exc)})
                    )
                    continue
                if op == "watch":
                    await self._watch(str(request.get("prefix", "")), reader, writer)
                    return
                await write_frame(writer, pack(await self._answer(op, request)))
        except (FrameError, asyncio.CancelledError):
            return  # the client went away, or the node is stopping
        finally:
            writer.close()

    async def _answer(self, op: object, request: dict[str, Any]) -> dict[str, Any]:
        node = self.node
        try:
            if op == "put":
                verdict = await node.put(_field(request, "record", bytes))
                reason = verdict.reason.value if verdict.reason else ""
                return {
                    "ok": verdict.reason is None,
                    "outcome": verdict.outcome.value,
                    "reason": reason,
                }
            if op == "revoke":
                data = _field(request, "revocation", bytes)
                refused, new, purged = node.revoke(data)
                if refused is not None:
                    return {"ok": False, "reason": refused}
                if new:
                    await node.announce_revocation(data)
                return {"ok": True, "new": new, "purged": list(purged)}
            if op == "get":
                record = node.store.get(_field(request, "key", str))
                return {"ok": True, "record": None if record is None else describe(record)}
            if op == "list":
                prefix = _field(request, "prefix", str, "")
                return {
                    "ok": True,
                    "records": [describe(r) for r in node.store.records_under(prefix)],
                }
            if op == "grants":
                return {"ok": True, "grants": node.store.grants()}
            if op == "status":
                control = {"connections": self.connections, "refused": self.refused}
                status = {**node.status(), "control": control, "peers": await node.peers()}
                return {"ok": True, "status": status}
        except (KeyError, TypeError, ValueError) as exc:
            return {"ok": False, "reason": BAD_REQUEST, "detail": f"{op}: {exc}"}
        return {"ok": False, "reason": BAD_REQUEST, "detail": f"unknown op {op!r}"}

    async def _watch(
        self, prefix: str, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        """Stream changes under `prefix` until the client closes the connection."""
        changes: asyncio.Queue[str] = asyncio.Queue()
        hangup = asyncio.ensure_future(reader.read())

        def listener(keys: list[str]) -> None:
            for key in keys:
                if key.startswith(prefix):
                    changes.put_nowait(key)

        self.node.store.listeners.append(listener)
        try:
            await write_frame(writer, pack({"ok": True}))
            while True:
                changed = asyncio.ensure_future(changes.get())
                await asyncio.wait({changed, hangup}, return_when=asyncio.FIRST_COMPLETED)
                if not changed.done():
                    changed.cancel()
                    return
                key = changed.result()
                record = self.node.store.get(key)
                change = describe(record) if record else {"key": key, "state": "absent"}
                await write_frame(writer, pack(change))
        finally:
            hangup.cancel()
            self.node.store.listeners.remove(listener)


class ControlError(Exception):
    """The node refused a request or cannot be reached; `.reason` is a stable code."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


async def _open(data_dir: Path) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    path = data_dir / SOCKET_NAME
    try:
        return await asyncio.open_unix_connection(str(path))
    except OSError as exc:
        raise ControlError(NOT_RUNNING, f"no node answers at {path} ({exc.strerror})") from exc


async def call(data_dir: Path, request: dict[str, Any]) -> dict[str, Any]:
    """Send one request to the node of `data_dir`; raise `ControlError` unless it succeeds."""
    reader, writer = await _open(data_dir)
    try:
        await write_frame(writer, pack(request), max_size=MAX_CONTROL_FRAME)
        reply = unpack(await read_frame(reader, max_size=MAX_REPLY_FRAME, idle_timeout=30))
    except (FrameError, ValueError) as exc:
        raise ControlError(NOT_RUNNING, str(exc)) from exc
    finally:
        writer.close()
    if not reply.get("ok"):
        raise ControlError(str(reply.get("reason", BAD_REQUEST)), str(reply.get("detail", "")))
    return reply


class Watch:
    """A confirmed subscription: iterate it for changes; `close()` ends it."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer

    def __aiter__(self) -> AsyncIterator[dict[str, Any]]:
        return self._changes()

    async def _changes(self) -> AsyncIterator[dict[str, Any]]:
        while True:
            try:
                frame = await read_frame(
                    self._reader, max_size=MAX_REPLY_FRAME, idle_timeout=WATCH_IDLE
                )
            except FrameError:
                return
            yield unpack(frame)

    def close(self) -> None:
        """End the subscription."""
        self._writer.close()


async def watch(data_dir: Path, prefix: str) -> Watch:
    """Subscribe to every change under `prefix` the node stores from now on."""
    reader, writer = await _open(data_dir)
    try:
        await write_frame(writer, pack({"op": "watch", "prefix": prefix}))
        first = unpack(await read_frame(reader, idle_timeout=30))
    except (FrameError, ValueError) as exc:
        writer.close()
        raise ControlError(NOT_RUNNING, str(exc)) from exc
    if not first.get("ok"):
        writer.close()
        raise ControlError(str(first.get("reason", BAD_REQUEST)))
    return Watch(reader, writer)
