"""The attacker: a cluster member that offers forged records in its sessions (notes section 5).

It stores forgeries directly (never through the spec's rules), so its sessions offer them like
any record. Each forgery reproduces one Go hole: a relay-bumped timestamp, someone else's chain
attached to its own signature, and a write outside its parent's pattern through a too-wide
sub-grant it really holds.
"""

from __future__ import annotations

from swarmconf.spec.kvgossip.encoding import RECORD_TAG, encode
from swarmconf.spec.kvgossip.records import Record, make_record

from .node import SimNode

FORGERIES = ("bumped_timestamp", "borrowed_chain", "escalated_write")


def forge(node: SimNode, kind: str, pick: int) -> Record | None:
    """A forged record of `kind`, built from what the attacker has seen (None: nothing yet)."""
    seen = [r for r in node.store.records.values() if r.signer != node.entity.pk and r.chain]
    if kind == "escalated_write":
        return make_record(node.entity.seed, f"/z/evil{pick % 3}", node.clock(), b"x", node.grants)
    if not seen:
        return None
    victim = seen[pick % len(seen)]
    if kind == "borrowed_chain":
        return Record(*_signed(node, victim.key, node.clock() + 1, b"mine"), victim.chain)
    ts = victim.ts + 1 + pick % 50_000
    body = encode([RECORD_TAG, victim.key, ts, victim.tombstone, victim.value_hash, victim.signer])
    return Record(
        victim.key,
        ts,
        victim.tombstone,
        victim.value_hash,
        victim.signer,
        body,
        victim.signature,
        victim.value,
        victim.chain,
    )


def _signed(
    node: SimNode, key: str, ts: int, value: bytes
) -> tuple[str, int, bool, bytes, bytes, bytes, bytes, bytes]:
    own = make_record(node.entity.seed, key, ts, value)
    return (
        own.key,
        own.ts,
        own.tombstone,
        own.value_hash,
        own.signer,
        own.body,
        own.signature,
        own.value,
    )


def attack(node: SimNode, kind: str, pick: int, target: str) -> None:
    """Store one forgery in the attacker's own store, then open a session to `target`."""
    record = forge(node, kind, pick)
    if record is not None:
        node.store.plant(record)
    node.dial(target)
