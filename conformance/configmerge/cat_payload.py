"""The payload layer (D21..D26): the exact blobs `wrap` pushes, and what `unwrap` makes of
single blobs, compressed payloads, sets of parts and blobs it must skip.

Sets of parts a case crafts (reordered, duplicated, broken) carry small chunks: a reader
accepts any chunk size, so only the cases around the split need payloads of 76,760 bytes.
"""

from __future__ import annotations

import hashlib
import itertools
import random
from collections.abc import Sequence

from swarmconf.conformance.catalogue import Catalogue
from swarmconf.conformance.configmerge.suite import Suite
from swarmconf.conformance.configmerge.values import new_message, raw_message
from swarmconf.spec.configmerge import bt, examples
from swarmconf.spec.configmerge.encryption import encrypt, pad
from swarmconf.spec.configmerge.parts import MAX_BLOB_SIZE, Part, encode_part, payload_hash

DOMAIN = b"UserProfile"
SINGLE_LIMIT = 76_760
"""The largest padded payload that is pushed as one blob: 76,760 + 40 = 76,800 (D25)."""
INFLATE_LIMIT = 5_000_000


def key(label: str) -> bytes:
    return hashlib.sha256(b"swarmconf vectors v1 payload " + label.encode()).digest()


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


class Wrapping:
    """The payload suite; every blob is sealed under `key("main")` and `DOMAIN` unless a case
    says otherwise."""

    def __init__(self) -> None:
        self.suite = Suite(
            "payload",
            "What a client stores in the swarm for a message and how it reads it back (D21..D26):"
            " zstd at level 1 when strictly shorter behind `z`, padding, encryption, parts of at"
            " most 76,710 bytes above 76,760 padded bytes; receiving with each key in turn,"
            " bounded decompression, parts checked, collected by hash and joined.",
        )
        self.key = key("main")
        self.compressible = new_message(3, {b"name": b"a" * 600, b"tags": {b"x" * 40, b"y" * 40}})
        self.small = examples.m118()

    def seal(self, plaintext: bytes, *, padded: bool = True, with_key: bytes | None = None) -> str:
        """A blob holding `plaintext` (padded first unless it is a part), as hex."""
        body = pad(plaintext) if padded else plaintext
        blob = encrypt(body, with_key or self.key, profile="libsession", domain=DOMAIN)
        return blob.hex()

    def part(self, part: Part) -> str:
        return self.seal(encode_part(part), padded=False)

    def raw_part(self, fields: Sequence[bt.BtValue], tail: bytes = b"") -> str:
        """A part whose list holds `fields` as given, followed by `tail`."""
        return self.seal(b"m" + bt.encode(list(fields)) + tail, padded=False)

    def wrap(
        self, name: str, comment: str, message: bytes, level: int | None, **kwargs: object
    ) -> list[str]:
        inputs: dict[str, object] = {
            "message": message.hex(),
            "key": self.key.hex(),
            "domain": DOMAIN.hex(),
        }
        if level is not None:
            inputs["level"] = level
        answer = self.suite.add(name, comment, "wrap", inputs, **kwargs)  # type: ignore[arg-type]
        return list(answer.get("result", {}).get("blobs", []))

    def unwrap(
        self,
        name: str,
        comment: str,
        blobs: list[str],
        *,
        flags: list[str],
        rules: list[str],
        expect: str,
        keys: list[bytes] | None = None,
    ) -> None:
        used = [self.key] if keys is None else keys
        self.suite.add(
            name,
            comment,
            "unwrap",
            {"blobs": blobs, "keys": [k.hex() for k in used], "domain": DOMAIN.hex()},
            flags=flags,
            rules=rules,
            expect=expect,
        )

    def split(self, plaintext: bytes, sizes: list[int]) -> list[Part]:
        """The padded `plaintext` cut into chunks of the given sizes (the last takes the rest)."""
        padded = pad(plaintext)
        cuts = [0]
        for size in sizes:
            cuts.append(cuts[-1] + size)
        cuts.append(len(padded))
        chunks = [padded[start:end] for start, end in itertools.pairwise(cuts)]
        digest = payload_hash(padded)
        return [Part(digest, index, len(chunks), chunk) for index, chunk in enumerate(chunks)]


case = Catalogue[Wrapping]()


@case
def exact_bytes(w: Wrapping) -> None:
    """`wrap` at level 1 and uncompressed, and `unwrap` of what it gives."""
    messages = [
        ("m118", w.small),
        ("compressible", w.compressible),
        ("minimal", raw_message(1, {}, lagged=[], diff={})),
    ]
    for name, message in messages:
        for level in (1, None):
            label = f"level-{level}" if level else "uncompressed"
            blobs = w.wrap(
                f"wrap-{name}-{label}",
                f"wrap {name} ({len(message)} bytes) {label.replace('-', ' ')}: `z` only if"
                " strictly shorter, padded, encrypted",
                message,
                level,
                flags=["Payload", "Compression"] if level else ["Payload"],
                rules=["D21", "D22"],
                expect="valid",
            )
            w.unwrap(
                f"unwrap-{name}-{label}",
                f"unwrap what wrap gave for {name} ({label.replace('-', ' ')})",
                blobs,
                flags=["Payload", "Compression"] if level else ["Payload"],
                rules=["D23", "D24"] if level else ["D23"],
                expect="valid",
            )


@case
def levels(w: Wrapping) -> None:
    """Compression levels outside 1..22 are a usage error (D21)."""
    for level in (0, 23, -1):
        w.wrap(
            f"wrap-level-{level}",
            f"wrap with zstd level {level}: refused",
            w.small,
            level,
            flags=["Payload", "Compression"],
            rules=["D21"],
            expect="BAD_LEVEL",
        )


@case
def around_the_split(w: Wrapping) -> None:
    """A padded payload of 76,760 bytes is one blob; one byte more and it is split (D25)."""
    for size, parts in ((SINGLE_LIMIT, 1), (SINGLE_LIMIT + 1, 2)):
        blobs = w.wrap(
            f"wrap-{size}-bytes",
            f"wrap an incompressible message of {size:,} bytes: {parts} blob(s)",
            sized_message(size),
            1,
            flags=["Payload", "SplitBoundary"] + (["MultiPart"] if parts > 1 else []),
            rules=["D22", "D25"],
            expect="valid",
        )
        assert len(blobs) == parts
        w.unwrap(
            f"unwrap-{size}-bytes",
            f"unwrap the {parts} blob(s) of the {size:,}-byte message",
            blobs,
            flags=["Payload", "SplitBoundary"] + (["MultiPart"] if parts > 1 else []),
            rules=["D23", "D26"] if parts > 1 else ["D23"],
            expect="valid",
        )
        if parts > 1:
            w.unwrap(
                f"unwrap-{size}-bytes-reordered",
                f"the parts of the {size:,}-byte message, last first",
                blobs[::-1],
                flags=["Payload", "MultiPart", "SplitBoundary"],
                rules=["D26"],
                expect="valid",
            )


@case
def part_too_large(w: Wrapping) -> None:
    """An encrypted part over 76,800 bytes is refused (D26)."""
    parts = w.split(sized_message(SINGLE_LIMIT + 1), [MAX_BLOB_SIZE - 40 - 50 + 1])
    w.unwrap(
        "part-over-76800-bytes",
        "a part whose blob is 76,801 bytes: refused",
        [w.part(part) for part in parts],
        flags=["Payload", "MultiPart", "PartEncoding"],
        rules=["D26"],
        expect="PART_TOO_LARGE",
    )


@case
def part_sets(w: Wrapping) -> None:
    """A three-part set with small chunks: whole, reordered, duplicated, incomplete (D26)."""
    parts = w.split(w.small, [40, 40])
    blobs = [w.part(part) for part in parts]
    sets = [
        ("whole", "in index order", blobs, "valid"),
        ("reordered", "in the order 2, 0, 1", [blobs[2], blobs[0], blobs[1]], "valid"),
        ("duplicated", "with part 1 twice", [blobs[0], blobs[1], blobs[1], blobs[2]], "valid"),
        ("incomplete", "without part 1", [blobs[0], blobs[2]], "PARTS_INCOMPLETE"),
    ]
    for name, comment, given, expect in sets:
        w.unwrap(
            f"parts-{name}",
            f"three parts of m118 {comment}",
            given,
            flags=["Payload", "MultiPart"],
            rules=["D26"],
            expect=expect,
        )
    wrong = Part(hashlib.blake2b(b"other", digest_size=32).digest(), 0, 2, b"\0" * 8)
    w.unwrap(
        "parts-wrong-joined-hash",
        "two parts whose joined payload does not hash to the hash they carry",
        [w.part(wrong), w.part(Part(wrong.hash, 1, 2, pad(w.small)))],
        flags=["Payload", "MultiPart"],
        rules=["D26"],
        expect="PARTS_HASH_MISMATCH",
    )
    odd = Part(parts[1].hash, 1, 4, parts[1].chunk)
    w.unwrap(
        "parts-count-mismatch",
        "a whole set of 3 parts and a part with their hash claiming 4: that part is refused",
        [*blobs, w.part(odd)],
        flags=["Payload", "MultiPart"],
        rules=["D26"],
        expect="PARTS_COUNT_MISMATCH",
    )
    joined_not_message = w.split(b"xx-not-a-message", [10])
    w.unwrap(
        "parts-joined-not-a-message",
        "two parts whose joined payload is not a message",
        [w.part(part) for part in joined_not_message],
        flags=["Payload", "MultiPart"],
        rules=["D26"],
        expect="PAYLOAD_NOT_MESSAGE",
    )
    compressed = w.split(b"z" + zstd_frame(w.compressible), [30])
    w.unwrap(
        "parts-compressed",
        "two parts whose joined payload is `z` and a zstd frame of a message",
        [w.part(part) for part in compressed],
        flags=["Payload", "MultiPart", "Compression"],
        rules=["D24", "D26"],
        expect="valid",
    )


@case
def part_encoding(w: Wrapping) -> None:
    """One malformed part each, next to nothing else (D26)."""
    digest = payload_hash(b"any")
    good = [digest, b"\0", b"\2", b"chunk"]
    broken: list[tuple[str, str, list[bytes], bytes, str]] = [
        ("count-1", "part count 1", [digest, b"\0", b"\1", b"chunk"], b"", "PART_BAD_COUNT"),
        ("count-0", "part count 0", [digest, b"\0", b"\0", b"chunk"], b"", "PART_BAD_COUNT"),
        (
            "count-2-bytes",
            "a two-byte count",
            [digest, b"\0", b"\0\2", b"c"],
            b"",
            "PART_BAD_COUNT",
        ),
        (
            "index-2-of-2",
            "index = count",
            [digest, b"\2", b"\2", b"chunk"],
            b"",
            "PART_INDEX_RANGE",
        ),
        ("index-9-of-2", "index > count", [digest, b"\x09", b"\2", b"c"], b"", "PART_INDEX_RANGE"),
        ("index-empty", "an empty index", [digest, b"", b"\2", b"chunk"], b"", "PART_BAD_INDEX"),
        ("hash-31", "a 31-byte hash", [digest[:31], b"\0", b"\2", b"c"], b"", "PART_BAD_HASH"),
        ("chunk-empty", "an empty chunk", [digest, b"\0", b"\2", b""], b"", "PART_EMPTY_CHUNK"),
        ("three-elements", "no chunk", good[:3], b"", "PART_MALFORMED"),
        ("trailing-element", "a fifth element", [*good, b"x"], b"", "PART_TRAILING_ELEMENTS"),
        ("four-nuls", "four NUL bytes after the list", good, b"\0" * 4, "PARTS_INCOMPLETE"),
        ("five-nuls", "five NUL bytes after the list", good, b"\0" * 5, "PART_TRAILING_BYTES"),
        ("trailing-byte", "a byte after the list", good, b"x", "PART_TRAILING_BYTES"),
    ]
    for name, comment, fields, tail, expect in broken:
        w.unwrap(
            f"part-{name}",
            f"a part with {comment}",
            [w.raw_part(fields, tail)],
            flags=["Payload", "MultiPart", "PartEncoding"],
            rules=["D26"],
            expect=expect,
        )
    w.unwrap(
        "part-not-a-list",
        "`m` followed by a bt string, not a list",
        [w.seal(b"m5:hello", padded=False)],
        flags=["Payload", "MultiPart", "PartEncoding"],
        rules=["D26"],
        expect="PART_MALFORMED",
    )


@case
def zstd_streams(w: Wrapping) -> None:
    """`z` payloads that are not whole frames, inflate to nothing or past the bound (D24)."""
    frame = zstd_frame(w.small)
    streams = [
        ("garbage", "bytes that are no zstd frame", b"not zstd at all", "ZSTD_BAD_FRAME"),
        ("truncated", "a frame cut short", frame[:-3], "ZSTD_BAD_FRAME"),
        ("trailing", "a frame and bytes after it", frame + b"\x01\x02", "ZSTD_BAD_FRAME"),
        ("empty-frame", "a frame of nothing", zstd_frame(b""), "ZSTD_EMPTY"),
        (
            "two-frames",
            "two frames, read as one message",
            zstd_frame(w.small[:50]) + zstd_frame(w.small[50:]),
            "valid",
        ),
        (
            "no-content-size",
            "a frame without its content size",
            zstd_frame(w.small, content_size=False),
            "valid",
        ),
        (
            "bomb",
            f"a frame announcing {INFLATE_LIMIT + 1:,} zero bytes",
            zstd_frame(bytes(INFLATE_LIMIT + 1)),
            "ZSTD_TOO_LARGE",
        ),
        (
            "bomb-unannounced",
            f"{INFLATE_LIMIT + 1:,} zero bytes, size not announced",
            zstd_frame(bytes(INFLATE_LIMIT + 1), content_size=False),
            "ZSTD_TOO_LARGE",
        ),
    ]
    for name, comment, stream, expect in streams:
        w.unwrap(
            f"zstd-{name}",
            f"`z` and {comment}",
            [w.seal(b"z" + stream)],
            flags=["Payload", "Compression", "ZstdStream"],
            rules=["D24"],
            expect=expect,
        )


@case
def keys_and_blobs(w: Wrapping) -> None:
    """Each key in turn, blobs no key opens, and what is left once the padding goes (D23)."""
    blob = w.seal(w.small)
    other = key("other")
    w.unwrap(
        "second-key-opens",
        "two keys, the second opens the blob",
        [blob],
        keys=[other, w.key],
        flags=["Payload", "Undecryptable"],
        rules=["D23"],
        expect="valid",
    )
    w.unwrap(
        "no-key-opens",
        "no key given opens the blob",
        [blob],
        keys=[other, key("third")],
        flags=["Payload", "Undecryptable"],
        rules=["D23"],
        expect="DECRYPT_FAILED",
    )
    w.unwrap(
        "no-keys",
        "no key at all",
        [blob],
        keys=[],
        flags=["Payload"],
        rules=["D23"],
        expect="NO_KEYS",
    )
    w.unwrap(
        "wrong-domain",
        "a blob sealed under another domain",
        [encrypt(pad(w.small), w.key, profile="libsession", domain=b"Contacts").hex()],
        flags=["Payload", "Undecryptable"],
        rules=["D23"],
        expect="DECRYPT_FAILED",
    )
    w.unwrap(
        "blob-too-short",
        "a blob shorter than tag and nonce",
        ["00" * 39],
        flags=["Payload"],
        rules=["D23"],
        expect="DECRYPT_TOO_SHORT",
    )
    w.unwrap(
        "all-padding",
        "a blob holding nothing but zero bytes",
        [w.seal(b"")],
        flags=["Payload"],
        rules=["D23"],
        expect="PAYLOAD_EMPTY",
    )
    w.unwrap(
        "not-a-message",
        "a payload that is neither `m`, `z` nor a message: given to the parser as it is",
        [w.seal(b"xyz")],
        flags=["Payload"],
        rules=["D23"],
        expect="valid",
    )
    w.unwrap(
        "two-messages",
        "the blobs of two messages",
        [blob, w.seal(w.compressible)],
        flags=["Payload"],
        rules=["D23"],
        expect="PAYLOAD_SEVERAL_MESSAGES",
    )
    w.unwrap(
        "one-skipped",
        "a message's blob after one no key opens: the first refusal is reported",
        [w.seal(w.small, with_key=other), blob],
        flags=["Payload", "Undecryptable"],
        rules=["D23"],
        expect="DECRYPT_FAILED",
    )


@case
def more_broken_parts(w: Wrapping) -> None:
    """Further malformed parts: each refusal of D26 in three ways at least."""
    digest = payload_hash(b"any")
    broken: list[tuple[str, str, list[bt.BtValue], bytes, str]] = [
        (
            "index-3-of-3",
            "index = count = 3",
            [digest, b"\3", b"\3", b"c"],
            b"",
            "PART_INDEX_RANGE",
        ),
        (
            "index-2-bytes",
            "a two-byte index",
            [digest, b"\0\0", b"\2", b"c"],
            b"",
            "PART_BAD_INDEX",
        ),
        (
            "index-3-bytes",
            "a three-byte index",
            [digest, b"\0" * 3, b"\2", b"c"],
            b"",
            "PART_BAD_INDEX",
        ),
        ("hash-33", "a 33-byte hash", [digest + b"!", b"\0", b"\2", b"c"], b"", "PART_BAD_HASH"),
        ("hash-empty", "an empty hash", [b"", b"\0", b"\2", b"c"], b"", "PART_BAD_HASH"),
        ("hash-int", "an integer for the hash", [7, b"\0", b"\2", b"c"], b"", "PART_MALFORMED"),
        ("empty-list", "an empty list", [], b"", "PART_MALFORMED"),
        (
            "chunk-empty-last",
            "an empty last chunk",
            [digest, b"\1", b"\2", b""],
            b"",
            "PART_EMPTY_CHUNK",
        ),
        (
            "six-elements",
            "six elements",
            [digest, b"\0", b"\2", b"c", b"d", b"e"],
            b"",
            "PART_TRAILING_ELEMENTS",
        ),
        (
            "int-element",
            "a fifth element that is an integer",
            [digest, b"\0", b"\2", b"c", 5],
            b"",
            "PART_TRAILING_ELEMENTS",
        ),
        (
            "nul-then-byte",
            "a NUL and a byte after the list",
            [digest, b"\0", b"\2", b"c"],
            b"\0x",
            "PART_TRAILING_BYTES",
        ),
    ]
    for name, comment, fields, tail, expect in broken:
        w.unwrap(
            f"part-{name}",
            f"a part with {comment}",
            [w.raw_part(fields, tail)],
            flags=["Payload", "MultiPart", "PartEncoding"],
            rules=["D26"],
            expect=expect,
        )
    empty_first = w.raw_part([digest, b"\0", b"\2", b""])
    w.unwrap(
        "part-chunk-empty-before-its-set",
        "a part with an empty chunk before a part of its set: the first refusal is the chunk's",
        [empty_first, w.raw_part([digest, b"\1", b"\2", b"c"])],
        flags=["Payload", "MultiPart", "PartEncoding"],
        rules=["D26"],
        expect="PART_EMPTY_CHUNK",
    )


@case
def more_part_sets(w: Wrapping) -> None:
    """Further sets of parts that cannot be joined, or join into no message (D26)."""
    parts = w.split(w.small, [40, 40])
    blobs = [w.part(part) for part in parts]
    flipped = Part(parts[1].hash, 1, 3, bytes([parts[1].chunk[0] ^ 1]) + parts[1].chunk[1:])
    other = w.split(w.compressible, [40, 40])
    sets: list[tuple[str, str, list[str], str]] = [
        ("one-of-three", "only part 1 of 3", [blobs[1]], "PARTS_INCOMPLETE"),
        (
            "chunk-flipped",
            "a bit flipped in part 1's chunk",
            [blobs[0], w.part(flipped), blobs[2]],
            "PARTS_HASH_MISMATCH",
        ),
        (
            "chunk-swapped",
            "the last part of another message given this message's hash",
            [blobs[0], blobs[1], w.part(Part(parts[2].hash, 2, 3, other[2].chunk))],
            "PARTS_HASH_MISMATCH",
        ),
        (
            "count-2-after-set",
            "a whole set and a part of it claiming 2",
            [*blobs, w.part(Part(parts[0].hash, 0, 2, parts[0].chunk))],
            "PARTS_COUNT_MISMATCH",
        ),
        (
            "count-255-after-set",
            "a whole set and a part of it claiming 255",
            [*blobs, w.part(Part(parts[0].hash, 7, 255, parts[0].chunk))],
            "PARTS_COUNT_MISMATCH",
        ),
        (
            "joined-list",
            "parts whose payload is a bt list",
            [w.part(p) for p in w.split(b"l1:a1:be", [5])],
            "PAYLOAD_NOT_MESSAGE",
        ),
        (
            "joined-compressed-integer",
            "parts whose payload is `z` and a frame of `i1e`",
            [w.part(p) for p in w.split(b"z" + zstd_frame(b"i1e"), [6])],
            "PAYLOAD_NOT_MESSAGE",
        ),
        (
            "joined-all-zero",
            "parts of a payload of zero bytes only",
            [w.part(p) for p in w.split(b"", [100])],
            "PAYLOAD_EMPTY",
        ),
        (
            "set-and-a-message",
            "a whole set and the blob of another message",
            [*blobs, w.seal(w.compressible)],
            "PAYLOAD_SEVERAL_MESSAGES",
        ),
    ]
    for name, comment, given, expect in sets:
        w.unwrap(
            f"parts-{name}",
            f"three parts of m118: {comment}" if "three" in comment else comment,
            given,
            flags=["Payload", "MultiPart"],
            rules=["D26"],
            expect=expect,
        )
    for index in (0, 1):
        first = MAX_BLOB_SIZE - 40 - 50 + 1 if index == 0 else 10
        big = w.split(sized_message(SINGLE_LIMIT + 1), [first])[index]
        w.unwrap(
            f"part-{index}-over-76800-bytes-alone",
            f"part {index} of a set, alone, whose blob is over 76,800 bytes: refused",
            [w.part(big)],
            flags=["Payload", "MultiPart", "PartEncoding"],
            rules=["D26"],
            expect="PART_TOO_LARGE",
        )


@case
def more_streams_and_blobs(w: Wrapping) -> None:
    """Further `z` payloads and blobs that yield no message (D23, D24)."""
    half = INFLATE_LIMIT // 2 + 1
    streams = [
        (
            "bomb-two-frames",
            f"two frames of {half:,} zero bytes each",
            zstd_frame(bytes(half)) * 2,
            "ZSTD_TOO_LARGE",
        ),
        ("two-empty-frames", "two frames of nothing", zstd_frame(b"") * 2, "ZSTD_EMPTY"),
        (
            "empty-frame-unannounced",
            "a frame of nothing, size not announced",
            zstd_frame(b"", content_size=False),
            "ZSTD_EMPTY",
        ),
    ]
    for name, comment, stream, expect in streams:
        w.unwrap(
            f"zstd-{name}",
            f"`z` and {comment}",
            [w.seal(b"z" + stream)],
            flags=["Payload", "Compression", "ZstdStream"],
            rules=["D24"],
            expect=expect,
        )
    blob = w.seal(w.small)
    part = w.raw_part([payload_hash(b"any"), b"\0", b"\2", b"c"])
    blobs: list[tuple[str, str, list[str], list[bytes] | None, str]] = [
        ("no-keys-two-blobs", "two blobs and no key", [blob, blob], [], "NO_KEYS"),
        ("no-keys-a-part", "a part and no key", [part], [], "NO_KEYS"),
        ("blob-empty", "an empty blob", [""], None, "DECRYPT_TOO_SHORT"),
        (
            "blob-too-short-after-one",
            "a message's blob, then one of 39 bytes",
            [blob, "00" * 39],
            None,
            "DECRYPT_TOO_SHORT",
        ),
        (
            "one-zero-byte",
            "a blob holding a single zero byte",
            [w.seal(b"\0")],
            None,
            "PAYLOAD_EMPTY",
        ),
        (
            "all-padding-after-one",
            "a message's blob, then one of padding only",
            [blob, w.seal(b"")],
            None,
            "PAYLOAD_EMPTY",
        ),
        ("no-blobs", "no blob at all", [], None, "PAYLOAD_SEVERAL_MESSAGES"),
        (
            "same-message-twice",
            "the same message's blob twice: two messages",
            [blob, blob],
            None,
            "PAYLOAD_SEVERAL_MESSAGES",
        ),
    ]
    for name, comment, given, keys, expect in blobs:
        w.unwrap(
            name,
            comment,
            given,
            keys=keys,
            flags=["Payload"],
            rules=["D23"],
            expect=expect,
        )


def build() -> Suite:
    suite: Suite = case.fill(Wrapping()).suite
    return suite
