"""What the node sends through Serf, and how it orders peers (notes 3.5, Discovery).

- Change notification: user event `kvg-ch` (coalescing off), payload
  `[node_id, key, ts, entry_hash]`: receivers holding an LWW-older version (or none) sync with
  the origin, found by its `kvg-id` tag.
- New revocation: user event `kvg-rv` whose payload is the signed revocation itself.
- State query: query `kvg-th` with payload `[node_id, tree_hash, revset_hash]` and an explicit
  short timeout; only nodes whose hashes differ answer, with the same triple.
- Tags: `kvg-port` (the sync port on the member's address), `kvg-id` (the node id, hex) and
  `kvg-pk` (the identity key the node id derives from, hex; see `identity`).

Payloads are canonical msgpack; anything else is refused with a reason code and ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from swarmconf.spec.kvgossip.encoding import decode_canonical, encode
from swarmconf.spec.kvgossip.keys import check_key
from swarmconf.spec.kvgossip.reasons import KvReason, require

from .serf_rpc import Coordinate, Member

CHANGE_EVENT = "kvg-ch"
REVOCATION_EVENT = "kvg-rv"
STATE_QUERY = "kvg-th"
TAG_PORT = "kvg-port"
TAG_ID = "kvg-id"
TAG_KEY = "kvg-pk"
MAX_PAYLOAD = 1024
HASH_SIZE = 32
UNKNOWN_RTT = 10.0  # seconds: peers without a coordinate go last


@dataclass(frozen=True)
class Change:
    """A change notification: `node_id` stored `key` at LWW position `(ts, entry_hash)`."""

    node_id: bytes
    key: str
    ts: int
    entry_hash: bytes

    def encode(self) -> bytes:
        """The event payload."""
        return encode([self.node_id, self.key, self.ts, self.entry_hash])


@dataclass(frozen=True)
class StateHashes:
    """A node's tree and revocation-set hashes, as a state query or its answer carries them."""

    node_id: bytes
    tree_hash: bytes
    revset_hash: bytes

    def encode(self) -> bytes:
        """The query (or response) payload."""
        return encode([self.node_id, self.tree_hash, self.revset_hash])


def _fields(payload: bytes, kinds: tuple[type, ...]) -> list[object]:
    value = decode_canonical(payload, MAX_PAYLOAD)
    require(isinstance(value, list) and len(value) == len(kinds), KvReason.BAD_SHAPE)
    require(all(type(v) is k for v, k in zip(value, kinds, strict=True)), KvReason.BAD_SHAPE)
    return list(value)


def decode_change(payload: bytes) -> Change:
    """Decode a `kvg-ch` payload, raising `KvError`."""
    node_id, key, ts, entry_hash = _fields(payload, (bytes, str, int, bytes))
    assert isinstance(node_id, bytes) and isinstance(key, str)
    assert isinstance(ts, int) and isinstance(entry_hash, bytes)
    check_key(key)
    require(len(entry_hash) == HASH_SIZE and ts >= 0, KvReason.BAD_SHAPE)
    return Change(node_id, key, ts, entry_hash)


def decode_state(payload: bytes) -> StateHashes:
    """Decode a `kvg-th` query or response payload, raising `KvError`."""
    node_id, tree, revset = _fields(payload, (bytes, bytes, bytes))
    assert isinstance(node_id, bytes) and isinstance(tree, bytes) and isinstance(revset, bytes)
    require(len(tree) == HASH_SIZE and len(revset) == HASH_SIZE, KvReason.BAD_SHAPE)
    return StateHashes(node_id, tree, revset)


@dataclass(frozen=True)
class Peer:
    """A member running a node: where its sync port is and how far away it is."""

    name: str
    node_id: bytes
    host: str
    port: int
    rtt: float = UNKNOWN_RTT


_PORT_TAG = re.compile(r"[1-9][0-9]{0,4}")
_HEX_TAG = re.compile(r"(?:[0-9a-f]{2})+")


def tag_port(text: str) -> int | None:
    """A port as a node writes it in its tag: plain ASCII digits, no sign, space or leading
    zero, 1 to 65535; anything else is None."""
    port = int(text) if _PORT_TAG.fullmatch(text) else 0
    return port if 0 < port < 65536 else None


def tag_bytes(text: str) -> bytes | None:
    """Bytes as a node writes them in its tags: lower-case hex pairs, nothing else; else None."""
    return bytes.fromhex(text) if _HEX_TAG.fullmatch(text) else None


def peer_of(member: Member) -> Peer | None:
    """The node on a live member, if its tags announce one."""
    port = tag_port(member.tags.get(TAG_PORT, ""))
    node_id = tag_bytes(member.tags.get(TAG_ID, ""))
    if member.status != "alive" or port is None or node_id is None:
        return None
    return Peer(member.name, node_id, member.addr, port)


def by_distance(
    peers: list[Peer], mine: Coordinate | None, coords: dict[str, Coordinate | None]
) -> list[Peer]:
    """Peers ordered nearest first by Vivaldi RTT estimate (unknown distances last)."""
    ranked = []
    for peer in peers:
        theirs = coords.get(peer.name)
        rtt = mine.rtt_to(theirs) if mine is not None and theirs is not None else UNKNOWN_RTT
        ranked.append(Peer(peer.name, peer.node_id, peer.host, peer.port, rtt))
    return sorted(ranked, key=lambda p: (p.rtt, p.name))
