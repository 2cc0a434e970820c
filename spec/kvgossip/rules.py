"""The rule registry of K/V Gossip: every rule the conformance vectors cite, each with the spec
functions that implement it.

The ids are those of the vectors' `rules` field: `design:<section>` (kv-gossip.md),
`notes:<section>` (kv-gossip-notes.md), `row:<n>` (the notes' table of where Go differs from
the design), `attack:<n>` (the notes' failure and attack cases) and `sync:K<n>` (the sync
decisions of the K/V Gossip sync page). Tests check that every function exists and that every
rule has a vector.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import NamedTuple


class Rule(NamedTuple):
    title: str
    functions: tuple[str, ...]
    """Dotted paths below `swarmconf.spec.kvgossip`, e.g. `chain.authorize`."""


def _rules(prefix: str, table: dict[str, tuple[str, tuple[str, ...]]]) -> dict[str, Rule]:
    return {f"{prefix}:{key}": Rule(title, functions) for key, (title, functions) in table.items()}


DESIGN = _rules(
    "design",
    {
        "authorization": ("Grant chains from the root authorise writes", ("chain.authorize",)),
        "revocation": (
            "A revoked grant's values are refused, new and old",
            ("state.apply_revocation",),
        ),
    },
)
NOTES = _rules(
    "notes",
    {
        "1.2": (
            "The data model: canonical msgpack bodies, signed fields, ids",
            ("encoding.decode_canonical", "records.decode_record", "grants.decode_grant"),
        ),
        "2.2": ("The normative chain algorithm", ("chain.find_chain", "chain.authorize")),
        "3.1": ("The store's hashes", ("treehash.tree_hash_of",)),
        "3.4": ("Sessions that never end in Go", ("session.Session.receive",)),
        "3.5": ("The normative session", ("session.Session.start", "session.Session.receive")),
    },
)
ROWS = _rules(
    "row",
    {
        "2": ("Canonical encoding, checked by re-encoding", ("encoding.decode_canonical",)),
        "4": (
            "A record's signature covers key, time, tombstone, value hash and signer",
            ("records.record_signing_message",),
        ),
        "5": ("The last issuee is the signer (or the root signs)", ("chain.goal_ok",)),
        "6": ("Every grant on the chain matches the key", ("grants.check_grant_for",)),
        "7": ("Sub-grant flag on every link but the last", ("chain.link_ok",)),
        "8": ("No grant to the root", ("grants.decode_grant",)),
        "9": ("The shortest chain, found breadth first", ("chain.find_chain",)),
        "10": ("The root writes with an empty chain", ("chain.authorize",)),
        "11": ("Optional grant expiry, judged at the record's time", ("grants.check_grant_for",)),
        "12": ("A chain grant is issued no later than the record", ("grants.check_grant_for",)),
        "13": ("The issuer or the root revokes", ("grants.decode_revocation",)),
        "14": ("Revocations spread by their set hash", ("treehash.revset_hash",)),
        "15": ("A revocation purges: absent, not tombstoned", ("state.apply_revocation",)),
        "16": ("Tombstones are an explicit flag, kept", ("records.decode_record",)),
        "17": ("Key syntax", ("keys.check_key",)),
        "18": ("Restricted pattern syntax and matching", ("keys.check_pattern", "keys.matches")),
        "19": ("The entry hash is over the signed record", ("records.decode_record",)),
        "20": ("The tree hash covers keys and entry hashes", ("treehash.tree_hash_of",)),
        "21": ("LWW ties broken by the entry hash", ("records.lww_greater",)),
        "22": ("Future records within the skew accepted, beyond deferred", ("state.check_time",)),
        "24": ("Records travel newest first in a session", ("session.batches",)),
        "25": ("A full pass, a recheck, at most three passes", ("session.Session.receive",)),
        "26": ("Revocations are exchanged first", ("session.Session.receive",)),
        "31": ("Extra grants are ignored; only the chain is kept", ("chain.authorize",)),
        "32": ("Local writes go through the same apply", ("state.apply_record",)),
        "33": ("Limits on values, patterns, chains and frames", ("messages.check_sizes",)),
    },
)
ATTACKS = _rules(
    "attack",
    {
        "1": ("A record signed by another key", ("records.decode_record",)),
        "2": ("Value bytes altered after signing", ("records.decode_record",)),
        "3": ("A timestamp bumped by a relay", ("records.record_signing_message",)),
        "4": ("A record relabelled to another key", ("records.record_signing_message",)),
        "5": ("A tombstone flag flipped, or a value on a tombstone", ("records.decode_record",)),
        "6": ("A grant altered after signing", ("grants.decode_grant",)),
        "7": ("A grant naming the root as issuer, signed by another key", ("grants.decode_grant",)),
        "8": ("A non-canonical encoding of a valid body", ("encoding.decode_canonical",)),
        "9": ("A signer that is not the last issuee", ("chain.goal_ok",)),
        "10": ("Empty chains: the root's only", ("chain.authorize",)),
        "11": ("Escalation through a wider sub-grant", ("grants.check_grant_for",)),
        "12": ("A sub-grant without the flag", ("chain.link_ok",)),
        "13": ("Grants to the root or to the issuer", ("grants.decode_grant",)),
        "14": ("Cycles and dense grant pools", ("chain.find_chain",)),
        "15": ("Expired and not yet valid grants", ("grants.check_grant_for",)),
        "16": (
            "Extra, duplicate, malformed and revoked grants in the pool",
            ("chain.decode_pool",),
        ),
        "17": ("Pattern matching", ("keys.matches", "keys.check_pattern")),
        "18": ("Key syntax", ("keys.check_key",)),
        "19": ("Revocations by others, or not after the issue", ("grants.decode_revocation",)),
        "20": ("A revoked grant on the chain", ("chain.authorize",)),
        "21": ("Old values replayed after a revocation", ("state.receive_record",)),
        "22": ("Re-set under a new chain, then revoke", ("state.apply_revocation",)),
        "23": ("A revocation before its grant", ("state.apply_revocation",)),
        "24": ("The same revocation twice", ("state.apply_revocation",)),
        "25": ("Clock skew", ("state.check_time",)),
        "26": ("Equal timestamps, different records", ("records.lww_greater",)),
        "27": ("Equal records agree; older ones are stale", ("state.judge_record",)),
        "28": ("Tombstones against values", ("records.lww_wins",)),
        "29": ("A local write older than the stored record", ("state.apply_record",)),
        "30": ("The tree hash covers key names and re-sets", ("treehash.tree_hash_of",)),
        "31": ("Protocol abuse in a session", ("session.Session.receive",)),
    },
)
SYNC = _rules(
    "sync",
    {
        "K1": ("The store's summary is the sum of its entry hashes", ("treehash.entry_sum",)),
        "K2": (
            "Records are reconciled as (ts, entry_hash) items",
            ("recon.initiate", "recon.step"),
        ),
        "K3": ("A differing range splits into 16 buckets", ("recon.step",)),
        "K4": ("A reply stops before the message budget", ("recon.step",)),
        "K6": ("A pass reconciles snapshots of both sides", ("session.Session.receive",)),
        "K7": ("Records are asked for in batches", ("session.Session.receive", "push.answer")),
        "K8": ("Frame sizes and message checks", ("messages.check_sizes",)),
        "K9": ("A local write is pushed to the peers", ("push.answer",)),
        "K10": ("A change notice is followed by a fetch", ("push.answer",)),
    },
)

RULES: dict[str, Rule] = {**DESIGN, **NOTES, **ROWS, **ATTACKS, **SYNC}


def implementation(path: str) -> Callable[..., object]:
    """The spec function at a dotted path such as `session.Session.receive`."""
    module_name, _, attribute_path = path.partition(".")
    target: object = importlib.import_module(f"swarmconf.spec.kvgossip.{module_name}")
    for attribute in attribute_path.split("."):
        target = getattr(target, attribute)
    assert callable(target)
    return target
