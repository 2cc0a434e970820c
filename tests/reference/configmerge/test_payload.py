"""The reference's payload layer agrees with the spec: the same blobs for every push, the same
messages and reasons for every blob received, the same parts, frames and deletions (D21..D27,
X11, X12)."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from typing import Any

import pytest
import zstandard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import swarmconf.reference.configmerge as ref
import swarmconf.spec.configmerge as spec
from swarmconf.reference.configmerge import payload as ref_payload
from swarmconf.spec.configmerge import compression, obsolete, parts
from swarmconf.spec.configmerge.examples import m127
from swarmconf.spec.configmerge.parts import Part

KEY = bytes(range(32))
OTHER_KEY = bytes(32)
DOMAIN = b"convo"
SETTINGS = settings(
    max_examples=int(os.environ.get("SWARMCONF_DIFF_EXAMPLES", "200")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)


def outcome(call: Callable[[], Any]) -> Any:
    """A call's result, or the type and reason code of what it raised."""
    try:
        return call()
    except (spec.ConfigError, spec.UsageError) as error:
        return (type(error).__name__, str(error.reason))


def large_message(entries: int, seed: bytes = b"") -> bytes:
    message = ref.ConfigMessage.new(1)
    for n in range(entries):
        message.data[b"k%06d" % n] = hashlib.blake2b(seed + b"%d" % n, digest_size=48).digest()
    return message.serialize()


LARGE = [large_message(3_000), large_message(1_200, b"x"), large_message(40_000, b"y")]
"""Three parts, two parts, and a message too large for the pinned client that compresses."""


def sealed(plaintext: bytes) -> bytes:
    return spec.encrypt(plaintext, KEY, profile="libsession", domain=DOMAIN)


# Push


@SETTINGS
@given(
    st.binary(max_size=3_000).map(lambda tail: b"d" + tail)
    | st.sampled_from([m127(), *LARGE])
    | st.integers(0, 20_000).map(lambda n: b"d" + bytes(n)),
    st.sampled_from([None, 1, 3, 0]),
    st.booleans(),
)
def test_wrap_gives_the_same_blobs(message: bytes, level: int | None, multipart: bool) -> None:
    expected = outcome(lambda: spec.wrap(message, KEY, DOMAIN, level=level, multipart=multipart))
    assert outcome(lambda: ref.wrap(message, KEY, DOMAIN, level=level, multipart=multipart)) == (
        expected
    )


def test_the_pushes_around_the_split_agree() -> None:
    for size in (76_760, 76_761):
        message = b"d" + os.urandom(size - 216)
        padded_length = len(spec.pad(message))
        blobs = ref.wrap(message, KEY, DOMAIN)
        assert blobs == spec.wrap(message, KEY, DOMAIN)
        assert len(blobs) == (1 if padded_length + 40 <= 76_800 else 2)


# Receive

PAYLOADS = st.one_of(
    st.binary(max_size=64),
    st.binary(max_size=64).map(lambda b: b"z" + b),
    st.sampled_from([b"z" + compression.zstd_compress(m127(), 1), b"\0\0" + m127(), b""]),
    st.binary(max_size=80).map(lambda b: b"m" + b),
)


@st.composite
def blob_lists(draw: st.DrawFn) -> list[bytes]:
    """Whole, reordered, repeated and incomplete sets of parts, single payloads, tampered blobs,
    bad plaintexts and forged parts."""
    large = draw(st.sampled_from(LARGE))
    blobs = list(spec.wrap(large, KEY, DOMAIN)) + spec.wrap(m127(), KEY, DOMAIN)
    for plaintext in draw(st.lists(PAYLOADS, max_size=3)):
        blobs.append(sealed(plaintext))
    for _ in range(draw(st.integers(0, 2))):
        digest = draw(st.sampled_from([bytes(32), hashlib.blake2b(b"", digest_size=32).digest()]))
        count = draw(st.integers(0, 3))
        index = draw(st.integers(0, 3))
        chunk = draw(st.binary(max_size=8))
        blobs.append(sealed(parts.encode_part(Part(digest, index % 256, count, chunk))))
    if draw(st.booleans()):
        victim = draw(st.integers(0, len(blobs) - 1))
        blobs[victim] = blobs[victim][:-1] + bytes([blobs[victim][-1] ^ 1])
    chosen = draw(st.lists(st.integers(0, len(blobs) - 1), max_size=8))
    return [blobs[n] for n in chosen]


@SETTINGS
@given(blob_lists(), st.booleans())
def test_receive_gives_the_same_messages_and_skips(blobs: list[bytes], multipart: bool) -> None:
    keys = [OTHER_KEY, KEY]
    expected = spec.receive(blobs, keys, DOMAIN, multipart=multipart)
    assert ref.receive(blobs, keys, DOMAIN, multipart=multipart) == expected
    assert outcome(lambda: ref.unwrap(blobs, keys, DOMAIN, multipart=multipart)) == outcome(
        lambda: spec.unwrap(blobs, keys, DOMAIN, multipart=multipart)
    )


def test_unwrap_of_a_reordered_repeated_set_is_the_message() -> None:
    blobs = ref.wrap(LARGE[0], KEY, DOMAIN)
    assert len(blobs) == 3
    assert ref.unwrap([blobs[2], blobs[0], blobs[2], blobs[1]], [KEY], DOMAIN) == LARGE[0]


# Parts and frames


@st.composite
def part_plaintexts(draw: st.DrawFn) -> bytes:
    """The writer's layout with each field drawn near its limits, and trailing bytes."""
    fields = [
        draw(st.sampled_from([bytes(32), bytes(31), bytes(33)])),
        draw(st.sampled_from([b"\0", b"\1", b"\3", b"", b"\0\0"])),
        draw(st.sampled_from([b"\2", b"\3", b"\1", b"\0", b"\2\2"])),
        draw(st.binary(max_size=12)),
    ]
    fields += draw(st.lists(st.sampled_from([b"x", b""]), max_size=1))
    body = b"".join(b"%d:%b" % (len(field), field) for field in fields)
    if draw(st.booleans()):
        body = body.replace(b"1:", b"i1e", 1)
    tail = draw(st.sampled_from([b"", bytes(1), bytes(4), bytes(5), b"\0x", b"e"]))
    plaintext = b"ml" + body + b"e" + tail
    cut = draw(st.integers(0, 3))
    return plaintext[: len(plaintext) - cut] if cut else plaintext


@SETTINGS
@given(part_plaintexts() | st.binary(max_size=60).map(lambda b: b"m" + b))
def test_parts_decode_alike(plaintext: bytes) -> None:
    expected = outcome(lambda: parts.decode_part(plaintext))
    assert outcome(lambda: ref_payload.decode_part(plaintext)) == expected


@SETTINGS
@given(st.binary(min_size=32, max_size=32), st.integers(0, 254), st.binary(min_size=1))
def test_parts_encode_alike(digest: bytes, index: int, chunk: bytes) -> None:
    part = Part(digest, index, 255, chunk)
    assert ref_payload.encode_part(part) == parts.encode_part(part)
    assert ref_payload.decode_part(parts.encode_part(part)) == part


FRAMES = [
    compression.zstd_compress(m127(), 1),
    zstandard.ZstdCompressor(level=1, write_content_size=False).compress(m127()),
    compression.zstd_compress(bytes(5_000_001), 1),
    zstandard.ZstdCompressor(level=1, write_content_size=False).compress(bytes(5_000_001)),
    compression.zstd_compress(b"", 1),
]


@SETTINGS
@given(
    st.lists(st.sampled_from(FRAMES), min_size=1, max_size=2).map(b"".join),
    st.integers(0, 8),
    st.binary(max_size=3),
)
def test_frames_decompress_alike(frames: bytes, cut: int, tail: bytes) -> None:
    frames = frames[: len(frames) - cut] + tail
    expected = outcome(lambda: compression.decompress(frames))
    assert outcome(lambda: ref_payload.decompress(frames)) == expected


@SETTINGS
@given(st.binary(max_size=2_000), st.sampled_from([None, 1, 2, 22, 23]))
def test_compression_agrees(message: bytes, level: int | None) -> None:
    assert outcome(lambda: ref_payload.compress(message, level)) == outcome(
        lambda: compression.compress(message, level)
    )


# Deletion


def history() -> list[bytes]:
    first = ref.ConfigMessage.new(1)
    first.data[b"a"] = b"1"
    base = first.serialize()
    left = ref.parse(base).increment()
    left.data[b"b"] = b"2"
    right = ref.parse(base).increment()
    right.data[b"c"] = b"3"
    child = ref.parse(left.serialize()).increment()
    child.data[b"d"] = b"4"
    return [base, left.serialize(), right.serialize(), child.serialize(), b"d1:#i9e1:&i1ee"]


@SETTINGS
@given(st.lists(st.sampled_from(history()), min_size=1, max_size=5))
def test_deletions_agree(inputs: list[bytes]) -> None:
    result = outcome(lambda: spec.merge(inputs))
    if isinstance(result, tuple):
        return
    for rule, fast in (
        (obsolete.obsolete_after_merge, ref.obsolete_after_merge),
        (obsolete.deployed_obsolete_after_merge, ref_payload.deployed_obsolete_after_merge),
    ):
        assert fast(inputs, ref.merge(inputs)) == rule(inputs, result)


def test_an_edit_deletes_the_message_it_incremented() -> None:
    previous = ref.parse(history()[0])
    assert ref.obsolete_after_edit(previous) == spec.obsolete_after_edit(spec.parse(history()[0]))


@pytest.mark.parametrize("level", [1, 3])
def test_a_compressed_single_payload_reads_back(level: int) -> None:
    (blob,) = ref.wrap(m127(), KEY, DOMAIN, level=level)
    assert spec.unwrap([blob], [KEY], DOMAIN) == m127()
