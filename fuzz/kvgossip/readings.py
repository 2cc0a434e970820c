"""The design's reading of what only the node decodes: the oracle its own decoders answer to.

The spec decodes records, grants, revocations and session frames; the node alone reads the
length-prefixed transport, the Serf payloads and the membership handshake. Each function here
restates one of those rules from its design text (kv-sync 3.3b; the node's `gossip` and
`membership` module texts) as plainly as possible, returning the outcome the node must reach,
so the campaign can hold the node's own code (`frames.read_frame`, `gossip.decode_change`,
`gossip.decode_state`, `membership.answer_handshake`) to it, reason code included.
"""

from __future__ import annotations

from swarmconf.reference.kvgossip import membership
from swarmconf.reference.kvgossip.gossip import HASH_SIZE, MAX_PAYLOAD
from swarmconf.reference.kvgossip.reasons import NodeReason
from swarmconf.spec.kvgossip.encoding import decode_canonical
from swarmconf.spec.kvgossip.keys import check_key
from swarmconf.spec.kvgossip.messages import MAX_FRAME_BYTES
from swarmconf.spec.kvgossip.reasons import KvReason, require

from ..hostile import Outcome

PREFIX = 4


def read_frame(wire: bytes) -> Outcome:
    """The first frame of a stream that ends after `wire` (kv-sync 3.3b): a `u32be` length,
    refused above 4 MiB before any body is read, then exactly that many bytes; the stream
    ending before a prefix closes the connection, inside a frame truncates it."""
    if not wire:
        return ("invalid", NodeReason.CONNECTION_CLOSED.value)
    if len(wire) < PREFIX:
        return ("invalid", NodeReason.FRAME_TRUNCATED.value)
    length = int.from_bytes(wire[:PREFIX], "big")
    if length > MAX_FRAME_BYTES:
        return ("invalid", KvReason.SESSION_FRAME_TOO_LARGE.value)
    if len(wire) < PREFIX + length:
        return ("invalid", NodeReason.FRAME_TRUNCATED.value)
    return ("valid", wire[PREFIX : PREFIX + length].hex())


def fields(payload: bytes, kinds: tuple[type, ...]) -> list[object]:
    """A Serf payload: canonical msgpack of at most 1 KiB, an array of exactly these types."""
    value = decode_canonical(payload, MAX_PAYLOAD)
    require(isinstance(value, list) and len(value) == len(kinds), KvReason.BAD_SHAPE)
    require(all(type(v) is k for v, k in zip(value, kinds, strict=True)), KvReason.BAD_SHAPE)
    return list(value)


def read_change(payload: bytes) -> Outcome:
    """`kvg-ch`: `[node_id, key, ts, entry_hash]`, a valid key, a 32-byte hash, ts >= 0."""
    node_id, key, ts, entry_hash = fields(payload, (bytes, str, int, bytes))
    assert isinstance(node_id, bytes) and isinstance(key, str)
    assert isinstance(ts, int) and isinstance(entry_hash, bytes)
    check_key(key)
    require(len(entry_hash) == HASH_SIZE and ts >= 0, KvReason.BAD_SHAPE)
    return ("valid", node_id.hex(), key, str(ts), entry_hash.hex())


def read_state(payload: bytes) -> Outcome:
    """`kvg-th`: `[node_id, tree_hash, revset_hash]`, both hashes 32 bytes."""
    node_id, tree, revset = fields(payload, (bytes, bytes, bytes))
    assert isinstance(node_id, bytes) and isinstance(tree, bytes) and isinstance(revset, bytes)
    require(len(tree) == HASH_SIZE and len(revset) == HASH_SIZE, KvReason.BAD_SHAPE)
    return ("valid", node_id.hex(), tree.hex(), revset.hex())


HELLO_SIZE = len(membership.MAGIC) + membership.NONCE_SIZE + membership.ID_SIZE
PROOF_SIZE = membership.MAC_SIZE + membership.SIG_SIZE


def read_handshake(hello: bytes, mask: bytes, members: dict[bytes, bool]) -> Outcome:
    """The responder's verdict on an initiator that sends `hello`, then its honest proof (MAC
    and signature) XORed with `mask` and cut or extended to `mask`'s length.

    Both arrive on one stream, so bytes of `hello` past its fixed size shift the proof and
    spoil the MAC. `members` maps each node id the membership announces to whether the
    initiator holds its key. In order: a short or unmarked hello, or a short or wrong MAC is
    HANDSHAKE_FAILED; an id no member announces is UNKNOWN_NODE_ID; a signature by a key
    other than the id's is NODE_ID_NOT_PROVEN.
    """
    failed = ("invalid", NodeReason.HANDSHAKE_FAILED.value)
    if len(hello) < HELLO_SIZE or not hello.startswith(membership.MAGIC):
        return failed
    if len(hello) > HELLO_SIZE or len(mask) < PROOF_SIZE or any(mask[: membership.MAC_SIZE]):
        return failed
    node_id = hello[len(membership.MAGIC) + membership.NONCE_SIZE :]
    if node_id not in members:
        return ("invalid", NodeReason.UNKNOWN_NODE_ID.value)
    if not members[node_id] or any(mask[membership.MAC_SIZE : PROOF_SIZE]):
        return ("invalid", NodeReason.NODE_ID_NOT_PROVEN.value)
    return ("valid", node_id.hex())
