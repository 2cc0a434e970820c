"""Tree hash v2 and revocation-set hash vectors (notes 3.1 Decision; table rows 20, 26; section 5
case 30; decision K1)."""

from __future__ import annotations

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


def build(strict: bool = True) -> Suite:
    suite = Suite(
        "treehash",
        [
            "tree: decode every record; S = sum of entry hashes as little-endian integers mod",
            "2^256 (entrySum, 32 bytes little-endian), N = count; SHA-256('kvg/tree/2' || le256(S)",
            "|| be64(N)). revset: SHA-256('kvg/revset/1' || sorted(grant ids)).",
        ],
        FLAGS,
    )
    tree = suite.group("tree")

    def case(
        name: str,
        comment: str,
        flags: list[str],
        records: list[Record],
        rules: tuple[str, ...] = ("notes:3.1", "row:20", "sync:K1"),
    ) -> None:
        add(
            suite,
            tree,
            name,
            comment,
            flags=flags,
            rules=list(rules),
            input={"records": [r.encode().hex() for r in records]},
            want="valid",
            strict=strict,
        )

    def rec(key: str, ts: int, value: bytes | None) -> Record:
        return make_record(ALICE.seed, key, ts, value, [G_ALICE])

    a, b = rec("/a/a", T0 + 1, b"one"), rec("/a/b", T0 + 2, b"two")
    case("empty", "No records: S = 0, N = 0.", ["Basic"], [])
    case("one-entry", "One record.", ["Basic"], [a])
    case("two", "Two records.", ["Basic"], [a, b])
    case("two-reversed", "The same two, listed backwards.", ["OrderIndependent"], [b, a])
    case(
        "same-values-other-names",
        "The values of `two` under /a/c and /a/d: other entry hashes, another hash.",
        ["KeyNames"],
        [rec("/a/c", T0 + 1, b"one"), rec("/a/d", T0 + 2, b"two")],
        ("notes:3.1", "row:20", "attack:30", "sync:K1"),
    )
    case(
        "tombstone-counts",
        "A tombstone is an entry like any other.",
        ["Basic"],
        [a, rec("/a/t", T0 + 3, None)],
    )
    big = [r for r in (rec(f"/a/w{i}", T0 + i, b"w") for i in range(64)) if r.entry_hash[-1] > 0xC0]
    case(
        "sum-wraps",
        "Records whose entry hashes, read little-endian, each exceed 0.75 * 2^256: the sum wraps.",
        ["Wraparound"],
        big[:4],
    )
    v = make_record(ALICE.seed, "/a/k", T0 + 1, b"same", [G_ALICE])
    again = make_record(ALICE.seed, "/a/k", T0 + 2, b"same", [G_ALICE])
    case(
        "before-reset",
        "One record.",
        ["ReSet"],
        [v],
        ("notes:3.1", "row:19", "attack:30", "sync:K1"),
    )
    case(
        "after-reset",
        "The same bytes re-SET at a later ts.",
        ["ReSet"],
        [again],
        ("notes:3.1", "row:19", "attack:30", "sync:K1"),
    )

    h1, h2 = crypto.sha256(b"one"), crypto.sha256(b"two")
    revset = suite.group("revset")
    for name, comment, flags, ids in [
        ("revset-empty", "No revocations.", ["Basic"], []),
        ("revset-one", "One revoked id.", ["Basic"], [h1]),
        ("revset-sorted", "Two ids, sorted.", ["Basic"], sorted([h1, h2])),
        ("revset-unsorted", "Two ids, reversed.", ["OrderIndependent"], sorted([h1, h2])[::-1]),
    ]:
        add(
            suite,
            revset,
            name,
            comment,
            flags=flags,
            rules=["notes:3.1", "row:26"],
            input={"grantIds": [x.hex() for x in ids]},
            want="valid",
            strict=strict,
        )
    return suite
