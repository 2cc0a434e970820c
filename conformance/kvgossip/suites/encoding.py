"""Encoding vectors: canonical bodies and every way a body can be non-canonical or malformed,
plus tampering that the signature must catch (notes 1.2, table rows 2-5, section 5 cases 1-8)."""

from __future__ import annotations

from swarmconf.conformance.builder import BoundGroup, SuiteBuilder
from swarmconf.conformance.catalogue import Catalogue
from swarmconf.conformance.vectors import Flag, Json
from swarmconf.spec.kvgossip import crypto
from swarmconf.spec.kvgossip.encoding import GRANT_TAG, RECORD_TAG, REVOCATION_TAG, encode
from swarmconf.spec.kvgossip.grants import Revocation, revoke_grant
from swarmconf.spec.kvgossip.records import ZERO_HASH, Record, make_record, record_body

from ..craft import (
    grant_body_parts,
    raw_array,
    record_body_parts,
    record_fields,
    record_wire,
    resigned_record,
    signed,
)
from ..vocabulary import new_suite
from ..world import ALICE, G_ALICE, MALLORY, ROOT, T0

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
GRANT_PARTS = grant_body_parts(GRANT)
"""The encoded fields of root -> alice, to re-sign with one changed."""

# The record, tombstone and revocation are signed when a case function asks for them, so that
# a suite built under a mutant (a spec function swapped for a broken one) is signed by it.


def alices_record() -> Record:
    """alice writes b"hello" to /a/x at T0+5, under root -> alice."""
    return make_record(ALICE.seed, "/a/x", T0 + 5, b"hello", [GRANT])


def alices_tombstone() -> Record:
    """alice deletes /a/x at T0+6."""
    return make_record(ALICE.seed, "/a/x", T0 + 6, None, [GRANT])


def roots_revocation() -> Revocation:
    """The root revokes root -> alice at T0+10."""
    return revoke_grant(ROOT.seed, GRANT, T0 + 10, ROOT.pk)


def body(fields: list[object], tag: str = RECORD_TAG) -> bytes:
    """A body under `tag` with these fields, canonically encoded."""
    return encode([tag, *fields])


def decoding(kind: str, data: bytes) -> Json:
    """The input: decode `data` as an object of `kind` and check it on its own."""
    return {"kind": kind, "bytes": data.hex()}


case = Catalogue[BoundGroup]()


@case
def canonical_objects(g: BoundGroup) -> None:
    empty = make_record(ALICE.seed, "/a/e", T0 + 7, b"", [GRANT])
    for name, comment, kind, data, row in [
        ("grant-canonical", "A root grant.", "grant", GRANT.encode(), "row:2"),
        (
            "record-canonical",
            "A value record with its chain.",
            "record",
            alices_record().encode(),
            "row:2",
        ),
        (
            "tombstone-canonical",
            "A tombstone: empty value, zero value hash.",
            "record",
            alices_tombstone().encode(),
            "row:16",
        ),
        (
            "revocation-canonical",
            "A revocation by the root.",
            "revocation",
            roots_revocation().encode(),
            "row:13",
        ),
        (
            "record-empty-value-not-tombstone",
            "An empty value is a value, not a tombstone.",
            "record",
            empty.encode(),
            "row:16",
        ),
    ]:
        g.case(
            name,
            comment,
            flags=["Canonical"],
            input=decoding(kind, data),
            expect="valid",
            rules=["notes:1.2", row],
        )


@case
def non_canonical_bodies(g: BoundGroup) -> None:
    """Correctly signed, but not the shortest msgpack form: two byte forms would give two ids."""
    record = alices_record()
    parts = record_body_parts(record)
    early = make_record(ALICE.seed, "/a/x", 1000, b"hello", [GRANT])
    early_parts = record_body_parts(early)
    ts64 = b"\xcf" + (1000).to_bytes(8, "big")
    tag8 = b"\xd9" + bytes([len(RECORD_TAG)]) + RECORD_TAG.encode()
    for name, comment, flag, kind, data in [
        (
            "grant-flags-uint8",
            "flags 0 as uint8 0xcc00 instead of fixint.",
            "WiderInteger",
            "grant",
            signed(ROOT.seed, raw_array([*GRANT_PARTS[:4], b"\xcc\x00", *GRANT_PARTS[5:]])),
        ),
        (
            "record-ts-uint64",
            "ts 1000 as uint64 instead of uint16.",
            "WiderInteger",
            "record",
            resigned_record(
                ALICE.seed, early, raw_array([*early_parts[:2], ts64, *early_parts[3:]])
            ),
        ),
        (
            "record-tag-str8",
            "The tag as str8 instead of fixstr.",
            "WiderString",
            "record",
            resigned_record(ALICE.seed, record, raw_array([tag8, *parts[1:]])),
        ),
        (
            "record-body-array16",
            "The body as array16 instead of fixarray.",
            "WiderString",
            "record",
            resigned_record(ALICE.seed, record, b"\xdc\x00\x06" + b"".join(parts)),
        ),
        (
            "record-envelope-array16",
            "The envelope as array16.",
            "WiderString",
            "record",
            b"\xdc\x00\x04" + record.encode()[1:],
        ),
        (
            "record-ts-float32",
            "ts as float32; it re-encodes as float64.",
            "WiderInteger",
            "record",
            resigned_record(
                ALICE.seed, record, raw_array([*parts[:2], b"\xcaO\x00\x00\x00", *parts[3:]])
            ),
        ),
    ]:
        g.case(
            name,
            comment,
            flags=[flag],
            input=decoding(kind, data),
            expect="NONCANONICAL_ENCODING",
            rules=RULES,
        )


@case
def record_fields_of_the_wrong_type(g: BoundGroup) -> None:
    record = alices_record()
    fields = record_fields(record)
    for name, comment, changed in [
        ("record-key-as-bin", "The key as bin instead of str.", [record.key.encode(), *fields[1:]]),
        (
            "record-tombstone-as-int",
            "The tombstone flag as integer 0.",
            [*fields[:2], 0, *fields[3:]],
        ),
        ("record-ts-float64", "ts as float64.", [*fields[:1], float(record.ts), *fields[2:]]),
        ("record-ts-nil", "ts as nil.", [*fields[:1], None, *fields[2:]]),
        ("record-extra-field", "A seventh body element.", [*fields, 0]),
        ("record-missing-field", "A body without the signer.", fields[:4]),
    ]:
        g.case(
            name,
            comment,
            flags=["WrongType"],
            input=decoding("record", resigned_record(ALICE.seed, record, body(changed))),
            expect="BAD_SHAPE",
            rules=RULES,
        )


@case
def bad_shapes(g: BoundGroup) -> None:
    """Fields out of range, maps where arrays belong, bin where a str belongs."""
    record = alices_record()
    fields = record_fields(record)
    short_signer = body([*fields[:4], record.signer[:31]])
    pattern_as_bin = [
        GRANT.issuer,
        GRANT.issuee,
        GRANT.pattern.encode(),
        GRANT.flags,
        GRANT.issued_at,
        0,
    ]
    maps = ["notes:1.2", "attack:8"]
    for name, comment, flag, kind, data, rules in [
        (
            "record-ts-negative",
            "A negative timestamp.",
            "FieldRange",
            "record",
            resigned_record(ALICE.seed, record, body([*fields[:1], -1, *fields[2:]])),
            RULES,
        ),
        (
            "record-signer-31-bytes",
            "A 31-byte signer key.",
            "FieldRange",
            "record",
            record_wire(short_signer, record.signature, record.value, record.chain),
            RULES,
        ),
        (
            "record-body-map",
            "A map where the body array belongs.",
            "WrongType",
            "record",
            resigned_record(ALICE.seed, record, encode({"tag": RECORD_TAG, "key": record.key})),
            maps,
        ),
        (
            "record-envelope-map",
            "The envelope as a map.",
            "WrongType",
            "record",
            encode({"body": record.body}),
            maps,
        ),
        (
            "grant-pattern-as-bin",
            "The pattern as bin instead of str.",
            "WrongType",
            "grant",
            signed(ROOT.seed, body(pattern_as_bin, GRANT_TAG)),
            RULES,
        ),
    ]:
        g.case(
            name, comment, flags=[flag], input=decoding(kind, data), expect="BAD_SHAPE", rules=rules
        )


@case
def malformed_bytes(g: BoundGroup) -> None:
    record = alices_record()
    envelope = record.encode()
    parts = record_body_parts(record)
    bad_utf8 = raw_array([parts[0], b"\xa3/\xff\xfe", *parts[2:]])
    for name, comment, kind, data in [
        ("record-truncated", "The last byte is missing.", "record", envelope[:-1]),
        ("record-trailing-byte", "One byte after the value.", "record", envelope + b"\x00"),
        ("empty-input", "No bytes at all.", "grant", b""),
        (
            "record-key-invalid-utf8",
            "The key str holds invalid UTF-8.",
            "record",
            resigned_record(ALICE.seed, record, bad_utf8),
        ),
    ]:
        g.case(
            name,
            comment,
            flags=["Malformed"],
            input=decoding(kind, data),
            expect="MALFORMED_ENCODING",
            rules=RULES,
        )


@case
def domain_confusion(g: BoundGroup) -> None:
    record = alices_record()
    for name, comment, kind, data, reason in [
        (
            "grant-as-record",
            "A signed grant presented as a record body.",
            "record",
            record_wire(GRANT.body, GRANT.signature, b"", ()),
            "BAD_SHAPE",
        ),
        (
            "record-fields-grant-tag",
            "Record fields under the grant tag.",
            "record",
            resigned_record(ALICE.seed, record, body(record_fields(record), GRANT_TAG)),
            "WRONG_DOMAIN_TAG",
        ),
        (
            "revocation-tag-as-grant",
            "A body tagged revocation presented as a grant.",
            "grant",
            signed(ROOT.seed, body([b"x"] * 6, REVOCATION_TAG)),
            "WRONG_DOMAIN_TAG",
        ),
    ]:
        g.case(
            name,
            comment,
            flags=["DomainConfusion"],
            input=decoding(kind, data),
            expect=reason,
            rules=RULES,
        )


@case
def tampered_records(g: BoundGroup) -> None:
    """Every signed field is covered; the Go implementation signs only the value, so it takes
    a bumped timestamp or a relabelled key."""
    record, tomb = alices_record(), alices_tombstone()
    bumped = record_body(record.key, record.ts + 1000, False, record.value_hash, record.signer)
    relabel = record_body("/a/y", record.ts, False, record.value_hash, record.signer)
    unflagged = record_body(tomb.key, tomb.ts, False, ZERO_HASH, tomb.signer)
    hashed = record_body(tomb.key, tomb.ts, True, crypto.sha256(b""), tomb.signer)
    go_takes = ["Tampered", "GoHole"]
    for name, comment, flags, data, reason, attack in [
        (
            "record-ts-bumped-by-relay",
            "A relay raises ts to make an old value win.",
            go_takes,
            record_wire(bumped, record.signature, record.value, record.chain),
            "BAD_SIGNATURE",
            "attack:3",
        ),
        (
            "record-key-relabelled",
            "A valid /a/x record relabelled /a/y.",
            go_takes,
            record_wire(relabel, record.signature, record.value, record.chain),
            "BAD_SIGNATURE",
            "attack:4",
        ),
        (
            "record-value-altered",
            "The value bytes changed after signing.",
            ["Tampered"],
            record_wire(record.body, record.signature, b"hellp", record.chain),
            "VALUE_HASH_MISMATCH",
            "attack:2",
        ),
        (
            "tombstone-flag-flipped",
            "A tombstone's flag cleared after signing.",
            ["Tampered"],
            record_wire(unflagged, tomb.signature, b"", tomb.chain),
            "BAD_SIGNATURE",
            "attack:5",
        ),
        (
            "tombstone-with-value",
            "A correctly signed tombstone carrying a value.",
            ["Tampered"],
            record_wire(tomb.body, tomb.signature, b"x", tomb.chain),
            "TOMBSTONE_WITH_VALUE",
            "attack:5",
        ),
        (
            "tombstone-hash-not-zero",
            "A signed tombstone naming SHA-256('') as its value hash.",
            ["Tampered"],
            resigned_record(ALICE.seed, tomb, hashed),
            "TOMBSTONE_HASH_NOT_ZERO",
            "attack:5",
        ),
        (
            "record-signed-by-other-key",
            "Signed by mallory, naming alice as signer.",
            ["Tampered"],
            resigned_record(MALLORY.seed, record, record.body),
            "BAD_SIGNATURE",
            "attack:1",
        ),
    ]:
        g.case(
            name,
            comment,
            flags=flags,
            input=decoding("record", data),
            expect=reason,
            rules=[*TAMPER_RULES, attack],
        )


@case
def tampered_grants_and_revocations(g: BoundGroup) -> None:
    widened = raw_array([*GRANT_PARTS[:3], encode("/**"), *GRANT_PARTS[4:]])
    revocation = roots_revocation()
    late = raw_array(
        [encode(field) for field in [REVOCATION_TAG, GRANT.encode(), ROOT.pk, T0 + 11]]
    )
    for name, comment, kind, data, rule in [
        (
            "grant-pattern-widened",
            "The pattern widened to /** after signing.",
            "grant",
            encode([widened, GRANT.signature]),
            "attack:6",
        ),
        (
            "grant-root-issuer-signed-by-other",
            "issuer names the root, mallory signed it.",
            "grant",
            signed(MALLORY.seed, GRANT.body),
            "attack:7",
        ),
        (
            "revocation-time-altered",
            "revoked_at changed after signing.",
            "revocation",
            encode([late, revocation.signature]),
            "row:13",
        ),
    ]:
        g.case(
            name,
            comment,
            flags=["Tampered"],
            input=decoding(kind, data),
            expect="BAD_SIGNATURE",
            rules=["notes:1.2", rule],
        )


@case
def grant_oversize(g: BoundGroup) -> None:
    g.case(
        "grant-oversize",
        "A signed grant over 512 bytes.",
        flags=["Oversize"],
        input=decoding("grant", encode([GRANT.body + bytes(600), GRANT.signature])),
        expect="OVERSIZE",
        rules=["notes:1.2", "row:33"],
    )


def build(strict: bool = True) -> SuiteBuilder:
    suite = new_suite("encoding", " ".join(HEADER), FLAGS, strict=strict)
    case.fill(suite.group("kv_decode", rootKey=ROOT.pk.hex()))
    return suite
