"""The payload layer (D21..D26): the exact blobs `wrap` pushes, and what `unwrap` makes of
single blobs, compressed payloads, sets of parts and blobs it must skip.

Every blob is sealed under `MAIN_KEY` and `DOMAIN` unless a case says otherwise. Sets of parts
a case crafts (reordered, duplicated, broken) carry small chunks: a reader accepts any chunk
size, so only the cases around the split need payloads of 76,760 bytes.
"""

from __future__ import annotations

import hashlib
import itertools
import random
from collections.abc import Sequence

from swarmconf.conformance.builder import VALID, Answer, BoundGroup, SuiteBuilder
from swarmconf.conformance.catalogue import Catalogue
from swarmconf.conformance.configmerge.values import new_message, raw_message
from swarmconf.conformance.configmerge.vocabulary import new_suite
from swarmconf.conformance.recipes import expand
from swarmconf.conformance.vectors import Json
from swarmconf.spec.configmerge import bt, examples
from swarmconf.spec.configmerge.encryption import encrypt, pad
from swarmconf.spec.configmerge.parts import MAX_BLOB_SIZE, Part, encode_part, payload_hash

DOMAIN = b"UserProfile"
SINGLE_LIMIT = 76_760
"""The largest padded payload that is pushed as one blob: 76,760 + 40 = 76,800 (D25)."""
INFLATE_LIMIT = 5_000_000


def key(label: str) -> bytes:
    return hashlib.sha256(b"swarmconf vectors v1 payload " + label.encode()).digest()


MAIN_KEY = key("main")
OTHER_KEY = key("other")
SMALL = examples.m118()
COMPRESSIBLE = new_message(3, {b"name": b"a" * 600, b"tags": {b"x" * 40, b"y" * 40}})
ANY_HASH = payload_hash(b"any")
"""The hash the malformed parts carry."""


def zstd_frame(data: bytes, *, content_size: bool = True) -> bytes:
    """One level-1 zstd frame of `data`, with or without its content size in the header."""
    import zstandard

    compressor = zstandard.ZstdCompressor(level=1, write_content_size=content_size)
    if content_size:
        return compressor.compress(data)
    stream = compressor.compressobj()
    return stream.compress(data) + stream.flush()


def sized_message(size: int) -> bytes:
    """A valid message of exactly `size` bytes whose one string value is incompressible."""
    rng = random.Random(f"swarmconf payload sized {size}")
    shell = len(raw_message(1, {b"v": b""}, lagged=[], diff={}))
    for digits in range(1, 8):
        length = size - shell - digits + 1
        if len(str(length)) == digits:
            value = rng.randbytes(length)
            message = raw_message(1, {b"v": value}, lagged=[], diff={})
            assert len(message) == size
            return message
    raise ValueError(f"no message of {size} bytes")


def seal(plaintext: bytes, *, padded: bool = True, under: bytes = MAIN_KEY) -> str:
    """A blob holding `plaintext` (padded first unless it is a part), as hex."""
    body = pad(plaintext) if padded else plaintext
    return encrypt(body, under, profile="libsession", domain=DOMAIN).hex()


def sealed_part(part: Part) -> str:
    """The blob of `part`, as hex."""
    return seal(encode_part(part), padded=False)


def sealed_parts(plaintext: bytes, sizes: list[int]) -> list[str]:
    """The blobs of the parts of `plaintext` cut as `split` cuts it."""
    return [sealed_part(part) for part in split(plaintext, sizes)]


def raw_part(fields: Sequence[bt.BtValue], tail: bytes = b"") -> str:
    """A part whose list holds `fields` as given, followed by `tail`."""
    return seal(b"m" + bt.encode(list(fields)) + tail, padded=False)


def split(plaintext: bytes, sizes: list[int]) -> list[Part]:
    """The padded `plaintext` cut into chunks of the given sizes (the last takes the rest)."""
    padded = pad(plaintext)
    cuts = [0]
    for size in sizes:
        cuts.append(cuts[-1] + size)
    cuts.append(len(padded))
    chunks = [padded[start:end] for start, end in itertools.pairwise(cuts)]
    digest = payload_hash(padded)
    return [Part(digest, index, len(chunks), chunk) for index, chunk in enumerate(chunks)]


def wrapping(message: bytes, level: int | None) -> Json:
    """`wrap`'s input: `message` at zstd `level` (None: uncompressed)."""
    given: Json = {"message": message.hex(), "key": MAIN_KEY.hex(), "domain": DOMAIN.hex()}
    if level is not None:
        given["level"] = level
    return given


def opening(blobs: list[str], keys: Sequence[bytes] = (MAIN_KEY,)) -> Json:
    """`unwrap`'s input: `blobs`, each opened with the first of `keys` that opens it."""
    return {"blobs": blobs, "keys": [k.hex() for k in keys], "domain": DOMAIN.hex()}


def blobs_of(answer: Answer) -> list[str]:
    """The blobs a valid `wrap` answer gives."""
    return list(answer.field("blobs"))


case = Catalogue[SuiteBuilder]()


@case
def exact_bytes(suite: SuiteBuilder) -> None:
    """`wrap` at level 1 and uncompressed, and `unwrap` of what it gives."""
    wrap, unwrap = suite.group("wrap"), suite.group("unwrap")
    messages = [
        ("m118", SMALL),
        ("compressible", COMPRESSIBLE),
        ("minimal", raw_message(1, {}, lagged=[], diff={})),
    ]
    for name, message in messages:
        for level in (1, None):
            label = f"level-{level}" if level else "uncompressed"
            flags = ["Payload", "Compression"] if level else ["Payload"]
            blobs = blobs_of(
                wrap.case(
                    f"wrap-{name}-{label}",
                    f"wrap {name} ({len(message)} bytes) {label.replace('-', ' ')}: `z` only if"
                    " strictly shorter, padded, encrypted",
                    input=wrapping(message, level),
                    expect=VALID,
                    flags=flags,
                    rules=["D21", "D22"],
                )
            )
            unwrap.case(
                f"unwrap-{name}-{label}",
                f"unwrap what wrap gave for {name} ({label.replace('-', ' ')})",
                input=opening(blobs),
                expect=VALID,
                flags=flags,
                rules=["D23", "D24"] if level else ["D23"],
            )


@case
def levels(suite: SuiteBuilder) -> None:
    """Compression levels outside 1..22 are a usage error (D21)."""
    for level in (0, 23, -1):
        suite.group("wrap").case(
            f"wrap-level-{level}",
            f"wrap with zstd level {level}: refused",
            input=wrapping(SMALL, level),
            expect="BAD_LEVEL",
            flags=["Payload", "Compression"],
            rules=["D21"],
        )


@case
def around_the_split(suite: SuiteBuilder) -> None:
    """A padded payload of 76,760 bytes is one blob; one byte more and it is split (D25)."""
    wrap, unwrap = suite.group("wrap"), suite.group("unwrap")
    for size, parts in ((SINGLE_LIMIT, 1), (SINGLE_LIMIT + 1, 2)):
        flags = ["Payload", "SplitBoundary"] + (["MultiPart"] if parts > 1 else [])
        blobs = blobs_of(
            wrap.case(
                f"wrap-{size}-bytes",
                f"wrap an incompressible message of {size:,} bytes: {parts} blob(s)",
                input=wrapping(sized_message(size), 1),
                expect=VALID,
                flags=flags,
                rules=["D22", "D25"],
            )
        )
        assert len(blobs) == parts
        unwrap.case(
            f"unwrap-{size}-bytes",
            f"unwrap the {parts} blob(s) of the {size:,}-byte message",
            input=opening(blobs),
            expect=VALID,
            flags=flags,
            rules=["D23", "D26"] if parts > 1 else ["D23"],
        )
        if parts > 1:
            unwrap.case(
                f"unwrap-{size}-bytes-reordered",
                f"the parts of the {size:,}-byte message, last first",
                input=opening(blobs[::-1]),
                expect=VALID,
                flags=flags,
                rules=["D26"],
            )


OVER_LIMIT_CUT = MAX_BLOB_SIZE - 40 - 50 + 1
"""A first chunk whose part's blob is 76,801 bytes, one over the largest blob."""


@case
def part_too_large(suite: SuiteBuilder) -> None:
    """An encrypted part over 76,800 bytes is refused (D26)."""
    suite.group("unwrap").case(
        "part-over-76800-bytes",
        "a part whose blob is 76,801 bytes: refused",
        input=opening(sealed_parts(sized_message(SINGLE_LIMIT + 1), [OVER_LIMIT_CUT])),
        expect="PART_TOO_LARGE",
        flags=["Payload", "MultiPart", "PartEncoding"],
        rules=["D26"],
    )


PartSet = tuple[str, str, list[str], str]
"""The blobs of parts given together: a name (after `parts-`), what they are, the blobs, and
what unwrapping them shows."""


def part_sets(unwrap: BoundGroup, sets: list[PartSet]) -> None:
    """Each set of parts unwrapped."""
    for name, comment, blobs, expect in sets:
        unwrap.case(
            f"parts-{name}",
            comment,
            input=opening(blobs),
            expect=expect,
            flags=["Payload", "MultiPart"],
            rules=["D26"],
        )


@case
def three_parts(suite: SuiteBuilder) -> None:
    """A three-part set with small chunks: whole, reordered, duplicated, incomplete; parts that
    do not join into their hash, disagree on their count, or join into no message (D26)."""
    unwrap = suite.group("unwrap")
    parts = split(SMALL, [40, 40])
    blobs = [sealed_part(part) for part in parts]
    wrong = Part(hashlib.blake2b(b"other", digest_size=32).digest(), 0, 2, b"\0" * 8)
    odd = Part(parts[1].hash, 1, 4, parts[1].chunk)
    part_sets(
        unwrap,
        [
            ("whole", "three parts of m118 in index order", blobs, VALID),
            (
                "reordered",
                "three parts of m118 in the order 2, 0, 1",
                [blobs[2], blobs[0], blobs[1]],
                VALID,
            ),
            (
                "duplicated",
                "three parts of m118 with part 1 twice",
                [blobs[0], blobs[1], blobs[1], blobs[2]],
                VALID,
            ),
            (
                "incomplete",
                "three parts of m118 without part 1",
                [blobs[0], blobs[2]],
                "PARTS_INCOMPLETE",
            ),
            (
                "wrong-joined-hash",
                "two parts whose joined payload does not hash to the hash they carry",
                [sealed_part(wrong), sealed_part(Part(wrong.hash, 1, 2, pad(SMALL)))],
                "PARTS_HASH_MISMATCH",
            ),
            (
                "count-mismatch",
                "a whole set of 3 parts and a part with their hash claiming 4: that part is"
                " refused",
                [*blobs, sealed_part(odd)],
                "PARTS_COUNT_MISMATCH",
            ),
            (
                "joined-not-a-message",
                "two parts whose joined payload is not a message",
                sealed_parts(b"xx-not-a-message", [10]),
                "PAYLOAD_NOT_MESSAGE",
            ),
        ],
    )
    unwrap.case(
        "parts-compressed",
        "two parts whose joined payload is `z` and a zstd frame of a message",
        input=opening(sealed_parts(b"z" + zstd_frame(COMPRESSIBLE), [30])),
        expect=VALID,
        flags=["Payload", "MultiPart", "Compression"],
        rules=["D24", "D26"],
    )


BrokenPart = tuple[str, str, list[bt.BtValue], bytes, str]
"""A malformed part: a name (after `part-`), what is wrong with it, its list's fields, the
bytes after its list, and its refusal."""


def broken_parts(unwrap: BoundGroup, parts: list[BrokenPart]) -> None:
    """Each malformed part given alone."""
    for name, comment, fields, tail, expect in parts:
        unwrap.case(
            f"part-{name}",
            f"a part with {comment}",
            input=opening([raw_part(fields, tail)]),
            expect=expect,
            flags=["Payload", "MultiPart", "PartEncoding"],
            rules=["D26"],
        )


GOOD_FIELDS: list[bt.BtValue] = [ANY_HASH, b"\0", b"\2", b"chunk"]
"""The fields of a well-formed part (0 of 2)."""


@case
def part_encoding(suite: SuiteBuilder) -> None:
    """One malformed part each, next to nothing else (D26)."""
    unwrap = suite.group("unwrap")
    broken_parts(
        unwrap,
        [
            ("count-1", "part count 1", [ANY_HASH, b"\0", b"\1", b"chunk"], b"", "PART_BAD_COUNT"),
            ("count-0", "part count 0", [ANY_HASH, b"\0", b"\0", b"chunk"], b"", "PART_BAD_COUNT"),
            (
                "count-2-bytes",
                "a two-byte count",
                [ANY_HASH, b"\0", b"\0\2", b"c"],
                b"",
                "PART_BAD_COUNT",
            ),
            (
                "index-2-of-2",
                "index = count",
                [ANY_HASH, b"\2", b"\2", b"chunk"],
                b"",
                "PART_INDEX_RANGE",
            ),
            (
                "index-9-of-2",
                "index > count",
                [ANY_HASH, b"\x09", b"\2", b"c"],
                b"",
                "PART_INDEX_RANGE",
            ),
            (
                "index-empty",
                "an empty index",
                [ANY_HASH, b"", b"\2", b"chunk"],
                b"",
                "PART_BAD_INDEX",
            ),
            (
                "hash-31",
                "a 31-byte hash",
                [ANY_HASH[:31], b"\0", b"\2", b"c"],
                b"",
                "PART_BAD_HASH",
            ),
            (
                "chunk-empty",
                "an empty chunk",
                [ANY_HASH, b"\0", b"\2", b""],
                b"",
                "PART_EMPTY_CHUNK",
            ),
            ("three-elements", "no chunk", GOOD_FIELDS[:3], b"", "PART_MALFORMED"),
            (
                "trailing-element",
                "a fifth element",
                [*GOOD_FIELDS, b"x"],
                b"",
                "PART_TRAILING_ELEMENTS",
            ),
            (
                "four-nuls",
                "four NUL bytes after the list",
                GOOD_FIELDS,
                b"\0" * 4,
                "PARTS_INCOMPLETE",
            ),
            (
                "five-nuls",
                "five NUL bytes after the list",
                GOOD_FIELDS,
                b"\0" * 5,
                "PART_TRAILING_BYTES",
            ),
            ("trailing-byte", "a byte after the list", GOOD_FIELDS, b"x", "PART_TRAILING_BYTES"),
        ],
    )
    unwrap.case(
        "part-not-a-list",
        "`m` followed by a bt string, not a list",
        input=opening([seal(b"m5:hello", padded=False)]),
        expect="PART_MALFORMED",
        flags=["Payload", "MultiPart", "PartEncoding"],
        rules=["D26"],
    )


ZstdPayload = tuple[str, str, bytes, str]
"""A `z` payload: a name (after `zstd-`), what follows the `z`, those bytes, and what
unwrapping it shows."""


def zstd_payloads(
    unwrap: BoundGroup, payloads: list[ZstdPayload], flags: Sequence[str] = ()
) -> None:
    """Each `z` payload sealed in one blob and unwrapped."""
    for name, comment, stream, expect in payloads:
        unwrap.case(
            f"zstd-{name}",
            f"`z` and {comment}",
            input=opening([seal(b"z" + stream)]),
            expect=expect,
            flags=["Payload", "Compression", "ZstdStream", *flags],
            rules=["D24"],
        )


@case
def zstd_streams(suite: SuiteBuilder) -> None:
    """`z` payloads that are not whole frames, inflate to nothing or past the bound (D24)."""
    frame = zstd_frame(SMALL)
    bomb = bytes(INFLATE_LIMIT + 1)
    zstd_payloads(
        suite.group("unwrap"),
        [
            ("garbage", "bytes that are no zstd frame", b"not zstd at all", "ZSTD_BAD_FRAME"),
            ("truncated", "a frame cut short", frame[:-3], "ZSTD_BAD_FRAME"),
            ("trailing", "a frame and bytes after it", frame + b"\x01\x02", "ZSTD_BAD_FRAME"),
            ("empty-frame", "a frame of nothing", zstd_frame(b""), "ZSTD_EMPTY"),
            (
                "two-frames",
                "two frames, read as one message",
                zstd_frame(SMALL[:50]) + zstd_frame(SMALL[50:]),
                VALID,
            ),
            (
                "no-content-size",
                "a frame without its content size",
                zstd_frame(SMALL, content_size=False),
                VALID,
            ),
            (
                "bomb",
                f"a frame announcing {len(bomb):,} zero bytes",
                zstd_frame(bomb),
                "ZSTD_TOO_LARGE",
            ),
            (
                "bomb-unannounced",
                f"{len(bomb):,} zero bytes, size not announced",
                zstd_frame(bomb, content_size=False),
                "ZSTD_TOO_LARGE",
            ),
        ],
    )


BlobSet = tuple[str, str, list[str], list[bytes], list[str], str]
"""Blobs given together: a name, what they are, the blobs, the keys to open them with, flags
beyond `Payload`, and what unwrapping them shows."""


def blob_sets(unwrap: BoundGroup, sets: list[BlobSet]) -> None:
    """Each set of blobs unwrapped with its keys."""
    for name, comment, blobs, keys, flags, expect in sets:
        unwrap.case(
            name,
            comment,
            input=opening(blobs, keys),
            expect=expect,
            flags=["Payload", *flags],
            rules=["D23"],
        )


@case
def keys_and_blobs(suite: SuiteBuilder) -> None:
    """Each key in turn, blobs no key opens, and what is left once the padding goes (D23)."""
    blob = seal(SMALL)
    other_domain = encrypt(pad(SMALL), MAIN_KEY, profile="libsession", domain=b"Contacts").hex()
    blob_sets(
        suite.group("unwrap"),
        [
            (
                "second-key-opens",
                "two keys, the second opens the blob",
                [blob],
                [OTHER_KEY, MAIN_KEY],
                ["Undecryptable"],
                VALID,
            ),
            (
                "no-key-opens",
                "no key given opens the blob",
                [blob],
                [OTHER_KEY, key("third")],
                ["Undecryptable"],
                "DECRYPT_FAILED",
            ),
            ("no-keys", "no key at all", [blob], [], [], "NO_KEYS"),
            (
                "wrong-domain",
                "a blob sealed under another domain",
                [other_domain],
                [MAIN_KEY],
                ["Undecryptable"],
                "DECRYPT_FAILED",
            ),
            (
                "blob-too-short",
                "a blob shorter than tag and nonce",
                ["00" * 39],
                [MAIN_KEY],
                [],
                "DECRYPT_TOO_SHORT",
            ),
            (
                "all-padding",
                "a blob holding nothing but zero bytes",
                [seal(b"")],
                [MAIN_KEY],
                [],
                "PAYLOAD_EMPTY",
            ),
            (
                "not-a-message",
                "a payload that is neither `m`, `z` nor a message: given to the parser as it is",
                [seal(b"xyz")],
                [MAIN_KEY],
                [],
                VALID,
            ),
            (
                "two-messages",
                "the blobs of two messages",
                [blob, seal(COMPRESSIBLE)],
                [MAIN_KEY],
                [],
                "PAYLOAD_SEVERAL_MESSAGES",
            ),
            (
                "one-skipped",
                "a message's blob after one no key opens: the first refusal is reported",
                [seal(SMALL, under=OTHER_KEY), blob],
                [MAIN_KEY],
                ["Undecryptable"],
                "DECRYPT_FAILED",
            ),
        ],
    )


@case
def more_broken_parts(suite: SuiteBuilder) -> None:
    """Further malformed parts: each refusal of D26 in three ways at least."""
    unwrap = suite.group("unwrap")
    broken_parts(
        unwrap,
        [
            (
                "index-3-of-3",
                "index = count = 3",
                [ANY_HASH, b"\3", b"\3", b"c"],
                b"",
                "PART_INDEX_RANGE",
            ),
            (
                "index-2-bytes",
                "a two-byte index",
                [ANY_HASH, b"\0\0", b"\2", b"c"],
                b"",
                "PART_BAD_INDEX",
            ),
            (
                "index-3-bytes",
                "a three-byte index",
                [ANY_HASH, b"\0" * 3, b"\2", b"c"],
                b"",
                "PART_BAD_INDEX",
            ),
            (
                "hash-33",
                "a 33-byte hash",
                [ANY_HASH + b"!", b"\0", b"\2", b"c"],
                b"",
                "PART_BAD_HASH",
            ),
            ("hash-empty", "an empty hash", [b"", b"\0", b"\2", b"c"], b"", "PART_BAD_HASH"),
            ("hash-int", "an integer for the hash", [7, b"\0", b"\2", b"c"], b"", "PART_MALFORMED"),
            ("empty-list", "an empty list", [], b"", "PART_MALFORMED"),
            (
                "chunk-empty-last",
                "an empty last chunk",
                [ANY_HASH, b"\1", b"\2", b""],
                b"",
                "PART_EMPTY_CHUNK",
            ),
            (
                "six-elements",
                "six elements",
                [ANY_HASH, b"\0", b"\2", b"c", b"d", b"e"],
                b"",
                "PART_TRAILING_ELEMENTS",
            ),
            (
                "int-element",
                "a fifth element that is an integer",
                [ANY_HASH, b"\0", b"\2", b"c", 5],
                b"",
                "PART_TRAILING_ELEMENTS",
            ),
            (
                "nul-then-byte",
                "a NUL and a byte after the list",
                [ANY_HASH, b"\0", b"\2", b"c"],
                b"\0x",
                "PART_TRAILING_BYTES",
            ),
        ],
    )
    unwrap.case(
        "part-chunk-empty-before-its-set",
        "a part with an empty chunk before a part of its set: the first refusal is the chunk's",
        input=opening(
            [raw_part([ANY_HASH, b"\0", b"\2", b""]), raw_part([ANY_HASH, b"\1", b"\2", b"c"])]
        ),
        expect="PART_EMPTY_CHUNK",
        flags=["Payload", "MultiPart", "PartEncoding"],
        rules=["D26"],
    )


@case
def more_part_sets(suite: SuiteBuilder) -> None:
    """Further sets of parts that cannot be joined, or join into no message (D26); a part over
    76,800 bytes alone."""
    unwrap = suite.group("unwrap")
    parts = split(SMALL, [40, 40])
    blobs = [sealed_part(part) for part in parts]
    flipped = Part(parts[1].hash, 1, 3, bytes([parts[1].chunk[0] ^ 1]) + parts[1].chunk[1:])
    other = split(COMPRESSIBLE, [40, 40])
    part_sets(
        unwrap,
        [
            ("one-of-three", "only part 1 of 3", [blobs[1]], "PARTS_INCOMPLETE"),
            (
                "chunk-flipped",
                "a bit flipped in part 1's chunk",
                [blobs[0], sealed_part(flipped), blobs[2]],
                "PARTS_HASH_MISMATCH",
            ),
            (
                "chunk-swapped",
                "the last part of another message given this message's hash",
                [blobs[0], blobs[1], sealed_part(Part(parts[2].hash, 2, 3, other[2].chunk))],
                "PARTS_HASH_MISMATCH",
            ),
            (
                "count-2-after-set",
                "a whole set and a part of it claiming 2",
                [*blobs, sealed_part(Part(parts[0].hash, 0, 2, parts[0].chunk))],
                "PARTS_COUNT_MISMATCH",
            ),
            (
                "count-255-after-set",
                "a whole set and a part of it claiming 255",
                [*blobs, sealed_part(Part(parts[0].hash, 7, 255, parts[0].chunk))],
                "PARTS_COUNT_MISMATCH",
            ),
            (
                "joined-list",
                "parts whose payload is a bt list",
                sealed_parts(b"l1:a1:be", [5]),
                "PAYLOAD_NOT_MESSAGE",
            ),
            (
                "joined-compressed-integer",
                "parts whose payload is `z` and a frame of `i1e`",
                sealed_parts(b"z" + zstd_frame(b"i1e"), [6]),
                "PAYLOAD_NOT_MESSAGE",
            ),
            (
                "joined-all-zero",
                "parts of a payload of zero bytes only",
                sealed_parts(b"", [100]),
                "PAYLOAD_EMPTY",
            ),
            (
                "set-and-a-message",
                "a whole set and the blob of another message",
                [*blobs, seal(COMPRESSIBLE)],
                "PAYLOAD_SEVERAL_MESSAGES",
            ),
        ],
    )
    for index, first in ((0, OVER_LIMIT_CUT), (1, 10)):
        big = split(sized_message(SINGLE_LIMIT + 1), [first])[index]
        unwrap.case(
            f"part-{index}-over-76800-bytes-alone",
            f"part {index} of a set, alone, whose blob is over 76,800 bytes: refused",
            input=opening([sealed_part(big)]),
            expect="PART_TOO_LARGE",
            flags=["Payload", "MultiPart", "PartEncoding"],
            rules=["D26"],
        )


@case
def more_streams_and_blobs(suite: SuiteBuilder) -> None:
    """Further `z` payloads and blobs that yield no message (D23, D24)."""
    unwrap = suite.group("unwrap")
    half = bytes(INFLATE_LIMIT // 2 + 1)
    zstd_payloads(
        unwrap,
        [
            (
                "bomb-two-frames",
                f"two frames of {len(half):,} zero bytes each",
                zstd_frame(half) * 2,
                "ZSTD_TOO_LARGE",
            ),
            ("two-empty-frames", "two frames of nothing", zstd_frame(b"") * 2, "ZSTD_EMPTY"),
            (
                "empty-frame-unannounced",
                "a frame of nothing, size not announced",
                zstd_frame(b"", content_size=False),
                "ZSTD_EMPTY",
            ),
        ],
    )
    blob = seal(SMALL)
    part = raw_part([ANY_HASH, b"\0", b"\2", b"c"])
    blob_sets(
        unwrap,
        [
            ("no-keys-two-blobs", "two blobs and no key", [blob, blob], [], [], "NO_KEYS"),
            ("no-keys-a-part", "a part and no key", [part], [], [], "NO_KEYS"),
            ("blob-empty", "an empty blob", [""], [MAIN_KEY], [], "DECRYPT_TOO_SHORT"),
            (
                "blob-too-short-after-one",
                "a message's blob, then one of 39 bytes",
                [blob, "00" * 39],
                [MAIN_KEY],
                [],
                "DECRYPT_TOO_SHORT",
            ),
            (
                "one-zero-byte",
                "a blob holding a single zero byte",
                [seal(b"\0")],
                [MAIN_KEY],
                [],
                "PAYLOAD_EMPTY",
            ),
            (
                "all-padding-after-one",
                "a message's blob, then one of padding only",
                [blob, seal(b"")],
                [MAIN_KEY],
                [],
                "PAYLOAD_EMPTY",
            ),
            ("no-blobs", "no blob at all", [], [MAIN_KEY], [], "PAYLOAD_SEVERAL_MESSAGES"),
            (
                "same-message-twice",
                "the same message's blob twice: two messages",
                [blob, blob],
                [MAIN_KEY],
                [],
                "PAYLOAD_SEVERAL_MESSAGES",
            ),
        ],
    )


def announcing(frame: bytes, size: int) -> bytes:
    """A frame written without its content size, its header made to announce `size` bytes: a
    four-byte content size field after the window descriptor."""
    magic, descriptor, window = frame[:4], frame[4], frame[5:6]
    assert descriptor == 0, "a frame without content size, checksum or dictionary"
    return magic + bytes([0x80]) + window + size.to_bytes(4, "little") + frame[6:]


def tied_message() -> bytes:
    """A message whose `z` and level-1 frame are exactly as long as itself."""
    rng = random.Random("swarmconf payload tie")
    head = rng.randbytes(300)
    for zeros in range(400):
        message = raw_message(1, {b"v": head + bytes(zeros)}, lagged=[], diff={})
        if len(b"z" + zstd_frame(message)) == len(message):
            return message
    raise ValueError("no message ties")


@case
def at_the_limits(suite: SuiteBuilder) -> None:
    """Each bound of D21 and D24 at the limit and one past it, with answers of a few bytes: a
    compressed message as long as the message, frames whose header lies about their size, a
    payload inflating to exactly 5,000,000 bytes beside another message (D21, D23, D24)."""
    wrap, unwrap = suite.group("wrap"), suite.group("unwrap")
    tie = tied_message()
    wrap.case(
        "wrap-compressed-ties",
        f"a message of {len(tie)} bytes whose `z` and frame are as long: kept uncompressed",
        input=wrapping(tie, 1),
        expect=VALID,
        flags=["Payload", "Compression"],
        rules=["D21"],
    )
    small = zstd_frame(SMALL, content_size=False)
    zstd_payloads(
        unwrap,
        [
            (
                "announces-over-limit",
                f"a frame of m118 whose header announces {INFLATE_LIMIT + 1:,} bytes: refused"
                " unread",
                announcing(small, INFLATE_LIMIT + 1),
                "ZSTD_TOO_LARGE",
            ),
            (
                "announces-limit",
                f"a frame of m118 whose header announces {INFLATE_LIMIT:,} bytes: read, and"
                " shorter than announced",
                announcing(small, INFLATE_LIMIT),
                "ZSTD_BAD_FRAME",
            ),
        ],
    )
    at_limit = bytes(INFLATE_LIMIT)
    for label, frame in (
        ("announced", zstd_frame(at_limit)),
        ("unannounced", zstd_frame(at_limit, content_size=False)),
    ):
        unwrap.case(
            f"zstd-limit-{label}-beside-a-message",
            f"`z` and a frame of exactly {INFLATE_LIMIT:,} zero bytes (size {label}), then"
            " m118's blob: both read, two messages",
            input=opening([seal(b"z" + frame), seal(SMALL)]),
            expect="PAYLOAD_SEVERAL_MESSAGES",
            flags=["Payload", "Compression", "ZstdStream"],
            rules=["D23", "D24"],
        )
    broken_parts(
        unwrap,
        [
            (
                "count-2-bytes-above-index",
                "a two-byte count whose first byte is above the index",
                [ANY_HASH, b"\0", b"\2\0", b"c"],
                b"",
                "PART_BAD_COUNT",
            ),
        ],
    )


def build() -> SuiteBuilder:
    suite = new_suite(
        "payload",
        "What a client stores in the swarm for a message and how it reads it back (D21..D26):"
        " zstd at level 1 when strictly shorter behind `z`, padding, encryption, parts of at"
        " most 76,710 bytes above 76,760 padded bytes; receiving with each key in turn,"
        " bounded decompression, parts checked, collected by hash and joined.",
    )
    return case.fill(suite)


PADDED_LIMIT = 4_997_080
"""The largest message whose padded payload is within 5,000,000 bytes (5,120 x 976 - 40)."""


def large_message(size: int, *, incompressible: bool) -> Json:
    """A recipe of a valid message of exactly `size` bytes: one string value of zero bytes, or
    of SHAKE-256 bytes when `incompressible`."""
    shell = len(raw_message(1, {b"v": b""}, lagged=[], diff={}))
    for digits in range(1, 9):
        length = size - shell - digits + 1
        if len(str(length)) == digits:
            marker = b"\x01"
            head, tail = raw_message(1, {b"v": marker * length}, lagged=[], diff={}).split(
                marker * length
            )
            value: Json = (
                {"seeded": f"swarmconf payload large {size}", "size": length}
                if incompressible
                else {"repeat": "00", "count": length}
            )
            return {"concat": [head.hex(), value, tail.hex()]}
    raise ValueError(f"no message of {size} bytes")


@case
def payload_limits(suite: SuiteBuilder) -> None:
    """`wrap` at the 5,000,000-byte bounds of D22, by recipe: a compressible message exactly at
    the bound on the message and one past (which the deployed client pushes: X13), and
    uncompressed messages whose padded payload is exactly at its bound and one past, and the
    message itself at its bound and one past; `unwrap` of the blob a compressible message of
    each size is pushed as, which inflates exactly to the reader's bound or one past (D24)."""
    wrap, unwrap = suite.group("wrap"), suite.group("unwrap")
    for size, expect in ((INFLATE_LIMIT, VALID), (INFLATE_LIMIT + 1, "PAYLOAD_TOO_LARGE")):
        wrap.case(
            f"wrap-compressible-message-of-{size}-bytes",
            f"a message of {size:,} bytes that compresses to a few hundred bytes, at level 1: "
            + ("within the bound" if expect == VALID else "over the bound on the message"),
            input={**wrapping(b"", 1), "message": large_message(size, incompressible=False)},
            expect=expect,
            flags=["Payload", "Compression"],
            rules=["D22"],
        )
    for size, expect in ((INFLATE_LIMIT, VALID), (INFLATE_LIMIT + 1, "ZSTD_TOO_LARGE")):
        message = expand(large_message(size, incompressible=False))
        unwrap.case(
            f"unwrap-compressed-message-of-{size}-bytes",
            f"the blob of a message of {size:,} bytes compressed at level 1: "
            + (
                "read, exactly the bound"
                if expect == VALID
                else "the deployed client pushes it (X13), swarmconf refuses it one past the bound"
            ),
            input=opening([seal(b"z" + zstd_frame(message))]),
            expect=expect,
            flags=["Payload", "Compression", "ZstdStream"],
            rules=["D24"],
        )
    bounds = [
        (PADDED_LIMIT, VALID),
        (PADDED_LIMIT + 1, "PAYLOAD_TOO_LARGE"),
        (INFLATE_LIMIT, "PAYLOAD_TOO_LARGE"),
        (INFLATE_LIMIT + 1, "PAYLOAD_TOO_LARGE"),
    ]
    for size, expect in bounds:
        wrap.case(
            f"wrap-uncompressed-message-of-{size}-bytes",
            f"an incompressible message of {size:,} bytes, uncompressed: its padded payload is"
            + (" 5,000,000 bytes at most" if expect == VALID else " over 5,000,000 bytes"),
            input={**wrapping(b"", None), "message": large_message(size, incompressible=True)},
            expect=expect,
            flags=["Payload", "MultiPart"],
            rules=["D22", "D25"],
        )


@case
def orders_of_checks(suite: SuiteBuilder) -> None:
    """Inputs that break two rules, each answered by the rule checked first: `wrap`'s level,
    then the size of the message and its padded payload, then the key, then the domain (D21,
    D22, D19); a `z` payload's announced size before its frames, and whole frames before an
    empty message (D24)."""
    wrap, unwrap = suite.group("wrap"), suite.group("unwrap")
    too_large = large_message(PADDED_LIMIT + 1, incompressible=True)
    short_key = MAIN_KEY[:31].hex()
    refusals: list[tuple[str, str, Json, str]] = [
        (
            "level-before-size",
            "level 0 and a message over the bound",
            {"message": too_large, "level": 0},
            "BAD_LEVEL",
        ),
        (
            "level-before-key",
            "level 23 and a key of 31 bytes",
            {"level": 23, "key": short_key},
            "BAD_LEVEL",
        ),
        (
            "size-before-key",
            "a message over the bound and a key of 31 bytes",
            {"message": too_large, "key": short_key},
            "PAYLOAD_TOO_LARGE",
        ),
        (
            "key-before-domain",
            "a key of 31 bytes and an empty domain",
            {"key": short_key, "domain": ""},
            "BAD_KEY",
        ),
    ]
    for name, comment, changed, expect in refusals:
        wrap.case(
            f"wrap-order-{name}",
            f"wrap {comment}: refused for the first",
            input={**wrapping(SMALL, None), **changed},
            expect=expect,
            flags=["Payload", "PayloadCheckOrder"],
            rules=["D19", "D21", "D22"],
        )
    announced = zstd_frame(bytes(INFLATE_LIMIT + 1))
    empty = zstd_frame(b"")
    zstd_payloads(
        unwrap,
        [
            (
                "order-announced-over-bound-truncated",
                "a frame announcing more than the bound, cut short: the header is read first",
                announced[:-3],
                "ZSTD_TOO_LARGE",
            ),
            (
                "order-announced-over-bound-then-garbage",
                "a frame announcing more than the"
                " bound, bytes that are no frame after it: the header is read first",
                announced + b"not zstd",
                "ZSTD_TOO_LARGE",
            ),
            (
                "order-empty-truncated",
                "a frame of nothing cut short: whole frames are checked"
                " before the message is found empty",
                empty[:-1],
                "ZSTD_BAD_FRAME",
            ),
            (
                "order-empty-then-garbage",
                "a frame of nothing and bytes after it",
                empty + b"\x01\x02",
                "ZSTD_BAD_FRAME",
            ),
        ],
        ["PayloadCheckOrder"],
    )
