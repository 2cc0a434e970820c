"""The asyncio Serf RPC client against real `serf agent` processes on loopback."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from swarmconf.reference.kvgossip.serf_agent import AgentConfig, SerfAgent
from swarmconf.reference.kvgossip.serf_rpc import Query, SerfError, SerfRPC, UserEvent


async def both_see_each_other(*clients: SerfRPC, timeout: float = 20.0) -> None:
    """Wait until every agent lists both members alive (a join is not seen everywhere at once)."""
    async with asyncio.timeout(timeout):
        for client in clients:
            while {m.name for m in await client.members() if m.status == "alive"} != {"a", "b"}:
                await asyncio.sleep(0.05)


@asynccontextmanager
async def two_agents() -> AsyncIterator[tuple[SerfAgent, SerfAgent, SerfRPC, SerfRPC]]:
    a = SerfAgent(AgentConfig("a", tags={"kvg-port": "9001"}))
    b = SerfAgent(AgentConfig("b", tags={"kvg-port": "9002"}))
    await a.start(rebind=True)
    await b.start(rebind=True)
    ca, cb = await a.connect(), await b.connect()
    try:
        assert await cb.join([a.config.gossip_address]) == 1
        await both_see_each_other(ca, cb)
        yield a, b, ca, cb
    finally:
        await ca.close()
        await cb.close()
        await a.stop()
        await b.stop()


def test_members_tags_and_stats() -> None:
    async def scenario() -> None:
        async with two_agents() as (a, _b, ca, _cb):
            members = {m.name: m for m in await ca.members()}
            assert set(members) == {"a", "b"}
            assert members["b"].addr == "127.0.0.1"
            assert members["b"].tags == {"kvg-port": "9002"}
            assert members["a"].port == a.config.bind_port
            await ca.tags({"kvg-id": "ab"}, delete=["kvg-port"])
            stats = await ca.stats()
            assert stats["agent"]["name"] == "a"
            assert stats["tags"] == {"kvg-id": "ab"}

    asyncio.run(scenario())


def test_event_reaches_the_other_agent_uncoalesced() -> None:
    async def scenario() -> None:
        async with two_agents() as (_a, _b, ca, cb):
            stream = await cb.stream("user:kvg-ch")
            for i in range(3):
                await ca.event("kvg-ch", b"change-%d" % i)
            received: list[UserEvent] = []
            async with asyncio.timeout(10):
                async for record in stream:
                    assert isinstance(record, UserEvent)
                    received.append(record)
                    if len(received) == 3:
                        break
            await stream.close()
            assert sorted(r.payload for r in received) == [b"change-0", b"change-1", b"change-2"]
            assert not any(r.coalesce for r in received)

    asyncio.run(scenario())


def test_query_is_answered_on_the_streaming_connection() -> None:
    async def scenario() -> None:
        async with two_agents() as (_a, _b, ca, cb):
            stream = await cb.stream("query:kvg-th")

            async def answer() -> bytes:
                async for record in stream:
                    assert isinstance(record, Query)
                    await cb.respond(record.id, b"reply:" + record.payload)
                    return record.payload
                raise AssertionError("stream ended")

            responder = asyncio.create_task(answer())
            await asyncio.sleep(0.2)
            replies = [r async for r in await ca.query("kvg-th", b"hash", timeout=1.0)]
            assert await responder == b"hash"
            responses = [r for r in replies if r.kind == "response"]
            assert [(r.sender, r.payload) for r in responses] == [("b", b"reply:hash")]
            with pytest.raises(SerfError, match="No pending queries"):
                await cb.respond(999_999, b"late")

    asyncio.run(scenario())


def test_coordinates_estimate_a_loopback_rtt() -> None:
    async def scenario() -> None:
        async with two_agents() as (_a, _b, ca, _cb):
            async with asyncio.timeout(10):
                while (mine := await ca.get_coordinate("a")) is None or (
                    theirs := await ca.get_coordinate("b")
                ) is None:
                    await asyncio.sleep(0.1)
            assert len(mine.vec) == 8
            assert 0 < mine.rtt_to(theirs) < 0.1
            assert mine.rtt_to(theirs) == pytest.approx(theirs.rtt_to(mine))
            assert await ca.get_coordinate("nobody") is None

    asyncio.run(scenario())


def test_leave_shuts_the_agent_down_and_fails_pending_calls() -> None:
    async def scenario() -> None:
        async with two_agents() as (a, _b, ca, cb):
            await ca.leave()
            async with asyncio.timeout(10):
                while a.running:
                    await asyncio.sleep(0.1)
            with pytest.raises(SerfError):
                await ca.members()
            async with asyncio.timeout(10):
                while {m.name: m.status for m in await cb.members()}["a"] != "left":
                    await asyncio.sleep(0.1)

    asyncio.run(scenario())


def test_connect_to_nothing_is_a_clear_error() -> None:
    async def scenario() -> None:
        with pytest.raises(SerfError, match="cannot reach"):
            await SerfRPC.connect("127.0.0.1", 1, timeout=1.0)

    asyncio.run(scenario())
