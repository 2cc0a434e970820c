"""An asyncio client for the Serf agent's msgpack RPC.

The wire protocol (design notes, section 6.3): a TCP stream of msgpack objects. A request is a
header map `{Command, Seq}`, followed by a body map when the command takes arguments. A reply is
a header `{Seq, Error}`, followed by a body for the commands in `_BODY_COMMANDS`. A `stream` or a
`query` is acknowledged by a bare header and then delivers header + record pairs under its Seq
until it is stopped (stream) or its `done` record arrives (query). Replies are matched to
requests by Seq, so one connection carries streams, queries and commands at once; a query
received on a stream must be answered (`respond`) on that same connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import math
import socket
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import msgpack  # type: ignore[import-untyped]

# Commands whose reply header is followed by a body map (all others reply with a header only).
_BODY_COMMANDS = frozenset({"members", "members-filtered", "join", "stats", "get-coordinate"})
_READ_CHUNK = 65536


class SerfError(Exception):
    """The agent refused a command, or the RPC connection failed or closed."""


@dataclass(frozen=True)
class Member:
    """One cluster member as the agent sees it."""

    name: str
    addr: str
    port: int
    tags: dict[str, str]
    status: str


@dataclass(frozen=True)
class Coordinate:
    """A Vivaldi network coordinate (Serf's `get-coordinate`)."""

    vec: tuple[float, ...]
    error: float
    adjustment: float
    height: float

    def rtt_to(self, other: Coordinate) -> float:
        """Estimated round-trip time to `other` in seconds, computed as Serf's `serf rtt` does."""
        distance = math.dist(self.vec, other.vec) + self.height + other.height
        adjusted = distance + self.adjustment + other.adjustment
        return adjusted if adjusted > 0 else distance


@dataclass(frozen=True)
class UserEvent:
    """A user event delivered on a stream."""

    name: str
    payload: bytes
    ltime: int
    coalesce: bool


@dataclass(frozen=True)
class Query:
    """A query delivered on a stream; answer it with `SerfRPC.respond` on the same client."""

    id: int
    name: str
    payload: bytes
    ltime: int


@dataclass(frozen=True)
class MemberEvent:
    """A membership change (`member-join`, `member-leave`, `member-failed`, ...)."""

    kind: str
    members: tuple[Member, ...]


@dataclass(frozen=True)
class QueryReply:
    """One answer to a query this client sent: an `ack` or a `response` from node `sender`."""

    kind: str
    sender: str
    payload: bytes


StreamRecord = UserEvent | Query | MemberEvent


@dataclass
class _Pending:
    """What the reader expects for one Seq."""

    command: str
    reply: asyncio.Future[dict[str, Any]]
    # Streams and queries deliver records after the acknowledging header.
    records: asyncio.Queue[dict[str, Any] | None] | None = None
    acknowledged: bool = False
    error: str = ""
    """The header's error, kept until the body that follows it arrives."""


def _member(raw: dict[str, Any]) -> Member:
    """Decode a member map; `Addr` is the raw packed IP address."""
    packed = bytes(raw.get("Addr") or b"")
    addr = ""
    if len(packed) in (4, 16):
        ip = ipaddress.ip_address(packed)
        mapped = ip.ipv4_mapped if isinstance(ip, ipaddress.IPv6Address) else None
        addr = str(mapped or ip)
    return Member(
        name=str(raw.get("Name", "")),
        addr=addr,
        port=int(raw.get("Port", 0)),
        tags={str(k): str(v) for k, v in (raw.get("Tags") or {}).items()},
        status=str(raw.get("Status", "")),
    )


def _stream_record(raw: dict[str, Any]) -> StreamRecord:
    """Decode one record delivered on a stream."""
    kind = str(raw.get("Event", ""))
    if kind == "user":
        return UserEvent(
            name=str(raw["Name"]),
            payload=bytes(raw.get("Payload") or b""),
            ltime=int(raw.get("LTime", 0)),
            coalesce=bool(raw.get("Coalesce", False)),
        )
    if kind == "query":
        return Query(
            id=int(raw["ID"]),
            name=str(raw["Name"]),
            payload=bytes(raw.get("Payload") or b""),
            ltime=int(raw.get("LTime", 0)),
        )
    members = tuple(_member(m) for m in raw.get("Members") or ())
    return MemberEvent(kind=kind, members=members)


class Stream:
    """Records of one `stream` subscription, read with `async for`; `close()` unsubscribes."""

    def __init__(self, client: SerfRPC, seq: int, records: asyncio.Queue[dict[str, Any] | None]):
        self._client = client
        self._seq = seq
        self._records = records

    def __aiter__(self) -> AsyncIterator[StreamRecord]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[StreamRecord]:
        while (raw := await self._records.get()) is not None:
            yield _stream_record(raw)

    async def close(self) -> None:
        """Stop the subscription (no-op once the connection is gone)."""
        with contextlib.suppress(SerfError):
            await self._client.command("stop", {"Stop": self._seq})
        self._client.forget(self._seq)


class SerfRPC:
    """One RPC connection to a Serf agent. Create it with `await SerfRPC.connect(host, port)`."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer
        self._seq = 0
        self._pending: dict[int, _Pending] = {}
        self._closed: SerfError | None = None
        self._read_task = asyncio.create_task(self._read_loop())

    @classmethod
    async def connect(
        cls,
        host: str,
        port: int,
        *,
        timeout: float = 5.0,
        auth: str | None = None,
        sock: socket.socket | None = None,
    ) -> SerfRPC:
        """Connect to the agent's RPC address (or use `sock`, connected to it already), perform
        the handshake and, if given, `auth`."""
        if sock is not None:
            opening = asyncio.open_connection(sock=sock)
        else:
            opening = asyncio.open_connection(host, port)
        try:
            reader, writer = await asyncio.wait_for(opening, timeout)
        except (OSError, TimeoutError) as exc:
            raise SerfError(f"cannot reach the Serf RPC at {host}:{port}: {exc}") from exc
        client = cls(reader, writer)
        try:
            await asyncio.wait_for(client.command("handshake", {"Version": 1}), timeout)
            if auth is not None:
                await asyncio.wait_for(client.command("auth", {"AuthKey": auth}), timeout)
        except (SerfError, TimeoutError) as exc:
            await client.close()
            raise SerfError(f"Serf RPC handshake with {host}:{port} failed: {exc}") from exc
        return client

    # --- commands -------------------------------------------------------------------------

    async def event(self, name: str, payload: bytes, *, coalesce: bool = False) -> None:
        """Fire a user event (coalescing off by default: every change notification counts)."""
        await self.command("event", {"Name": name, "Payload": payload, "Coalesce": coalesce})

    async def stream(self, types: str) -> Stream:
        """Subscribe to events, e.g. `"user:kvg-ch,query:kvg-th,member-join"` or `"*"`."""
        seq, pending = self._send("stream", {"Type": types}, records=True)
        await pending.reply
        assert pending.records is not None
        return Stream(self, seq, pending.records)

    async def query(
        self,
        name: str,
        payload: bytes,
        *,
        timeout: float,
        filter_nodes: list[str] | None = None,
        filter_tags: dict[str, str] | None = None,
        request_ack: bool = False,
    ) -> AsyncIterator[QueryReply]:
        """Send a query and yield its acks and responses until the agent's deadline passes.

        `timeout` (seconds) is always explicit: the agent's default can be several seconds, and
        a query only ends at its deadline.
        """
        body = {
            "FilterNodes": filter_nodes or [],
            "FilterTags": filter_tags or {},
            "RequestAck": request_ack,
            "RelayFactor": 0,
            "Timeout": int(timeout * 1e9),
            "Name": name,
            "Payload": payload,
        }
        seq, pending = self._send("query", body, records=True)
        await pending.reply
        return self._query_replies(seq, pending)

    async def _query_replies(self, seq: int, pending: _Pending) -> AsyncIterator[QueryReply]:
        assert pending.records is not None
        try:
            while (raw := await pending.records.get()) is not None:
                kind = str(raw.get("Type", ""))
                if kind == "done":
                    return
                yield QueryReply(
                    kind=kind,
                    sender=str(raw.get("From", "")),
                    payload=bytes(raw.get("Payload") or b""),
                )
        finally:
            self.forget(seq)

    async def respond(self, query_id: int, payload: bytes) -> None:
        """Answer a query that a stream on this client delivered."""
        await self.command("respond", {"ID": query_id, "Payload": payload})

    async def members(self) -> list[Member]:
        """All members the agent knows, in any status."""
        body = await self.command("members")
        return [_member(m) for m in body.get("Members") or ()]

    async def join(self, addresses: list[str], *, replay: bool = False) -> int:
        """Join the cluster through any of `addresses` ("host:port"); returns how many answered."""
        body = await self.command("join", {"Existing": addresses, "Replay": replay})
        return int(body.get("Num", 0))

    async def get_coordinate(self, node: str) -> Coordinate | None:
        """The node's network coordinate, or None while the agent has none for it."""
        body = await self.command("get-coordinate", {"Node": node})
        coord = body.get("Coord") or {}
        if not body.get("Ok") or not coord.get("Vec"):
            return None
        return Coordinate(
            vec=tuple(float(x) for x in coord["Vec"]),
            error=float(coord.get("Error", 0.0)),
            adjustment=float(coord.get("Adjustment", 0.0)),
            height=float(coord.get("Height", 0.0)),
        )

    async def tags(self, set_tags: dict[str, str], delete: list[str] | None = None) -> None:
        """Set and delete this agent's tags."""
        await self.command("tags", {"Tags": set_tags, "DeleteTags": delete or []})

    async def stats(self) -> dict[str, Any]:
        """The agent's statistics; `stats()["agent"]["name"]` is its node name."""
        return await self.command("stats")

    async def leave(self) -> None:
        """Leave the cluster gracefully; the agent shuts down afterwards."""
        await self.command("leave")

    # --- plumbing -------------------------------------------------------------------------

    async def command(self, command: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        """Send one request and return its reply body (empty for header-only commands)."""
        _, pending = self._send(command, body, records=False)
        return await pending.reply

    def _send(
        self, command: str, body: dict[str, Any] | None, *, records: bool
    ) -> tuple[int, _Pending]:
        if self._closed is not None:
            raise self._closed
        self._seq += 1
        seq = self._seq
        pending = _Pending(
            command=command,
            reply=asyncio.get_running_loop().create_future(),
            records=asyncio.Queue() if records else None,
        )
        self._pending[seq] = pending
        data = msgpack.packb({"Command": command, "Seq": seq}, use_bin_type=True)
        if body is not None:
            data += msgpack.packb(body, use_bin_type=True)
        self._writer.write(data)
        return seq, pending

    def forget(self, seq: int) -> None:
        """Drop a finished stream or query; records still arriving for it are ignored."""
        self._pending.pop(seq, None)

    async def _read_loop(self) -> None:
        unpacker = msgpack.Unpacker(raw=False, strict_map_key=False)
        body_for: int | None = None  # Seq whose body is the next object
        error = SerfError("the Serf RPC connection closed")
        try:
            while chunk := await self._reader.read(_READ_CHUNK):
                unpacker.feed(chunk)
                for obj in unpacker:
                    if body_for is not None:
                        self._deliver_body(body_for, obj)
                        body_for = None
                    else:
                        body_for = self._deliver_header(obj)
        except (OSError, ValueError, msgpack.UnpackException) as exc:
            error = SerfError(f"the Serf RPC connection failed: {exc}")
        finally:
            self._fail_all(error)

    def _deliver_header(self, header: Any) -> int | None:
        """Handle a reply header; return its Seq when a body follows it."""
        if not isinstance(header, dict):
            raise ValueError(f"expected a reply header, got {type(header).__name__}")
        seq = int(header.get("Seq", -1))
        error = str(header.get("Error") or "")
        pending = self._pending.get(seq)
        if pending is None:
            return None
        if pending.records is not None:
            if pending.acknowledged:
                return seq  # a record follows
            pending.acknowledged = True
            self._finish(seq, pending, error, {})
            return None
        if pending.command in _BODY_COMMANDS:
            pending.error = error
            return seq
        self._finish(seq, pending, error, {})
        return None

    def _deliver_body(self, seq: int, body: Any) -> None:
        pending = self._pending.get(seq)
        if pending is None:
            return
        body = body if isinstance(body, dict) else {}
        if pending.records is not None:
            pending.records.put_nowait(body)
            if pending.command == "query" and body.get("Type") == "done":
                pending.records.put_nowait(None)
            return
        self._finish(seq, pending, pending.error, body)

    def _finish(self, seq: int, pending: _Pending, error: str, body: dict[str, Any]) -> None:
        if pending.records is None:
            self._pending.pop(seq, None)
        if pending.reply.done():
            return
        if error:
            pending.reply.set_exception(SerfError(f"{pending.command}: {error}"))
            if pending.records is not None:
                self._pending.pop(seq, None)
        else:
            pending.reply.set_result(body)

    def _fail_all(self, error: SerfError) -> None:
        self._closed = error
        for pending in self._pending.values():
            if not pending.reply.done():
                pending.reply.set_exception(error)
            if pending.records is not None:
                pending.records.put_nowait(None)
        self._pending.clear()

    async def close(self) -> None:
        """Close the connection; pending calls fail and streams end."""
        self._writer.close()
        with contextlib.suppress(OSError):
            await self._writer.wait_closed()
        self._read_task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._read_task
        if self._closed is None:
            self._fail_all(SerfError("the Serf RPC connection was closed"))
