"""Tree hash v2 and revocation-set hash vectors (notes 3.1 Decision; table rows 20, 26; section 5
case 30; decision K1)."""

from __future__ import annotations

from swarmconf.conformance.builder import BoundGroup, SuiteBuilder
from swarmconf.conformance.vectors import Flag, Json
from swarmconf.spec.kvgossip import crypto
from swarmconf.spec.kvgossip.records import Record, make_record

from ..vocabulary import new_suite
from ..world import ALICE, G_ALICE, T0

FLAGS = {
    "Basic": Flag("BASIC", "A plain set of entries.", "The hash as given."),
    "OrderIndependent": Flag("ORDERING", "The same set listed in another order.", "The same hash."),
    "KeyNames": Flag(
        "DEPLOYED_QUIRK",
        "Two stores with equal values under different key names (Go's tree hash is equal).",
        "Different hashes.",
    ),
    "Wraparound": Flag(
        "EDGE_CASE", "Entry hashes whose sum passes 2^256.", "The sum is taken modulo 2^256."
    ),
    "ReSet": Flag(
        "FUNCTIONALITY",
        "A re-SET of identical bytes at a new ts (Go's hash is unchanged).",
        "The hash changes.",
    ),
}


HEADER = [
    "tree: decode every record; S = sum of entry hashes as little-endian integers mod",
    "2^256 (entrySum, 32 bytes little-endian), N = count; SHA-256('kvg/tree/2' || le256(S)",
    "|| be64(N)). revset: SHA-256('kvg/revset/1' || sorted(grant ids)).",
]
RULES = ["notes:3.1", "row:20", "sync:K1"]
RESET_RULES = ["notes:3.1", "row:19", "attack:30", "sync:K1"]
REVSET_RULES = ["notes:3.1", "row:26"]


def rec(key: str, ts: int, value: bytes | None) -> Record:
    """alice's record under root -> alice (signed when called: under a mutant, if one is active)."""
    return make_record(ALICE.seed, key, ts, value, [G_ALICE])


def hashing(records: list[Record]) -> Json:
    """The input: the tree hash of these records."""
    return {"records": [r.encode().hex() for r in records]}


def revoking(ids: list[bytes]) -> Json:
    """The input: the hash of this set of revoked grant ids."""
    return {"grantIds": [x.hex() for x in ids]}


def tree_hashes(g: BoundGroup) -> None:
    """The tree hash of a set of records."""
    a, b = rec("/a/a", T0 + 1, b"one"), rec("/a/b", T0 + 2, b"two")
    written = (rec(f"/a/w{i}", T0 + i, b"w") for i in range(64))
    big = [r for r in written if r.entry_hash[-1] > 0xC0]
    cases: list[tuple[str, str, str, list[Record], list[str]]] = [
        ("empty", "No records: S = 0, N = 0.", "Basic", [], RULES),
        ("one-entry", "One record.", "Basic", [a], RULES),
        ("two", "Two records.", "Basic", [a, b], RULES),
        ("two-reversed", "The same two, listed backwards.", "OrderIndependent", [b, a], RULES),
        (
            "same-values-other-names",
            "The values of `two` under /a/c and /a/d: other entry hashes, another hash.",
            "KeyNames",
            [rec("/a/c", T0 + 1, b"one"), rec("/a/d", T0 + 2, b"two")],
            ["notes:3.1", "row:20", "attack:30", "sync:K1"],
        ),
        (
            "tombstone-counts",
            "A tombstone is an entry like any other.",
            "Basic",
            [a, rec("/a/t", T0 + 3, None)],
            RULES,
        ),
        (
            "sum-wraps",
            "Records whose entry hashes, read little-endian, each exceed 0.75 * 2^256: "
            "the sum wraps.",
            "Wraparound",
            big[:4],
            RULES,
        ),
        ("before-reset", "One record.", "ReSet", [rec("/a/k", T0 + 1, b"same")], RESET_RULES),
        (
            "after-reset",
            "The same bytes re-SET at a later ts.",
            "ReSet",
            [rec("/a/k", T0 + 2, b"same")],
            RESET_RULES,
        ),
    ]
    for name, comment, flag, records, rules in cases:
        g.case(name, comment, flags=[flag], input=hashing(records), expect="valid", rules=rules)


def revocation_sets(g: BoundGroup) -> None:
    """The hash of a set of revoked grant ids."""
    both = sorted([crypto.sha256(b"one"), crypto.sha256(b"two")])
    for name, comment, flag, ids in [
        ("revset-empty", "No revocations.", "Basic", []),
        ("revset-one", "One revoked id.", "Basic", [crypto.sha256(b"one")]),
        ("revset-sorted", "Two ids, sorted.", "Basic", both),
        ("revset-unsorted", "Two ids, reversed.", "OrderIndependent", both[::-1]),
    ]:
        g.case(name, comment, flags=[flag], input=revoking(ids), expect="valid", rules=REVSET_RULES)


def build(strict: bool = True) -> SuiteBuilder:
    suite = new_suite("treehash", " ".join(HEADER), FLAGS, strict=strict)
    tree_hashes(suite.group("kv_tree"))
    revocation_sets(suite.group("kv_revset"))
    return suite
