"""Tree hash v2 and revocation-set hash vectors (notes 3.1 Decision; table rows 20, 26; section 5
case 30; decision K1)."""

from __future__ import annotations

from swarmconf.conformance.catalogue import Catalogue
from swarmconf.spec.kvgossip import crypto
from swarmconf.spec.kvgossip.records import Record, make_record

from .base import Flag, Suite, add
from .world import ALICE, G_ALICE, T0

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
RULES = ("notes:3.1", "row:20", "sync:K1")
RESET_RULES = ("notes:3.1", "row:19", "attack:30", "sync:K1")


def rec(key: str, ts: int, value: bytes | None) -> Record:
    return make_record(ALICE.seed, key, ts, value, [G_ALICE])


class Hashing:
    """The suite and its groups: the tree hash of records, the hash of a revocation set."""

    def __init__(self, strict: bool) -> None:
        self.suite = Suite("treehash", HEADER, FLAGS)
        self.strict = strict
        # Made when the suite is built (under a mutant, if one is active).
        self.a, self.b = rec("/a/a", T0 + 1, b"one"), rec("/a/b", T0 + 2, b"two")

    def tree(
        self,
        name: str,
        comment: str,
        flags: list[str],
        records: list[Record],
        rules: tuple[str, ...] = RULES,
    ) -> None:
        add(
            self.suite,
            self.suite.group("tree"),
            name,
            comment,
            flags=flags,
            rules=list(rules),
            input={"records": [r.encode().hex() for r in records]},
            want="valid",
            strict=self.strict,
        )

    def revset(self, name: str, comment: str, flags: list[str], ids: list[bytes]) -> None:
        add(
            self.suite,
            self.suite.group("revset"),
            name,
            comment,
            flags=flags,
            rules=["notes:3.1", "row:26"],
            input={"grantIds": [x.hex() for x in ids]},
            want="valid",
            strict=self.strict,
        )


case = Catalogue[Hashing]()


@case
def small_stores(h: Hashing) -> None:
    h.tree("empty", "No records: S = 0, N = 0.", ["Basic"], [])
    h.tree("one-entry", "One record.", ["Basic"], [h.a])
    h.tree("two", "Two records.", ["Basic"], [h.a, h.b])
    h.tree("two-reversed", "The same two, listed backwards.", ["OrderIndependent"], [h.b, h.a])


@case
def key_names_count(h: Hashing) -> None:
    h.tree(
        "same-values-other-names",
        "The values of `two` under /a/c and /a/d: other entry hashes, another hash.",
        ["KeyNames"],
        [rec("/a/c", T0 + 1, b"one"), rec("/a/d", T0 + 2, b"two")],
        ("notes:3.1", "row:20", "attack:30", "sync:K1"),
    )


@case
def tombstone_counts(h: Hashing) -> None:
    tomb = rec("/a/t", T0 + 3, None)
    h.tree("tombstone-counts", "A tombstone is an entry like any other.", ["Basic"], [h.a, tomb])


@case
def sum_wraps(h: Hashing) -> None:
    written = (rec(f"/a/w{i}", T0 + i, b"w") for i in range(64))
    big = [r for r in written if r.entry_hash[-1] > 0xC0]
    h.tree(
        "sum-wraps",
        "Records whose entry hashes, read little-endian, each exceed 0.75 * 2^256: the sum wraps.",
        ["Wraparound"],
        big[:4],
    )


@case
def reset_changes_the_hash(h: Hashing) -> None:
    v = make_record(ALICE.seed, "/a/k", T0 + 1, b"same", [G_ALICE])
    again = make_record(ALICE.seed, "/a/k", T0 + 2, b"same", [G_ALICE])
    h.tree("before-reset", "One record.", ["ReSet"], [v], RESET_RULES)
    h.tree("after-reset", "The same bytes re-SET at a later ts.", ["ReSet"], [again], RESET_RULES)


@case
def revocation_sets(h: Hashing) -> None:
    h1, h2 = crypto.sha256(b"one"), crypto.sha256(b"two")
    h.revset("revset-empty", "No revocations.", ["Basic"], [])
    h.revset("revset-one", "One revoked id.", ["Basic"], [h1])
    h.revset("revset-sorted", "Two ids, sorted.", ["Basic"], sorted([h1, h2]))
    h.revset("revset-unsorted", "Two ids, reversed.", ["OrderIndependent"], sorted([h1, h2])[::-1])


def build(strict: bool = True) -> Suite:
    return case.fill(Hashing(strict)).suite
