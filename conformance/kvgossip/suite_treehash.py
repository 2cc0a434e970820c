"""Tree hash and revocation-set hash vectors (notes 3.1 Decision; table rows 20, 26; section 5
case 30)."""

from __future__ import annotations

from swarmconf.spec.kvgossip import crypto
from swarmconf.spec.kvgossip.records import make_record

from .base import HEX32, Flag, GroupKind, Suite, add, hexlist, obj
from .world import ALICE, G_ALICE, T0

FLAGS = {
    "Basic": Flag("BASIC", "A plain set of entries.", "The hash as given."),
    "OrderIndependent": Flag("ORDERING", "The same set listed in another order.", "The same hash."),
    "KeyNames": Flag(
        "DEPLOYED_QUIRK",
        "Two stores with equal values under different key names (Go's tree hash is equal).",
        "Different hashes.",
    ),
    "ByteOrder": Flag(
        "EDGE_CASE", "Keys sort by their bytes (ASCII), prefixes first.", "As given."
    ),
    "ReSet": Flag(
        "FUNCTIONALITY",
        "A re-SET of identical bytes at a new ts (Go's hash is unchanged).",
        "The hash changes.",
    ),
}
ENTRY = obj({"key": {"type": "string"}, "entryHash": HEX32})
KINDS = {
    "tree": GroupKind(
        {}, obj({"entries": {"type": "array", "items": ENTRY}}), obj({"treeHash": HEX32})
    ),
    "revset": GroupKind({}, obj({"grantIds": hexlist()}), obj({"revsetHash": HEX32})),
}


def build(strict: bool = True) -> Suite:
    suite = Suite(
        "treehash",
        [
            "tree: SHA-256('kvg/tree/1' || for key in sorted(keys): u16be(len(key)) || key ||",
            "entry_hash). revset: SHA-256('kvg/revset/1' || sorted(grant ids)).",
        ],
        FLAGS,
        KINDS,
    )
    tree = suite.group("tree")

    def case(
        name: str,
        comment: str,
        flags: list[str],
        entries: list[tuple[str, bytes]],
        rules: tuple[str, ...] = ("notes:3.1", "row:20"),
    ) -> None:
        add(
            suite,
            tree,
            name,
            comment,
            flags=flags,
            rules=list(rules),
            input={"entries": [{"key": k, "entryHash": e.hex()} for k, e in entries]},
            want="valid",
            strict=strict,
        )

    h1, h2 = crypto.sha256(b"one"), crypto.sha256(b"two")
    case("empty", "No records: the hash of the tag alone.", ["Basic"], [])
    case("one-entry", "One record.", ["Basic"], [("/a", h1)])
    case("two-sorted", "Two records in key order.", ["Basic"], [("/a", h1), ("/b", h2)])
    case(
        "two-unsorted",
        "The same two, listed backwards.",
        ["OrderIndependent"],
        [("/b", h2), ("/a", h1)],
    )
    case(
        "same-values-other-names",
        "The values of two-sorted under /c and /d.",
        ["KeyNames"],
        [("/c", h1), ("/d", h2)],
        ("notes:3.1", "row:20", "attack:30"),
    )
    case(
        "ascii-order",
        "/B sorts before /a; /a before /a-b before /a/b.",
        ["ByteOrder"],
        [("/a/b", h1), ("/a-b", h2), ("/a", h1), ("/B", h2)],
    )
    v = make_record(ALICE.seed, "/a/k", T0 + 1, b"same", [G_ALICE])
    again = make_record(ALICE.seed, "/a/k", T0 + 2, b"same", [G_ALICE])
    case(
        "before-reset",
        "One record.",
        ["ReSet"],
        [("/a/k", v.entry_hash)],
        ("notes:3.1", "row:19", "attack:30"),
    )
    case(
        "after-reset",
        "The same bytes re-SET at a later ts.",
        ["ReSet"],
        [("/a/k", again.entry_hash)],
        ("notes:3.1", "row:19", "attack:30"),
    )

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
