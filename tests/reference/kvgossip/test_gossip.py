"""Serf payloads of the node: round trips, refusals with reason codes, nearest-first peers."""

from __future__ import annotations

import pytest

from swarmconf.reference.kvgossip import gossip
from swarmconf.reference.kvgossip.serf_rpc import Coordinate, Member
from swarmconf.spec.kvgossip.encoding import encode
from swarmconf.spec.kvgossip.reasons import KvError, KvReason

HASH = bytes(range(32))


def test_payloads_round_trip_and_fit_serf_limits() -> None:
    change = gossip.Change(b"n" * 16, "/a/" + "k" * 250, 2**63, HASH)
    assert gossip.decode_change(change.encode()) == change
    assert len(change.encode()) < 512 - len(gossip.CHANGE_EVENT) - 30
    state = gossip.StateHashes(b"n" * 16, HASH, HASH[::-1])
    assert gossip.decode_state(state.encode()) == state


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        (b"", KvReason.MALFORMED_ENCODING),
        (b"\xc1", KvReason.MALFORMED_ENCODING),
        (encode([b"n", "/a", 1, HASH]) + b"x", KvReason.MALFORMED_ENCODING),
        (b"\xd1\x00\x01", KvReason.NONCANONICAL_ENCODING),
        (encode([b"n", "/a", 1]), KvReason.BAD_SHAPE),
        (encode([b"n", "/a", -1, HASH]), KvReason.BAD_SHAPE),
        (encode([b"n", "/a", 1, HASH[:31]]), KvReason.BAD_SHAPE),
        (encode([b"n", "/a/../b", 1, HASH]), KvReason.KEY_DOT_SEGMENT),
        (encode(["n", "/a", 1, HASH]), KvReason.BAD_SHAPE),
        (encode([b"n"] * 2000), KvReason.OVERSIZE),
    ],
)
def test_bad_change_payloads_are_refused(payload: bytes, reason: KvReason) -> None:
    with pytest.raises(KvError) as refused:
        gossip.decode_change(payload)
    assert refused.value.reason == reason


def test_bad_state_payloads_are_refused() -> None:
    for payload in (encode([b"n", HASH]), encode([b"n", HASH, b"short"]), encode({"a": 1})):
        with pytest.raises(KvError) as refused:
            gossip.decode_state(payload)
        assert refused.value.reason == KvReason.BAD_SHAPE


def member(name: str, tags: dict[str, str], status: str = "alive") -> Member:
    return Member(name, "127.0.0.1", 7946, tags, status)


def test_only_live_members_with_node_tags_are_peers() -> None:
    good = member("a", {gossip.TAG_PORT: "9000", gossip.TAG_ID: "abcd"})
    assert gossip.peer_of(good) == gossip.Peer("a", b"\xab\xcd", "127.0.0.1", 9000)
    assert gossip.peer_of(member("b", {gossip.TAG_PORT: "9000"})) is None
    assert gossip.peer_of(member("c", {gossip.TAG_PORT: "x", gossip.TAG_ID: "ab"})) is None
    assert gossip.peer_of(member("d", {gossip.TAG_PORT: "0", gossip.TAG_ID: "ab"})) is None
    assert gossip.peer_of(member("e", {gossip.TAG_PORT: "1", gossip.TAG_ID: "zz"})) is None
    assert gossip.peer_of(member("f", good.tags, status="failed")) is None


def coord(*vec: float, height: float = 0.0) -> Coordinate:
    return Coordinate(tuple(vec), 0.1, 0.0, height)


def test_peers_are_visited_nearest_first() -> None:
    peers = [gossip.Peer(n, n.encode(), "127.0.0.1", 1) for n in ("far", "near", "unknown", "mid")]
    mine = coord(0.0, 0.0)
    coords = {"far": coord(0.03, 0.04), "near": coord(0.001, 0.0), "mid": coord(0.0, 0.002)}
    ordered = gossip.by_distance(peers, mine, coords)
    assert [p.name for p in ordered] == ["near", "mid", "far", "unknown"]
    assert ordered[2].rtt == pytest.approx(0.05)
    assert ordered[3].rtt == gossip.UNKNOWN_RTT
    assert coord(0.0, 0.0, height=0.001).rtt_to(coord(0.0, 0.0, height=0.002)) == pytest.approx(
        0.003
    )
    # Without our own coordinate every peer is equally far: name order.
    assert [p.name for p in gossip.by_distance(peers, None, coords)] == sorted(
        p.name for p in peers
    )


@pytest.mark.parametrize("port", ["+9000", " 9000", "9000 ", "9_000", "09000", "٩٠٠٠", "65536"])
def test_a_port_tag_is_read_only_as_a_node_writes_it(port: str) -> None:
    assert gossip.peer_of(member("a", {gossip.TAG_PORT: port, gossip.TAG_ID: "abcd"})) is None


@pytest.mark.parametrize("node_id", ["ab cd", "ABCD", "abc", " abcd", ""])
def test_an_id_tag_is_read_only_as_a_node_writes_it(node_id: str) -> None:
    assert gossip.peer_of(member("a", {gossip.TAG_PORT: "9000", gossip.TAG_ID: node_id})) is None
