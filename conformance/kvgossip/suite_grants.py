"""Grant validity vectors: may a grant stand on a chain for a key at a record's time?
(notes 2.2 valid_grant; table rows 6, 8, 11, 12; section 5 cases 13, 15)."""

from __future__ import annotations

from swarmconf.spec.kvgossip.encoding import encode
from swarmconf.spec.kvgossip.grants import issue_grant

from .base import Flag, Suite, add
from .craft import grant_body_parts, raw_array, signed
from .world import ALICE, BOB, G_ALICE, G_TEMP, ROOT, T0

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


def build(strict: bool = True) -> Suite:
    suite = Suite(
        "grants",
        [
            "Decode the grant, then decide whether it may stand on a chain authorising a record",
            "for `key` stamped `ts`, given the revoked grant ids. Valid gives the grant id.",
        ],
        FLAGS,
    )
    group = suite.group("grant-for-key", rootKey=ROOT.pk.hex())

    def case(
        name: str,
        comment: str,
        flags: list[str],
        grant: bytes,
        key: str,
        ts: int,
        want: str,
        reason: str | None = None,
        revoked: tuple[bytes, ...] = (),
        rules: tuple[str, ...] = ("notes:2.2",),
    ) -> None:
        add(
            suite,
            group,
            name,
            comment,
            flags=flags,
            rules=list(rules),
            input={
                "grant": grant.hex(),
                "key": key,
                "ts": ts,
                "revokedIds": [x.hex() for x in revoked],
            },
            want=want,
            reason=reason,
            strict=strict,
        )

    g = G_ALICE.encode()
    case("serves-matching-key", "root -> alice /a/**, key /a/x.", ["Valid"], g, "/a/x", T0, "valid")
    case(
        "issued-at-equals-ts",
        "A record stamped exactly at issue time.",
        ["TimeWindow"],
        g,
        "/a/x",
        T0,
        "valid",
        rules=("notes:2.2", "row:12"),
    )
    case(
        "record-before-issue",
        "A record stamped 1 ms before the grant.",
        ["TimeWindow"],
        g,
        "/a/x",
        T0 - 1,
        "invalid",
        "GRANT_NOT_YET_VALID",
        rules=("notes:2.2", "row:12", "attack:15"),
    )
    t = G_TEMP.encode()
    case(
        "before-expiry",
        "1 ms before expires_at.",
        ["TimeWindow"],
        t,
        "/t/x",
        T0 + 999,
        "valid",
        rules=("notes:2.2", "row:11"),
    )
    case(
        "at-expiry",
        "Exactly at expires_at.",
        ["TimeWindow"],
        t,
        "/t/x",
        T0 + 1000,
        "invalid",
        "GRANT_EXPIRED",
        rules=("notes:2.2", "row:11", "attack:15"),
    )
    case(
        "after-expiry-far-future-clock-irrelevant",
        "Long after expiry.",
        ["TimeWindow"],
        t,
        "/t/x",
        T0 + 10**9,
        "invalid",
        "GRANT_EXPIRED",
        rules=("notes:2.2", "row:11"),
    )
    case(
        "pattern-mismatch",
        "/a/** does not cover /b.",
        ["PatternMismatch"],
        g,
        "/b",
        T0,
        "invalid",
        "GRANT_PATTERN_MISMATCH",
        rules=("notes:2.2", "row:6"),
    )
    case(
        "pattern-tail-needs-segment",
        "/a/** does not cover /a itself.",
        ["PatternMismatch"],
        g,
        "/a",
        T0,
        "invalid",
        "GRANT_PATTERN_MISMATCH",
        rules=("notes:2.2", "row:6"),
    )
    case(
        "revoked",
        "The grant's id is in the revocation set.",
        ["Revoked"],
        g,
        "/a/x",
        T0,
        "invalid",
        "GRANT_REVOKED",
        revoked=(G_ALICE.id,),
        rules=("notes:2.2", "row:15"),
    )
    other = issue_grant(ROOT.seed, BOB.pk, "/a/**", subgrant=False, issued_at=T0)
    case(
        "other-grant-revoked",
        "Another grant is revoked, not this one.",
        ["Valid"],
        g,
        "/a/x",
        T0,
        "valid",
        revoked=(other.id,),
    )
    to_root = issue_grant(ALICE.seed, ROOT.pk, "/a/**", subgrant=True, issued_at=T0)
    case(
        "grant-to-root",
        "alice grants to the root.",
        ["GrantToRoot"],
        to_root.encode(),
        "/a/x",
        T0,
        "invalid",
        "GRANT_TO_ROOT",
        rules=("notes:2.2", "row:8", "attack:13"),
    )
    parts = grant_body_parts(G_ALICE)
    self_body = raw_array([*parts[:2], parts[1], *parts[3:]])
    case(
        "self-issued",
        "root grants to the root.",
        ["SelfIssued"],
        signed(ROOT.seed, self_body),
        "/a/x",
        T0,
        "invalid",
        "GRANT_SELF_ISSUED",
        rules=("notes:2.2", "row:8", "attack:13"),
    )
    flags2 = raw_array([*parts[:4], encode(2), *parts[5:]])
    case(
        "unknown-flag-bit",
        "flags = 2.",
        ["BadFields"],
        signed(ROOT.seed, flags2),
        "/a/x",
        T0,
        "invalid",
        "GRANT_UNKNOWN_FLAGS",
    )
    exp = raw_array([*parts[:6], encode(T0)])
    case(
        "expires-at-issue",
        "expires_at == issued_at.",
        ["BadFields"],
        signed(ROOT.seed, exp),
        "/a/x",
        T0,
        "invalid",
        "GRANT_EXPIRES_BEFORE_ISSUE",
        rules=("notes:2.2", "row:11"),
    )
    bad = raw_array([*parts[:3], encode("/a**"), *parts[4:]])
    case(
        "malformed-pattern",
        "A pattern outside the grammar.",
        ["BadFields"],
        signed(ROOT.seed, bad),
        "/a/x",
        T0,
        "invalid",
        "PATTERN_DOUBLESTAR_IN_SEGMENT",
        rules=("notes:2.2", "row:18", "attack:17"),
    )
    long_pattern = raw_array([*parts[:3], encode("/" + "p" * 128), *parts[4:]])
    case(
        "pattern-too-long",
        "A 129-byte pattern.",
        ["BadFields"],
        signed(ROOT.seed, long_pattern),
        "/a/x",
        T0,
        "invalid",
        "PATTERN_TOO_LONG",
        rules=("notes:2.2", "row:33", "attack:17"),
    )
    return suite
