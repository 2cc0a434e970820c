"""Encoding vectors: canonical bodies and every way a body can be non-canonical or malformed,
plus tampering that the signature must catch (notes 1.2, table rows 2-5, section 5 cases 1-8)."""

from __future__ import annotations

from swarmconf.conformance.catalogue import Catalogue
from swarmconf.spec.kvgossip import crypto
from swarmconf.spec.kvgossip.encoding import (
    GRANT_TAG,
    RECORD_TAG,
    REVOCATION_TAG,
    encode,
)
from swarmconf.spec.kvgossip.grants import revoke_grant
from swarmconf.spec.kvgossip.records import ZERO_HASH, make_record, record_body

from .base import Flag, Suite, add
from .craft import (
    grant_body_parts,
    raw_array,
    record_body_parts,
    record_wire,
    resigned_record,
    signed,
)
from .world import ALICE, G_ALICE, MALLORY, ROOT, T0

FLAGS = {
    "Canonical": Flag(
        "BASIC", "A canonical, correctly signed object.", "Accepted; its id is given."
    ),
    "WiderInteger": Flag(
        "NONCANONICAL_ENCODING",
        "An integer is encoded wider than the smallest msgpack form, then signed.",
        "Rejected: two byte forms of one object would give two ids.",
    ),
    "WiderString": Flag(
        "NONCANONICAL_ENCODING",
        "A string or array uses a longer header than needed, then signed.",
        "Rejected as non-canonical.",
    ),
    "WrongType": Flag(
        "MODIFIED_PARAMETER",
        "A field holds the wrong msgpack type (str for bin, int for bool, map for array, nil).",
        "Rejected: BAD_SHAPE.",
    ),
    "Malformed": Flag(
        "EDGE_CASE",
        "The bytes are not exactly one msgpack value (truncated, trailing, invalid UTF-8).",
        "Rejected: MALFORMED_ENCODING.",
    ),
    "DomainConfusion": Flag(
        "MALLEABILITY",
        "A body of one kind is presented as another kind.",
        "Rejected by the domain tag.",
    ),
    "Tampered": Flag(
        "AUTH_BYPASS",
        "A signed field was changed after signing (value, timestamp, key, tombstone, pattern).",
        "Rejected: the signature covers every field.",
    ),
    "GoHole": Flag(
        "DEPLOYED_QUIRK",
        "The Go implementation accepts this (its signature covers only the value).",
        "Must be rejected here.",
    ),
    "Oversize": Flag("EDGE_CASE", "The object exceeds its size cap.", "Rejected: OVERSIZE."),
    "FieldRange": Flag(
        "EDGE_CASE",
        "A field is outside its allowed range or size (negative time, short key).",
        "Rejected.",
    ),
}


HEADER = [
    "Decode one signed object (kind grant, revocation or record) and check it on its own:",
    "canonical msgpack, domain tag, field types, sizes, signature, value hash.",
    "A valid case gives its id: grant id, revoked grant id, or record entry hash.",
]
RULES = ["notes:1.2", "row:2"]
TAMPER_RULES = ["notes:1.2", "row:4"]

GRANT = G_ALICE


def body(fields: list[object], tag: str = RECORD_TAG) -> bytes:
    """A body under `tag` with these fields, canonically encoded."""
    return encode([tag, *fields])


class Decoding:
    """The suite and its one group: decode an object under the root key."""

    def __init__(self, strict: bool) -> None:
        self.suite = Suite("encoding", HEADER, FLAGS)
        self.group = self.suite.group("decode", rootKey=ROOT.pk.hex())
        self.strict = strict
        # Made when the suite is built (under a mutant, if one is active).
        self.record = make_record(ALICE.seed, "/a/x", T0 + 5, b"hello", [GRANT])
        self.tomb = make_record(ALICE.seed, "/a/x", T0 + 6, None, [GRANT])
        self.revocation = revoke_grant(ROOT.seed, GRANT, T0 + 10, ROOT.pk)
        self.grant_parts = grant_body_parts(GRANT)
        self.record_parts = record_body_parts(self.record)
        self.envelope = self.record.encode()
        self.record_fields = [
            self.record.key,
            self.record.ts,
            self.record.tombstone,
            self.record.value_hash,
            self.record.signer,
        ]

    def case(
        self,
        name: str,
        comment: str,
        flags: list[str],
        kind: str,
        data: bytes,
        want: str,
        reason: str | None = None,
        rules: list[str] | None = None,
    ) -> None:
        add(
            self.suite,
            self.group,
            name,
            comment,
            flags=flags,
            rules=rules or RULES,
            input={"kind": kind, "bytes": data.hex()},
            want=want,
            reason=reason,
            strict=self.strict,
        )

    def refused(
        self,
        name: str,
        comment: str,
        flag: str,
        kind: str,
        data: bytes,
        reason: str,
        rules: list[str] | None = None,
    ) -> None:
        """An object refused with `reason`, shown by one flag."""
        self.case(name, comment, [flag], kind, data, "invalid", reason, rules)


case = Catalogue[Decoding]()


# Canonical objects


@case
def canonical_objects(d: Decoding) -> None:
    d.case("grant-canonical", "A root grant.", ["Canonical"], "grant", GRANT.encode(), "valid")
    d.case(
        "record-canonical",
        "A value record with its chain.",
        ["Canonical"],
        "record",
        d.record.encode(),
        "valid",
    )
    d.case(
        "tombstone-canonical",
        "A tombstone: empty value, zero value hash.",
        ["Canonical"],
        "record",
        d.tomb.encode(),
        "valid",
        rules=["notes:1.2", "row:16"],
    )
    d.case(
        "revocation-canonical",
        "A revocation by the root.",
        ["Canonical"],
        "revocation",
        d.revocation.encode(),
        "valid",
        rules=["notes:1.2", "row:13"],
    )


@case
def record_empty_value_not_tombstone(d: Decoding) -> None:
    empty = make_record(ALICE.seed, "/a/e", T0 + 7, b"", [GRANT])
    d.case(
        "record-empty-value-not-tombstone",
        "An empty value is a value, not a tombstone.",
        ["Canonical"],
        "record",
        empty.encode(),
        "valid",
        rules=["notes:1.2", "row:16"],
    )


# Non-canonical bodies, correctly signed


@case
def grant_flags_uint8(d: Decoding) -> None:
    wide_flags = raw_array([*d.grant_parts[:4], b"\xcc\x00", *d.grant_parts[5:]])
    d.refused(
        "grant-flags-uint8",
        "flags 0 as uint8 0xcc00 instead of fixint.",
        "WiderInteger",
        "grant",
        signed(ROOT.seed, wide_flags),
        "NONCANONICAL_ENCODING",
    )


@case
def record_ts_uint64(d: Decoding) -> None:
    early = make_record(ALICE.seed, "/a/x", 1000, b"hello", [GRANT])
    early_parts = record_body_parts(early)
    wide_ts = raw_array([*early_parts[:2], b"\xcf" + (1000).to_bytes(8, "big"), *early_parts[3:]])
    d.refused(
        "record-ts-uint64",
        "ts 1000 as uint64 instead of uint16.",
        "WiderInteger",
        "record",
        resigned_record(ALICE.seed, early, wide_ts),
        "NONCANONICAL_ENCODING",
    )


@case
def wider_headers(d: Decoding) -> None:
    tag8 = b"\xd9" + bytes([len(RECORD_TAG)]) + RECORD_TAG.encode()
    wide_tag = raw_array([tag8, *d.record_parts[1:]])
    d.refused(
        "record-tag-str8",
        "The tag as str8 instead of fixstr.",
        "WiderString",
        "record",
        resigned_record(ALICE.seed, d.record, wide_tag),
        "NONCANONICAL_ENCODING",
    )
    arr16 = b"\xdc\x00\x06" + b"".join(d.record_parts)
    d.refused(
        "record-body-array16",
        "The body as array16 instead of fixarray.",
        "WiderString",
        "record",
        resigned_record(ALICE.seed, d.record, arr16),
        "NONCANONICAL_ENCODING",
    )
    d.refused(
        "record-envelope-array16",
        "The envelope as array16.",
        "WiderString",
        "record",
        b"\xdc\x00\x04" + d.envelope[1:],
        "NONCANONICAL_ENCODING",
    )


@case
def record_ts_float32(d: Decoding) -> None:
    f32 = raw_array([*d.record_parts[:2], b"\xcaO\x00\x00\x00", *d.record_parts[3:]])
    d.refused(
        "record-ts-float32",
        "ts as float32; it re-encodes as float64.",
        "WiderInteger",
        "record",
        resigned_record(ALICE.seed, d.record, f32),
        "NONCANONICAL_ENCODING",
    )


# Wrong types and shapes


@case
def record_fields_of_the_wrong_type(d: Decoding) -> None:
    fields = d.record_fields
    wrong = {
        "record-key-as-bin": (
            [d.record.key.encode(), *fields[1:]],
            "The key as bin instead of str.",
        ),
        "record-tombstone-as-int": (
            [*fields[:2], 0, *fields[3:]],
            "The tombstone flag as integer 0.",
        ),
        "record-ts-float64": ([*fields[:1], float(d.record.ts), *fields[2:]], "ts as float64."),
        "record-ts-nil": ([*fields[:1], None, *fields[2:]], "ts as nil."),
        "record-extra-field": ([*fields, 0], "A seventh body element."),
        "record-missing-field": (fields[:4], "A body without the signer."),
    }
    for name, (changed, comment) in wrong.items():
        data = resigned_record(ALICE.seed, d.record, body(changed))
        d.refused(name, comment, "WrongType", "record", data, "BAD_SHAPE")


@case
def record_fields_out_of_range(d: Decoding) -> None:
    negative = body([*d.record_fields[:1], -1, *d.record_fields[2:]])
    d.refused(
        "record-ts-negative",
        "A negative timestamp.",
        "FieldRange",
        "record",
        resigned_record(ALICE.seed, d.record, negative),
        "BAD_SHAPE",
    )
    short = body([*d.record_fields[:4], d.record.signer[:31]])
    d.refused(
        "record-signer-31-bytes",
        "A 31-byte signer key.",
        "FieldRange",
        "record",
        record_wire(short, d.record.signature, d.record.value, d.record.chain),
        "BAD_SHAPE",
    )


@case
def maps_for_arrays(d: Decoding) -> None:
    as_map = encode({"tag": RECORD_TAG, "key": d.record.key})
    d.refused(
        "record-body-map",
        "A map where the body array belongs.",
        "WrongType",
        "record",
        resigned_record(ALICE.seed, d.record, as_map),
        "BAD_SHAPE",
        ["notes:1.2", "attack:8"],
    )
    d.refused(
        "record-envelope-map",
        "The envelope as a map.",
        "WrongType",
        "record",
        encode({"body": d.record.body}),
        "BAD_SHAPE",
        ["notes:1.2", "attack:8"],
    )


@case
def grant_pattern_as_bin(d: Decoding) -> None:
    fields = [GRANT.issuer, GRANT.issuee, GRANT.pattern.encode(), GRANT.flags, GRANT.issued_at, 0]
    d.refused(
        "grant-pattern-as-bin",
        "The pattern as bin instead of str.",
        "WrongType",
        "grant",
        signed(ROOT.seed, body(fields, GRANT_TAG)),
        "BAD_SHAPE",
    )


# Malformed bytes


@case
def malformed_bytes(d: Decoding) -> None:
    cases = [
        ("record-truncated", "The last byte is missing.", "record", d.envelope[:-1]),
        ("record-trailing-byte", "One byte after the value.", "record", d.envelope + b"\x00"),
        ("empty-input", "No bytes at all.", "grant", b""),
    ]
    for name, comment, kind, data in cases:
        d.refused(name, comment, "Malformed", kind, data, "MALFORMED_ENCODING")


@case
def record_key_invalid_utf8(d: Decoding) -> None:
    bad_utf8 = raw_array([d.record_parts[0], b"\xa3/\xff\xfe", *d.record_parts[2:]])
    d.refused(
        "record-key-invalid-utf8",
        "The key str holds invalid UTF-8.",
        "Malformed",
        "record",
        resigned_record(ALICE.seed, d.record, bad_utf8),
        "MALFORMED_ENCODING",
    )


# Domain confusion


@case
def grant_as_record(d: Decoding) -> None:
    d.refused(
        "grant-as-record",
        "A signed grant presented as a record body.",
        "DomainConfusion",
        "record",
        record_wire(GRANT.body, GRANT.signature, b"", ()),
        "BAD_SHAPE",
    )


@case
def wrong_domain_tags(d: Decoding) -> None:
    six = encode([GRANT_TAG, *d.record_fields])
    d.refused(
        "record-fields-grant-tag",
        "Record fields under the grant tag.",
        "DomainConfusion",
        "record",
        resigned_record(ALICE.seed, d.record, six),
        "WRONG_DOMAIN_TAG",
    )
    rev_as_grant = encode([REVOCATION_TAG, *([b"x"] * 6)])
    d.refused(
        "revocation-tag-as-grant",
        "A body tagged revocation presented as a grant.",
        "DomainConfusion",
        "grant",
        signed(ROOT.seed, rev_as_grant),
        "WRONG_DOMAIN_TAG",
    )


# Tampering: every signed field is covered


@case
def record_fields_changed_after_signing(d: Decoding) -> None:
    """The Go implementation signs only the value, so it takes both."""
    bumped = record_body(
        d.record.key, d.record.ts + 1000, False, d.record.value_hash, d.record.signer
    )
    d.case(
        "record-ts-bumped-by-relay",
        "A relay raises ts to make an old value win.",
        ["Tampered", "GoHole"],
        "record",
        record_wire(bumped, d.record.signature, d.record.value, d.record.chain),
        "invalid",
        "BAD_SIGNATURE",
        [*TAMPER_RULES, "attack:3"],
    )
    relabel = record_body("/a/y", d.record.ts, False, d.record.value_hash, d.record.signer)
    d.case(
        "record-key-relabelled",
        "A valid /a/x record relabelled /a/y.",
        ["Tampered", "GoHole"],
        "record",
        record_wire(relabel, d.record.signature, d.record.value, d.record.chain),
        "invalid",
        "BAD_SIGNATURE",
        [*TAMPER_RULES, "attack:4"],
    )


@case
def record_value_altered(d: Decoding) -> None:
    d.refused(
        "record-value-altered",
        "The value bytes changed after signing.",
        "Tampered",
        "record",
        record_wire(d.record.body, d.record.signature, b"hellp", d.record.chain),
        "VALUE_HASH_MISMATCH",
        [*TAMPER_RULES, "attack:2"],
    )


@case
def tombstones_tampered(d: Decoding) -> None:
    flipped = record_body(d.tomb.key, d.tomb.ts, False, ZERO_HASH, d.tomb.signer)
    hashed = record_body(d.tomb.key, d.tomb.ts, True, crypto.sha256(b""), d.tomb.signer)
    cases = [
        (
            "tombstone-flag-flipped",
            "A tombstone's flag cleared after signing.",
            record_wire(flipped, d.tomb.signature, b"", d.tomb.chain),
            "BAD_SIGNATURE",
        ),
        (
            "tombstone-with-value",
            "A correctly signed tombstone carrying a value.",
            record_wire(d.tomb.body, d.tomb.signature, b"x", d.tomb.chain),
            "TOMBSTONE_WITH_VALUE",
        ),
        (
            "tombstone-hash-not-zero",
            "A signed tombstone naming SHA-256('') as its value hash.",
            resigned_record(ALICE.seed, d.tomb, hashed),
            "TOMBSTONE_HASH_NOT_ZERO",
        ),
    ]
    for name, comment, data, reason in cases:
        d.refused(name, comment, "Tampered", "record", data, reason, [*TAMPER_RULES, "attack:5"])


@case
def record_signed_by_other_key(d: Decoding) -> None:
    d.refused(
        "record-signed-by-other-key",
        "Signed by mallory, naming alice as signer.",
        "Tampered",
        "record",
        resigned_record(MALLORY.seed, d.record, d.record.body),
        "BAD_SIGNATURE",
        [*TAMPER_RULES, "attack:1"],
    )


@case
def grants_tampered(d: Decoding) -> None:
    widened = raw_array([*d.grant_parts[:3], encode("/**"), *d.grant_parts[4:]])
    d.refused(
        "grant-pattern-widened",
        "The pattern widened to /** after signing.",
        "Tampered",
        "grant",
        encode([widened, GRANT.signature]),
        "BAD_SIGNATURE",
        ["notes:1.2", "attack:6"],
    )
    d.refused(
        "grant-root-issuer-signed-by-other",
        "issuer names the root, mallory signed it.",
        "Tampered",
        "grant",
        signed(MALLORY.seed, GRANT.body),
        "BAD_SIGNATURE",
        ["notes:1.2", "attack:7"],
    )


@case
def revocation_time_altered(d: Decoding) -> None:
    fields = [REVOCATION_TAG, GRANT.encode(), ROOT.pk, T0 + 11]
    altered = raw_array([encode(field) for field in fields])
    d.refused(
        "revocation-time-altered",
        "revoked_at changed after signing.",
        "Tampered",
        "revocation",
        encode([altered, d.revocation.signature]),
        "BAD_SIGNATURE",
        ["notes:1.2", "row:13"],
    )


# Sizes


@case
def grant_oversize(d: Decoding) -> None:
    d.refused(
        "grant-oversize",
        "A signed grant over 512 bytes.",
        "Oversize",
        "grant",
        encode([GRANT.body + bytes(600), GRANT.signature]),
        "OVERSIZE",
        ["notes:1.2", "row:33"],
    )


def build(strict: bool = True) -> Suite:
    return case.fill(Decoding(strict)).suite
