"""The sealed sync wire on its own: the key exchange, and each way a stream is tampered with."""

from __future__ import annotations

import asyncio
import socket
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swarmconf.reference.kvgossip.frames import FrameError, read_frame, write_frame
from swarmconf.reference.kvgossip.identity import Directory, Identity
from swarmconf.reference.kvgossip.membership import (
    ClusterKey,
    MembershipError,
    Proven,
    answer_membership,
    exchange_keys,
    open_handshake,
)
from swarmconf.reference.kvgossip.reasons import NodeReason
from swarmconf.reference.kvgossip.serf_rpc import Member
from swarmconf.reference.kvgossip.wire import HEADER_SIZE, SealedReader, SealedWriter
from swarmconf.spec.kvgossip.reasons import KvReason

KEY = b"w" * 32
FRAMES = [b"first frame /secret/key-1", b"x" * 70_000, b"", b"third: value-42"]
Reports = list[tuple[str, str]]


async def pipe() -> tuple[
    asyncio.StreamReader, asyncio.StreamWriter, asyncio.StreamReader, asyncio.StreamWriter
]:
    """Both ends of a connected socket pair, as streams."""
    left, right = socket.socketpair()
    left_reader, left_writer = await asyncio.open_connection(sock=left)
    right_reader, right_writer = await asyncio.open_connection(sock=right)
    return left_reader, left_writer, right_reader, right_writer


def split(wire: bytes) -> tuple[bytes, list[bytes]]:
    """A direction's header and its sealed messages, each with its length prefix."""
    header, rest, messages = wire[:HEADER_SIZE], wire[HEADER_SIZE:], []
    while rest:
        (length,) = struct.unpack(">I", rest[:4])
        messages.append(rest[: 4 + length])
        rest = rest[4 + length :]
    return header, messages


async def sent(frames: list[bytes], *, final: bool = True) -> bytes:
    """Every byte a sealed writer puts on the wire for `frames`, then a clean close (its FINAL
    message) or a bare one."""
    _, writer, reader, other = await pipe()
    sealed = SealedWriter(writer, KEY)
    for frame in frames:
        await write_frame(sealed, frame)
    if final:
        sealed.close()
    else:
        writer.close()
    wire = await reader.read()
    other.close()
    return wire


async def received(wire: bytes, key: bytes = KEY) -> tuple[list[bytes], str, Reports]:
    """The frames a sealed reader hands on from `wire`, the reason reading ended and what it
    reported."""
    raw = asyncio.StreamReader()
    raw.feed_data(wire)
    raw.feed_eof()
    reports: Reports = []
    reader = SealedReader(raw, key, lambda reason, detail: reports.append((reason, detail)))
    frames = []
    while True:
        try:
            frames.append(await read_frame(reader))
        except FrameError as exc:
            return frames, exc.reason, reports


def test_a_sealed_stream_carries_every_frame_and_shows_none_of_them() -> None:
    async def scenario() -> None:
        wire = await sent(FRAMES)
        for frame in FRAMES:
            assert not frame or frame not in wire
        assert b"secret" not in wire and b"value-42" not in wire
        assert await received(wire) == (FRAMES, NodeReason.CONNECTION_CLOSED, [])

    asyncio.run(scenario())


def test_each_tampering_is_refused_with_its_reason_and_nothing_of_it_is_handed_on() -> None:
    async def scenario() -> None:
        header, messages = split(await sent(FRAMES))
        first, second, third, *rest = messages

        def wire(*parts: bytes) -> bytes:
            return header + b"".join(parts)

        flipped = bytearray(second)
        flipped[len(second) // 2] ^= 0x01
        cases = {  # what arrives, the frames handed on, the reason
            "flipped byte": (
                wire(first, bytes(flipped), third, *rest),
                1,
                NodeReason.WIRE_TAMPERED,
            ),
            "replayed": (wire(first, first, second, *rest), 1, NodeReason.WIRE_REPLAYED),
            "dropped": (wire(first, third, *rest), 1, NodeReason.WIRE_TAMPERED),
            "reordered": (wire(first, third, second, *rest), 1, NodeReason.WIRE_TAMPERED),
            "cut mid-message": (wire(first, second[:100]), 1, NodeReason.WIRE_TRUNCATED),
            "cut between messages": (wire(first, second), 2, NodeReason.WIRE_TRUNCATED),
        }
        for case, (data, count, reason) in cases.items():
            frames, ended, reports = await received(data)
            assert frames == FRAMES[:count], case  # only what came whole before the tampering
            assert ended == reason, case
            assert [r for r, _ in reports] == [reason], case  # reported once
        # Another key opens nothing; a bare close without the FINAL message is a truncation.
        assert (await received(wire(*messages), b"o" * 32))[:2] == ([], NodeReason.WIRE_TAMPERED)
        frames, ended, _ = await received(await sent(FRAMES, final=False))
        assert (frames, ended) == (FRAMES, NodeReason.WIRE_TRUNCATED)

    asyncio.run(scenario())


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_any_flipped_bit_ends_the_stream_before_the_frame_it_hit(
    data: st.DataObject,
) -> None:
    async def scenario() -> None:
        frames = FRAMES[:1] + FRAMES[3:]
        wire = bytearray(await sent(frames))
        header, messages = split(bytes(wire))
        position = data.draw(st.integers(0, len(wire) - 1))
        wire[position] ^= 1 << data.draw(st.integers(0, 7))
        got, ended, reports = await received(bytes(wire))
        ends = [len(header) + sum(map(len, messages[: i + 1])) for i in range(len(frames))]
        assert got == frames[: sum(end <= position for end in ends)]
        assert ended in (
            NodeReason.WIRE_TAMPERED,
            NodeReason.WIRE_TRUNCATED,  # a length made longer than what follows
            KvReason.SESSION_FRAME_TOO_LARGE,
        )
        assert [r for r, _ in reports] == [ended]

    asyncio.run(scenario())


def test_a_sealed_message_longer_than_any_frame_is_refused_from_its_length() -> None:
    async def scenario() -> None:
        header, _ = split(await sent([]))
        _, ended, _ = await received(header + struct.pack(">I", 0xFFFFFFFF))
        assert ended == KvReason.SESSION_FRAME_TOO_LARGE

    asyncio.run(scenario())


CLUSTER = ClusterKey(b"c" * 32)
INITIATOR, RESPONDER, MALLORY = Identity(b"i" * 32), Identity(b"r" * 32), Identity(b"m" * 32)


def directory() -> Directory:
    members = Directory()
    members.update(
        Member(name, "127.0.0.1", 7946, identity.tags(), "alive")
        for name, identity in (("i", INITIATOR), ("r", RESPONDER), ("m", MALLORY))
    )
    return members


async def handshake() -> tuple[
    Proven,
    Proven,
    tuple[asyncio.StreamReader, asyncio.StreamWriter, asyncio.StreamReader, asyncio.StreamWriter],
]:
    ends = await pipe()
    i_reader, i_writer, r_reader, r_writer = ends
    opened, answered = await asyncio.gather(
        open_handshake(CLUSTER, INITIATOR, directory(), i_reader, i_writer),
        answer_membership(CLUSTER, RESPONDER, directory(), r_reader, r_writer),
    )
    return opened, answered, ends


def test_the_key_exchange_seals_both_directions_with_fresh_keys() -> None:
    async def scenario() -> None:
        opened, answered, (i_reader, i_writer, r_reader, r_writer) = await handshake()
        assert (opened.peer_id, answered.peer_id) == (RESPONDER.node_id, INITIATOR.node_id)
        assert opened.transcript == answered.transcript
        reports: Reports = []
        (i_in, i_out), (r_in, r_out) = await asyncio.gather(
            exchange_keys(
                CLUSTER, INITIATOR, opened, True, i_reader, i_writer, lambda *r: reports.append(r)
            ),
            exchange_keys(
                CLUSTER,
                RESPONDER,
                answered,
                False,
                r_reader,
                r_writer,
                lambda *r: reports.append(r),
            ),
        )
        await write_frame(i_out, b"to the responder")
        await write_frame(r_out, b"to the initiator")
        assert await read_frame(r_in) == b"to the responder"
        assert await read_frame(i_in) == b"to the initiator"
        i_out.close()
        with pytest.raises(FrameError) as ended:
            await read_frame(r_in)
        assert ended.value.reason == NodeReason.CONNECTION_CLOSED and reports == []
        r_out.close()

    asyncio.run(scenario())


def test_an_ephemeral_key_not_signed_by_the_proven_peer_is_refused() -> None:
    """A member on the path relays the handshake, then offers its own ephemeral key (signed by
    its own identity, the only one it holds): the initiator refuses it."""

    async def scenario() -> None:
        opened, answered, (i_reader, i_writer, r_reader, r_writer) = await handshake()
        as_mallory = Proven(INITIATOR.node_id, INITIATOR.public, answered.transcript)
        reports: Reports = []

        def report(reason: str, detail: str) -> None:
            reports.append((reason, detail))

        results = await asyncio.gather(
            exchange_keys(CLUSTER, INITIATOR, opened, True, i_reader, i_writer, report),
            exchange_keys(CLUSTER, MALLORY, as_mallory, False, r_reader, r_writer, report),
            return_exceptions=True,
        )
        assert isinstance(results[0], MembershipError)
        assert results[0].reason == NodeReason.WIRE_TAMPERED
        for writer in (i_writer, r_writer):
            writer.close()

    asyncio.run(scenario())
