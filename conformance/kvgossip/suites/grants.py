"""Grant validity vectors: may a grant stand on a chain for a key at a record's time?
(notes 2.2 valid_grant; table rows 6, 8, 11, 12; section 5 cases 13, 15)."""

from __future__ import annotations

from swarmconf.conformance.builder import BoundGroup, SuiteBuilder
from swarmconf.conformance.catalogue import Catalogue
from swarmconf.conformance.vectors import Flag, Json
from swarmconf.spec.kvgossip.encoding import encode
from swarmconf.spec.kvgossip.grants import issue_grant

from ..craft import grant_body_parts, raw_array, signed
from ..vocabulary import new_suite
from ..world import ALICE, BOB, G_ALICE, G_TEMP, ROOT, T0

FLAGS = {
    "Valid": Flag("BASIC", "The grant serves the key at that time.", "Accepted."),
    "TimeWindow": Flag(
        "EDGE_CASE",
        "The record's timestamp against the grant's issued_at and expires_at.",
        "issued_at <= ts < expires_at (0 = never) serves; the local clock plays no part.",
    ),
    "PatternMismatch": Flag(
        "AUTH_BYPASS", "The grant's pattern does not match the key.", "The grant cannot serve."
    ),
    "Revoked": Flag("FUNCTIONALITY", "The grant's id is revoked.", "The grant cannot serve."),
    "GrantToRoot": Flag("AUTH_BYPASS", "A grant whose issuee is the root.", "Invalid."),
    "SelfIssued": Flag("AUTH_BYPASS", "A grant to its own issuer.", "Invalid."),
    "BadFields": Flag(
        "MODIFIED_PARAMETER",
        "Unknown flag bits, expiry before issue, a malformed pattern.",
        "Invalid.",
    ),
}


HEADER = [
    "Decode the grant, then decide whether it may stand on a chain authorising a record",
    "for `key` stamped `ts`, given the revoked grant ids. Valid gives the grant id.",
]
ALICES = G_ALICE.encode()
TEMPORARY = G_TEMP.encode()
"""root -> bob /t/**, expiring at T0+1000."""
PARTS = grant_body_parts(G_ALICE)
"""The encoded fields of root -> alice, to re-sign with one changed."""


def with_field(index: int, value: object) -> bytes:
    """root -> alice with body field `index` replaced by `value`, signed by the root."""
    return signed(ROOT.seed, raw_array([*PARTS[:index], encode(value), *PARTS[index + 1 :]]))


def asks(grant: bytes, key: str, ts: int, revoked: tuple[bytes, ...] = ()) -> Json:
    """The input: may `grant` serve `key` at `ts`, with these grant ids revoked?"""
    return {"grant": grant.hex(), "key": key, "ts": ts, "revokedIds": [x.hex() for x in revoked]}


case = Catalogue[BoundGroup]()


@case
def serves_matching_key(g: BoundGroup) -> None:
    g.case(
        "serves-matching-key",
        "root -> alice /a/**, key /a/x.",
        flags=["Valid"],
        input=asks(ALICES, "/a/x", T0),
        expect="valid",
        rules=["notes:2.2"],
    )


@case
def issue_time(g: BoundGroup) -> None:
    g.case(
        "issued-at-equals-ts",
        "A record stamped exactly at issue time.",
        flags=["TimeWindow"],
        input=asks(ALICES, "/a/x", T0),
        expect="valid",
        rules=["notes:2.2", "row:12"],
    )
    g.case(
        "record-before-issue",
        "A record stamped 1 ms before the grant.",
        flags=["TimeWindow"],
        input=asks(ALICES, "/a/x", T0 - 1),
        expect="GRANT_NOT_YET_VALID",
        rules=["notes:2.2", "row:12", "attack:15"],
    )


@case
def expiry(g: BoundGroup) -> None:
    g.case(
        "before-expiry",
        "1 ms before expires_at.",
        flags=["TimeWindow"],
        input=asks(TEMPORARY, "/t/x", T0 + 999),
        expect="valid",
        rules=["notes:2.2", "row:11"],
    )
    g.case(
        "at-expiry",
        "Exactly at expires_at.",
        flags=["TimeWindow"],
        input=asks(TEMPORARY, "/t/x", T0 + 1000),
        expect="GRANT_EXPIRED",
        rules=["notes:2.2", "row:11", "attack:15"],
    )
    g.case(
        "after-expiry-far-future-clock-irrelevant",
        "Long after expiry.",
        flags=["TimeWindow"],
        input=asks(TEMPORARY, "/t/x", T0 + 10**9),
        expect="GRANT_EXPIRED",
        rules=["notes:2.2", "row:11"],
    )


@case
def pattern_mismatch(g: BoundGroup) -> None:
    for name, comment, key in [
        ("pattern-mismatch", "/a/** does not cover /b.", "/b"),
        ("pattern-tail-needs-segment", "/a/** does not cover /a itself.", "/a"),
    ]:
        g.case(
            name,
            comment,
            flags=["PatternMismatch"],
            input=asks(ALICES, key, T0),
            expect="GRANT_PATTERN_MISMATCH",
            rules=["notes:2.2", "row:6"],
        )


@case
def revocation(g: BoundGroup) -> None:
    g.case(
        "revoked",
        "The grant's id is in the revocation set.",
        flags=["Revoked"],
        input=asks(ALICES, "/a/x", T0, (G_ALICE.id,)),
        expect="GRANT_REVOKED",
        rules=["notes:2.2", "row:15"],
    )
    other = issue_grant(ROOT.seed, BOB.pk, "/a/**", subgrant=False, issued_at=T0)
    g.case(
        "other-grant-revoked",
        "Another grant is revoked, not this one.",
        flags=["Valid"],
        input=asks(ALICES, "/a/x", T0, (other.id,)),
        expect="valid",
        rules=["notes:2.2"],
    )


@case
def grants_to_the_root_or_self(g: BoundGroup) -> None:
    to_root = issue_grant(ALICE.seed, ROOT.pk, "/a/**", subgrant=True, issued_at=T0)
    rules = ("notes:2.2", "row:8", "attack:13")
    g.case(
        "grant-to-root",
        "alice grants to the root.",
        flags=["GrantToRoot"],
        input=asks(to_root.encode(), "/a/x", T0),
        expect="GRANT_TO_ROOT",
        rules=[*rules],
    )
    self_body = raw_array([*PARTS[:2], PARTS[1], *PARTS[3:]])
    g.case(
        "self-issued",
        "root grants to the root.",
        flags=["SelfIssued"],
        input=asks(signed(ROOT.seed, self_body), "/a/x", T0),
        expect="GRANT_SELF_ISSUED",
        rules=[*rules],
    )


@case
def bad_fields(g: BoundGroup) -> None:
    """A field of root -> alice changed and signed again: the grant itself is invalid."""
    cases = [
        ("unknown-flag-bit", "flags = 2.", with_field(4, 2), "GRANT_UNKNOWN_FLAGS", ()),
        (
            "expires-at-issue",
            "expires_at == issued_at.",
            with_field(6, T0),
            "GRANT_EXPIRES_BEFORE_ISSUE",
            ("row:11",),
        ),
        (
            "malformed-pattern",
            "A pattern outside the grammar.",
            with_field(3, "/a**"),
            "PATTERN_DOUBLESTAR_IN_SEGMENT",
            ("row:18", "attack:17"),
        ),
        (
            "pattern-too-long",
            "A 129-byte pattern.",
            with_field(3, "/" + "p" * 128),
            "PATTERN_TOO_LONG",
            ("row:33", "attack:17"),
        ),
    ]
    for name, comment, grant, reason, rules in cases:
        g.case(
            name,
            comment,
            flags=["BadFields"],
            input=asks(grant, "/a/x", T0),
            expect=reason,
            rules=["notes:2.2", *rules],
        )


def build(strict: bool = True) -> SuiteBuilder:
    suite = new_suite("grants", " ".join(HEADER), FLAGS, strict=strict)
    case.fill(suite.group("kv_grant_for_key", rootKey=ROOT.pk.hex()))
    return suite
