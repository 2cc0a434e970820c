"""Edges of the spec's rules that the other suites leave open: each case tells the spec from a
slightly different rule (a mutant of it) that every other case passes.

Every case parses or increments one message under lag 5, unwraps blobs, encrypts or pads.
"""

from __future__ import annotations

from swarmconf.conformance import btcodec
from swarmconf.conformance.builder import VALID, BoundGroup, SuiteBuilder
from swarmconf.conformance.catalogue import Catalogue
from swarmconf.conformance.configmerge.suites import payload
from swarmconf.conformance.configmerge.suites.signatures import ALICE
from swarmconf.conformance.configmerge.values import raw_message
from swarmconf.conformance.configmerge.vocabulary import new_suite
from swarmconf.spec.configmerge.parts import Part

Message = tuple[str, str, bytes, str, list[str], list[str]]
"""Name, comment, bytes, swarmconf's answer (a reason or valid), flags, rules."""

PARSES: list[Message] = [
    (
        "lagged-third-entry-repeats-the-second",
        "three lagged entries, the third a repeat of the second: each entry is checked against"
        " the one before it, the third too",
        b"d1:#i10e1:&de1:<l"
        + b"li7e32:"
        + bytes(32)
        + b"dee"
        + (b"li8e32:" + bytes(32) + b"dee") * 2
        + b"e1:=dee",
        "LAGGED_UNSORTED",
        ["Ordering"],
        ["D7"],
    ),
    (
        "duplicate-key-of-two-bytes",
        "a data key of two bytes given twice: a duplicate, not an unsorted key (the bytes are"
        " equal, not the same object)",
        b"d1:#i1e1:&d2:aa0:2:aa0:ee1:=dee",
        "BT_DUPLICATE_KEY",
        ["Ordering"],
        ["D10"],
    ),
    (
        "set-third-between-first-and-second",
        "a data set whose third element lies between the first two: each element is compared"
        " with the one before it, not with the first",
        b"d1:#i1e1:&d1:sli1ei3ei2eee1:=dee",
        "DATA_SET_UNSORTED",
        ["Ordering"],
        ["D11"],
    ),
]

INCREMENTS: list[tuple[str, str, bytes, dict[bytes, object], str, list[str], list[str]]] = [
    (
        "removal-before-a-long-key",
        "an increment whose edit removes key `a`, then adds a key of 129 bytes: every entry of"
        " the diff is checked, not only those before the first that adds nothing",
        b"d1:#i1e1:&d1:ai1ee1:=dee",
        {b"k" * 129: 1},
        "KEY_TOO_LONG",
        ["WriterLimit"],
        ["D11", "D13"],
    ),
    (
        "removal-under-a-long-key",
        "an increment removing an element from a set under a key of 129 bytes received from"
        " others: nothing is added, so the writer limit does not apply",
        b"d1:#i1e1:&d129:" + b"k" * 129 + b"li1ei2eee1:=dee",
        {b"k" * 129: [1]},
        VALID,
        ["WriterLimit"],
        ["D11", "D13"],
    ),
    (
        "removal-of-a-long-key",
        "an increment removing a value under a key of 129 bytes received from others: a"
        " removal adds nothing, so the writer limit does not apply",
        b"d1:#i1e1:&d129:" + b"k" * 129 + b"i1ee1:=dee",
        {},
        VALID,
        ["WriterLimit"],
        ["D11", "D13"],
    ),
]
"""Name, comment, the message incremented, the data set on the increment, swarmconf's answer,
flags, rules."""

parse = Catalogue[BoundGroup]()
increment = Catalogue[BoundGroup]()
unwrap = Catalogue[BoundGroup]()


@parse
def parses(g: BoundGroup) -> None:
    for name, comment, message, reason, flags, rules in PARSES:
        g.case(name, comment, input={"msg": message.hex()}, expect=reason, flags=flags, rules=rules)


@increment
def increments(g: BoundGroup) -> None:
    for name, comment, message, data, reason, flags, rules in INCREMENTS:
        g.case(
            name,
            comment,
            input={"msg": message.hex(), "data": btcodec.encode(data).hex()},
            expect=reason,
            flags=flags,
            rules=rules,
        )


@unwrap
def part_sets_around_a_refused_part(g: BoundGroup) -> None:
    """A set of three parts whose joined payload does not hash to its hash, with a part of
    that hash claiming 4 parts between its first two: the set is still collected whole, and
    its refusal, at its first part's position, comes first."""
    parts = payload.split(payload.SMALL, [40, 40])
    flipped = Part(parts[1].hash, 1, 3, bytes([parts[1].chunk[0] ^ 1]) + parts[1].chunk[1:])
    odd = Part(parts[1].hash, 1, 4, parts[1].chunk)
    blobs = [payload.sealed_part(part) for part in (parts[0], odd, flipped, parts[2])]
    g.case(
        "parts-refused-around-a-count-mismatch",
        "part 0, a part claiming 4, then parts 1 (a bit flipped) and 2: the set joins and is"
        " refused at its first part's position, before the lone part after it",
        input=payload.opening(blobs),
        expect="PARTS_HASH_MISMATCH",
        flags=["Payload", "MultiPart"],
        rules=["D26"],
    )


@unwrap
def part_set_around_an_undecryptable_blob(g: BoundGroup) -> None:
    """Both parts of a message with a blob no key opens between them: every blob is read, so
    the set is whole and the blob between is the refusal."""
    first, second = (payload.sealed_part(part) for part in payload.split(payload.SMALL, [40]))
    stranger = payload.seal(payload.SMALL, under=payload.key("stranger"))
    g.case(
        "parts-around-an-undecryptable-blob",
        "part 0, a blob under another key, part 1: the blob between is refused, not the set",
        input=payload.opening([first, stranger, second]),
        expect="DECRYPT_FAILED",
        flags=["Payload", "MultiPart", "Undecryptable"],
        rules=["D23", "D26"],
    )


HASH = bytes(32)
BROKEN_PARTS: list[tuple[str, str, str, str]] = [
    (
        "part-list-leading-zero",
        "a part whose list holds `i01e`: malformed bt, not bytes after the list",
        payload.seal(b"mli01ee", padded=False),
        "PART_MALFORMED",
    ),
    (
        "part-list-truncated",
        "a part whose list ends early: malformed bt, not bytes after the list",
        payload.seal(b"ml3:abc", padded=False),
        "PART_MALFORMED",
    ),
    (
        "part-count-empty",
        "a part whose count is the empty string",
        payload.raw_part([HASH, b"\0", b"", b"chunk"]),
        "PART_BAD_COUNT",
    ),
    (
        "part-six-nuls",
        "a part followed by 6 NUL bytes, one more than any writer leaves",
        payload.raw_part([HASH, b"\0", b"\2", b"chunk"], b"\0" * 6),
        "PART_TRAILING_BYTES",
    ),
]
"""Name, comment, the blob, swarmconf's answer."""

crypto = Catalogue[SuiteBuilder]()


@unwrap
def two_frames(g: BoundGroup) -> None:
    g.case(
        "message-in-two-zstd-frames",
        "a `z` payload whose message is split across two zstd frames: both are inflated",
        input=payload.opening(
            [
                payload.seal(
                    b"z" + payload.zstd_frame(b"d1:#i1e1:&de") + payload.zstd_frame(b"1:=dee")
                )
            ]
        ),
        expect=VALID,
        flags=["Payload", "Compression", "ZstdStream"],
        rules=["D24"],
    )


@unwrap
def broken_parts(g: BoundGroup) -> None:
    for name, comment, blob, reason in BROKEN_PARTS:
        g.case(
            name,
            comment,
            input=payload.opening([blob]),
            expect=reason,
            flags=["Payload", "PartEncoding"],
            rules=["D26"],
        )


@crypto
def profiles_and_padding(suite: SuiteBuilder) -> None:
    suite.case(
        "encrypt-profile-after-spec",
        "an encryption profile named `tweetnacl`, after both profiles in byte order: refused",
        op="encrypt",
        input={
            "plaintext": "00",
            "key": payload.MAIN_KEY.hex(),
            "profile": "tweetnacl",
            "domain": payload.DOMAIN.hex(),
        },
        expect="BAD_PROFILE",
        flags=["EncryptionArguments"],
        rules=["D19"],
    )
    suite.case(
        "sign-key-zero-public-half",
        "a signing key whose public half is 32 zero bytes, below the seed's own: refused, as"
        " any public half but the seed's is",
        op="sign",
        input={"msg": raw_message(5, diff={}).hex(), "sign_key": (ALICE + bytes(32)).hex()},
        expect="BAD_KEY",
        flags=["BadKey"],
        rules=["D17"],
    )
    suite.case(
        "wrap-level-22",
        "a message wrapped at zstd level 22, the highest level allowed",
        op="wrap",
        input=payload.wrapping(payload.COMPRESSIBLE, 22),
        expect=VALID,
        flags=["Compression"],
        rules=["D21"],
    )
    suite.case(
        "pad-total-21000",
        "one byte padded for an overhead of 20,999: a total between 20,480 and 40,960 rounds up"
        " to 2,048 bytes, to 22,528",
        op="pad",
        input={"plaintext": "01", "overhead": 20_999},
        expect=VALID,
        flags=["Padding"],
        rules=["D19"],
    )


def build() -> SuiteBuilder:
    suite = new_suite(
        "spec_edges",
        "Edges of the spec's rules no other suite pins, each telling the spec from a slightly"
        " different rule.",
    )
    parse.fill(suite.group("parse", lag=5))
    increment.fill(suite.group("increment", lag=5))
    unwrap.fill(suite.group("unwrap"))
    crypto.fill(suite)
    return suite
