"""Encoding vectors: canonical bodies and every way a body can be non-canonical or malformed,
plus tampering that the signature must catch (notes 1.2, table rows 2-5, section 5 cases 1-8)."""

from __future__ import annotations

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


def build(strict: bool = True) -> Suite:
    suite = Suite(
        "encoding",
        [
            "Decode one signed object (kind grant, revocation or record) and check it on its own:",
            "canonical msgpack, domain tag, field types, sizes, signature, value hash.",
            "A valid case gives its id: grant id, revoked grant id, or record entry hash.",
        ],
        FLAGS,
    )
    group = suite.group("decode", rootKey=ROOT.pk.hex())

    def case(
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
            suite,
            group,
            name,
            comment,
            flags=flags,
            rules=rules or ["notes:1.2", "row:2"],
            input={"kind": kind, "bytes": data.hex()},
            want=want,
            reason=reason,
            strict=strict,
        )

    grant = G_ALICE
    record = make_record(ALICE.seed, "/a/x", T0 + 5, b"hello", [grant])
    tomb = make_record(ALICE.seed, "/a/x", T0 + 6, None, [grant])
    revocation = revoke_grant(ROOT.seed, grant, T0 + 10, ROOT.pk)

    # Canonical objects
    case("grant-canonical", "A root grant.", ["Canonical"], "grant", grant.encode(), "valid")
    case(
        "record-canonical",
        "A value record with its chain.",
        ["Canonical"],
        "record",
        record.encode(),
        "valid",
    )
    case(
        "tombstone-canonical",
        "A tombstone: empty value, zero value hash.",
        ["Canonical"],
        "record",
        tomb.encode(),
        "valid",
        rules=["notes:1.2", "row:16"],
    )
    case(
        "revocation-canonical",
        "A revocation by the root.",
        ["Canonical"],
        "revocation",
        revocation.encode(),
        "valid",
        rules=["notes:1.2", "row:13"],
    )
    empty = make_record(ALICE.seed, "/a/e", T0 + 7, b"", [grant])
    case(
        "record-empty-value-not-tombstone",
        "An empty value is a value, not a tombstone.",
        ["Canonical"],
        "record",
        empty.encode(),
        "valid",
        rules=["notes:1.2", "row:16"],
    )

    # Non-canonical bodies, correctly signed
    parts = grant_body_parts(grant)
    wide_flags = raw_array([*parts[:4], b"\xcc\x00", *parts[5:]])
    case(
        "grant-flags-uint8",
        "flags 0 as uint8 0xcc00 instead of fixint.",
        ["WiderInteger"],
        "grant",
        signed(ROOT.seed, wide_flags),
        "invalid",
        "NONCANONICAL_ENCODING",
    )
    ts_parts = record_body_parts(record)
    early = make_record(ALICE.seed, "/a/x", 1000, b"hello", [grant])
    early_parts = record_body_parts(early)
    wide_ts = raw_array([*early_parts[:2], b"\xcf" + (1000).to_bytes(8, "big"), *early_parts[3:]])
    case(
        "record-ts-uint64",
        "ts 1000 as uint64 instead of uint16.",
        ["WiderInteger"],
        "record",
        resigned_record(ALICE.seed, early, wide_ts),
        "invalid",
        "NONCANONICAL_ENCODING",
    )
    tag8 = b"\xd9" + bytes([len(RECORD_TAG)]) + RECORD_TAG.encode()
    wide_tag = raw_array([tag8, *ts_parts[1:]])
    case(
        "record-tag-str8",
        "The tag as str8 instead of fixstr.",
        ["WiderString"],
        "record",
        resigned_record(ALICE.seed, record, wide_tag),
        "invalid",
        "NONCANONICAL_ENCODING",
    )
    arr16 = b"\xdc\x00\x06" + b"".join(ts_parts)
    case(
        "record-body-array16",
        "The body as array16 instead of fixarray.",
        ["WiderString"],
        "record",
        resigned_record(ALICE.seed, record, arr16),
        "invalid",
        "NONCANONICAL_ENCODING",
    )
    env = record.encode()
    case(
        "record-envelope-array16",
        "The envelope as array16.",
        ["WiderString"],
        "record",
        b"\xdc\x00\x04" + env[1:],
        "invalid",
        "NONCANONICAL_ENCODING",
    )
    f32 = raw_array([*ts_parts[:2], b"\xcaO\x00\x00\x00", *ts_parts[3:]])
    case(
        "record-ts-float32",
        "ts as float32; it re-encodes as float64.",
        ["WiderInteger"],
        "record",
        resigned_record(ALICE.seed, record, f32),
        "invalid",
        "NONCANONICAL_ENCODING",
    )

    # Wrong types and shapes
    def body(fields: list[object], tag: str = RECORD_TAG) -> bytes:
        return encode([tag, *fields])

    rf = [record.key, record.ts, record.tombstone, record.value_hash, record.signer]
    wrong = {
        "record-key-as-bin": ([record.key.encode(), *rf[1:]], "The key as bin instead of str."),
        "record-tombstone-as-int": ([*rf[:2], 0, *rf[3:]], "The tombstone flag as integer 0."),
        "record-ts-float64": ([*rf[:1], float(record.ts), *rf[2:]], "ts as float64."),
        "record-ts-nil": ([*rf[:1], None, *rf[2:]], "ts as nil."),
        "record-extra-field": ([*rf, 0], "A seventh body element."),
        "record-missing-field": (rf[:4], "A body without the signer."),
    }
    for name, (fields, comment) in wrong.items():
        case(
            name,
            comment,
            ["WrongType"],
            "record",
            resigned_record(ALICE.seed, record, body(fields)),
            "invalid",
            "BAD_SHAPE",
        )
    neg = body([*rf[:1], -1, *rf[2:]])
    case(
        "record-ts-negative",
        "A negative timestamp.",
        ["FieldRange"],
        "record",
        resigned_record(ALICE.seed, record, neg),
        "invalid",
        "BAD_SHAPE",
    )
    short = body([*rf[:4], record.signer[:31]])
    case(
        "record-signer-31-bytes",
        "A 31-byte signer key.",
        ["FieldRange"],
        "record",
        record_wire(short, record.signature, record.value, record.chain),
        "invalid",
        "BAD_SHAPE",
    )
    as_map = encode({"tag": RECORD_TAG, "key": record.key})
    case(
        "record-body-map",
        "A map where the body array belongs.",
        ["WrongType"],
        "record",
        resigned_record(ALICE.seed, record, as_map),
        "invalid",
        "BAD_SHAPE",
        ["notes:1.2", "attack:8"],
    )
    case(
        "record-envelope-map",
        "The envelope as a map.",
        ["WrongType"],
        "record",
        encode({"body": record.body}),
        "invalid",
        "BAD_SHAPE",
        ["notes:1.2", "attack:8"],
    )
    gp = [grant.issuer, grant.issuee, grant.pattern.encode(), grant.flags, grant.issued_at, 0]
    case(
        "grant-pattern-as-bin",
        "The pattern as bin instead of str.",
        ["WrongType"],
        "grant",
        signed(ROOT.seed, body(gp, GRANT_TAG)),
        "invalid",
        "BAD_SHAPE",
    )

    # Malformed bytes
    case(
        "record-truncated",
        "The last byte is missing.",
        ["Malformed"],
        "record",
        env[:-1],
        "invalid",
        "MALFORMED_ENCODING",
    )
    case(
        "record-trailing-byte",
        "One byte after the value.",
        ["Malformed"],
        "record",
        env + b"\x00",
        "invalid",
        "MALFORMED_ENCODING",
    )
    case(
        "empty-input",
        "No bytes at all.",
        ["Malformed"],
        "grant",
        b"",
        "invalid",
        "MALFORMED_ENCODING",
    )
    bad_utf8 = raw_array([ts_parts[0], b"\xa3/\xff\xfe", *ts_parts[2:]])
    case(
        "record-key-invalid-utf8",
        "The key str holds invalid UTF-8.",
        ["Malformed"],
        "record",
        resigned_record(ALICE.seed, record, bad_utf8),
        "invalid",
        "MALFORMED_ENCODING",
    )

    # Domain confusion
    case(
        "grant-as-record",
        "A signed grant presented as a record body.",
        ["DomainConfusion"],
        "record",
        record_wire(grant.body, grant.signature, b"", ()),
        "invalid",
        "BAD_SHAPE",
    )
    six = encode([GRANT_TAG, *rf])
    case(
        "record-fields-grant-tag",
        "Record fields under the grant tag.",
        ["DomainConfusion"],
        "record",
        resigned_record(ALICE.seed, record, six),
        "invalid",
        "WRONG_DOMAIN_TAG",
    )
    rev_as_grant = encode([REVOCATION_TAG, *([b"x"] * 6)])
    case(
        "revocation-tag-as-grant",
        "A body tagged revocation presented as a grant.",
        ["DomainConfusion"],
        "grant",
        signed(ROOT.seed, rev_as_grant),
        "invalid",
        "WRONG_DOMAIN_TAG",
    )

    # Tampering: every signed field is covered
    rules = ["notes:1.2", "row:4"]
    bumped = record_body(record.key, record.ts + 1000, False, record.value_hash, record.signer)
    case(
        "record-ts-bumped-by-relay",
        "A relay raises ts to make an old value win.",
        ["Tampered", "GoHole"],
        "record",
        record_wire(bumped, record.signature, record.value, record.chain),
        "invalid",
        "BAD_SIGNATURE",
        [*rules, "attack:3"],
    )
    relabel = record_body("/a/y", record.ts, False, record.value_hash, record.signer)
    case(
        "record-key-relabelled",
        "A valid /a/x record relabelled /a/y.",
        ["Tampered", "GoHole"],
        "record",
        record_wire(relabel, record.signature, record.value, record.chain),
        "invalid",
        "BAD_SIGNATURE",
        [*rules, "attack:4"],
    )
    case(
        "record-value-altered",
        "The value bytes changed after signing.",
        ["Tampered"],
        "record",
        record_wire(record.body, record.signature, b"hellp", record.chain),
        "invalid",
        "VALUE_HASH_MISMATCH",
        [*rules, "attack:2"],
    )
    flipped = record_body(tomb.key, tomb.ts, False, ZERO_HASH, tomb.signer)
    case(
        "tombstone-flag-flipped",
        "A tombstone's flag cleared after signing.",
        ["Tampered"],
        "record",
        record_wire(flipped, tomb.signature, b"", tomb.chain),
        "invalid",
        "BAD_SIGNATURE",
        [*rules, "attack:5"],
    )
    case(
        "tombstone-with-value",
        "A correctly signed tombstone carrying a value.",
        ["Tampered"],
        "record",
        record_wire(tomb.body, tomb.signature, b"x", tomb.chain),
        "invalid",
        "TOMBSTONE_WITH_VALUE",
        [*rules, "attack:5"],
    )
    hashed = record_body(tomb.key, tomb.ts, True, crypto.sha256(b""), tomb.signer)
    case(
        "tombstone-hash-not-zero",
        "A signed tombstone naming SHA-256('') as its value hash.",
        ["Tampered"],
        "record",
        resigned_record(ALICE.seed, tomb, hashed),
        "invalid",
        "TOMBSTONE_HASH_NOT_ZERO",
        [*rules, "attack:5"],
    )
    case(
        "record-signed-by-other-key",
        "Signed by mallory, naming alice as signer.",
        ["Tampered"],
        "record",
        resigned_record(MALLORY.seed, record, record.body),
        "invalid",
        "BAD_SIGNATURE",
        [*rules, "attack:1"],
    )
    widened = raw_array([*parts[:3], encode("/**"), *parts[4:]])
    case(
        "grant-pattern-widened",
        "The pattern widened to /** after signing.",
        ["Tampered"],
        "grant",
        encode([widened, grant.signature]),
        "invalid",
        "BAD_SIGNATURE",
        ["notes:1.2", "attack:6"],
    )
    case(
        "grant-root-issuer-signed-by-other",
        "issuer names the root, mallory signed it.",
        ["Tampered"],
        "grant",
        signed(MALLORY.seed, grant.body),
        "invalid",
        "BAD_SIGNATURE",
        ["notes:1.2", "attack:7"],
    )
    rev_body = raw_array(
        [encode(REVOCATION_TAG), encode(grant.encode()), encode(ROOT.pk), encode(T0 + 11)]
    )
    case(
        "revocation-time-altered",
        "revoked_at changed after signing.",
        ["Tampered"],
        "revocation",
        encode([rev_body, revocation.signature]),
        "invalid",
        "BAD_SIGNATURE",
        ["notes:1.2", "row:13"],
    )

    # Sizes
    big = encode([grant.body + bytes(600), grant.signature])
    case(
        "grant-oversize",
        "A signed grant over 512 bytes.",
        ["Oversize"],
        "grant",
        big,
        "invalid",
        "OVERSIZE",
        ["notes:1.2", "row:33"],
    )
    return suite
