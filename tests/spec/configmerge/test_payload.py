"""The payload layer: compression (D21), push limits (D22), receive (D23), bounded
decompression (D24), parts (D25, D26) and the pinned client's profile (X11)."""

from __future__ import annotations

import hashlib

import pytest
import zstandard

from swarmconf.spec.configmerge import ConfigMessage, encrypt, pad
from swarmconf.spec.configmerge.compression import compress, decompress, zstd_compress
from swarmconf.spec.configmerge.examples import m127
from swarmconf.spec.configmerge.parts import (
    MAX_CHUNK_SIZE,
    Part,
    decode_part,
    encode_part,
    needs_split,
    split,
)
from swarmconf.spec.configmerge.payload import receive, unwrap, wrap
from swarmconf.spec.configmerge.reasons import PayloadError, PayloadReason, Reason, UsageError

KEY = bytes(range(32))
OTHER_KEY = bytes(32)
DOMAIN = b"convo"
EMPTY = b"d1:#i0e1:&de1:<le1:=dee"


def large_message(entries: int) -> bytes:
    """A message that does not compress much: distinct keys holding hash-derived values."""
    message = ConfigMessage.new(1)
    for n in range(entries):
        message.data[b"k%06d" % n] = hashlib.blake2b(b"%d" % n, digest_size=48).digest()
    return message.serialize()


def seal(plaintext: bytes, key: bytes = KEY) -> bytes:
    return encrypt(plaintext, key, profile="libsession", domain=DOMAIN)


def refusal(error: pytest.ExceptionInfo[Exception]) -> str:
    return str(getattr(error.value, "reason", ""))


# Compression (D21) and its bound (D24)


def test_a_message_that_compresses_gets_the_z_marker() -> None:
    compressed = compress(m127())
    assert compressed[:1] == b"z" and len(compressed) < len(m127())
    assert decompress(compressed[1:]) == m127()


def test_a_message_that_does_not_shrink_stays_as_it_is() -> None:
    assert len(b"z" + zstd_compress(EMPTY, 1)) > len(EMPTY)
    assert compress(EMPTY) == EMPTY
    assert compress(m127(), None) == m127()


@pytest.mark.parametrize("level", [0, 23, -1, True])
def test_levels_outside_1_to_22_are_usage_errors(level: int) -> None:
    with pytest.raises(UsageError) as error:
        compress(m127(), level)
    assert refusal(error) == PayloadReason.BAD_LEVEL


def test_a_bomb_is_refused_by_its_header_before_it_is_inflated() -> None:
    bomb = zstd_compress(bytes(5_000_001), 1)
    assert len(bomb) < 1_000
    with pytest.raises(PayloadError) as error:
        decompress(bomb)
    assert refusal(error) == PayloadReason.ZSTD_TOO_LARGE
    assert decompress(zstd_compress(b"d" + bytes(4_999_999), 1))[:1] == b"d"


def test_a_bomb_without_a_content_size_is_refused_while_it_inflates() -> None:
    quiet = zstandard.ZstdCompressor(level=1, write_content_size=False)
    with pytest.raises(PayloadError) as error:
        decompress(quiet.compress(bytes(5_000_001)))
    assert refusal(error) == PayloadReason.ZSTD_TOO_LARGE
    assert decompress(quiet.compress(m127())) == m127()


@pytest.mark.parametrize(
    ("frames", "reason"),
    [
        (zstd_compress(m127(), 1)[:-3], PayloadReason.ZSTD_BAD_FRAME),
        (zstd_compress(m127(), 1) + b"d", PayloadReason.ZSTD_BAD_FRAME),
        (b"", PayloadReason.ZSTD_BAD_FRAME),
        (b"d1:#i0e", PayloadReason.ZSTD_BAD_FRAME),
        (zstd_compress(b"", 1), PayloadReason.ZSTD_EMPTY),
    ],
    ids=["truncated", "trailing-garbage", "nothing", "not-zstd", "empty-content"],
)
def test_bad_frames_are_refused(frames: bytes, reason: PayloadReason) -> None:
    with pytest.raises(PayloadError) as error:
        decompress(frames)
    assert refusal(error) == reason


def test_concatenated_frames_inflate_in_full() -> None:
    half = len(m127()) // 2
    frames = zstd_compress(m127()[:half], 1) + zstd_compress(m127()[half:], 1)
    assert decompress(frames) == m127()


# Push (D21, D22, X11)


def test_a_single_payload_is_the_encrypted_padded_compressed_message() -> None:
    (blob,) = wrap(m127(), KEY, DOMAIN)
    assert blob == seal(pad(compress(m127())))
    assert unwrap([blob], [KEY], DOMAIN) == m127()


def test_the_split_starts_above_76760_padded_bytes() -> None:
    assert not needs_split(bytes(76_760)) and needs_split(bytes(76_761))
    assert [len(part.chunk) for part in split(bytes(76_761))] == [MAX_CHUNK_SIZE, 51]


def test_a_large_message_is_pushed_in_parts_each_within_the_blob_limit() -> None:
    message = large_message(3_000)
    blobs = wrap(message, KEY, DOMAIN)
    assert len(blobs) == 3 and all(len(blob) <= 76_800 for blob in blobs)
    assert len(blobs[0]) == 76_800
    assert unwrap(blobs, [KEY], DOMAIN) == message


def test_the_pinned_client_refuses_a_push_over_76800_bytes() -> None:
    with pytest.raises(PayloadError) as error:
        wrap(large_message(3_000), KEY, DOMAIN, multipart=False)
    assert refusal(error) == PayloadReason.PUSH_TOO_LARGE
    assert wrap(m127(), KEY, DOMAIN, multipart=False) == wrap(m127(), KEY, DOMAIN)


def test_a_message_over_five_million_bytes_is_not_pushed() -> None:
    message = b"d" + bytes(5_000_000)
    assert len(pad(compress(message))) < 5_000_000
    with pytest.raises(PayloadError) as error:
        wrap(message, KEY, DOMAIN)
    assert refusal(error) == PayloadReason.PAYLOAD_TOO_LARGE


# Part encoding (D25): exact bytes


def test_a_part_encodes_as_m_and_a_four_element_list_with_nul_padding() -> None:
    digest = bytes(range(32, 64))
    encoded = encode_part(Part(digest, 1, 2, b"abc"))
    assert encoded == b"ml32:" + digest + b"1:\x011:\x023:abce" + bytes(4)
    assert len(encoded) == 50 + 3
    assert decode_part(encoded) == Part(digest, 1, 2, b"abc")


def test_a_part_with_a_five_digit_chunk_length_has_no_nul_bytes() -> None:
    chunk = bytes(MAX_CHUNK_SIZE)
    encoded = encode_part(Part(bytes(32), 0, 2, chunk))
    assert encoded.endswith(b"e") and len(encoded) == 50 + MAX_CHUNK_SIZE


def part_bytes(*elements: bytes, tail: bytes = b"") -> bytes:
    body = b"".join(b"%d:%s" % (len(element), element) for element in elements)
    return b"ml" + body + b"e" + tail


HASH = bytes(32)


@pytest.mark.parametrize(
    ("plaintext", "reason"),
    [
        (part_bytes(bytes(31), b"\0", b"\2", b"x"), PayloadReason.PART_BAD_HASH),
        (part_bytes(HASH, b"", b"\2", b"x"), PayloadReason.PART_BAD_INDEX),
        (part_bytes(HASH, b"\0\0", b"\2", b"x"), PayloadReason.PART_BAD_INDEX),
        (part_bytes(HASH, b"\0", b"\2\0", b"x"), PayloadReason.PART_BAD_COUNT),
        (part_bytes(HASH, b"\0", b"\1", b"x"), PayloadReason.PART_BAD_COUNT),
        (part_bytes(HASH, b"\0", b"\0", b"x"), PayloadReason.PART_BAD_COUNT),
        (part_bytes(HASH, b"\2", b"\2", b"x"), PayloadReason.PART_INDEX_RANGE),
        (part_bytes(HASH, b"\0", b"\2", b""), PayloadReason.PART_EMPTY_CHUNK),
        (part_bytes(HASH, b"\0", b"\2", b"x", b"y"), PayloadReason.PART_TRAILING_ELEMENTS),
        (part_bytes(HASH, b"\0", b"\2"), PayloadReason.PART_MALFORMED),
        (b"m" + b"d1:ai1ee", PayloadReason.PART_MALFORMED),
        (b"mli1e1:\0" + b"1:\2" + b"1:xe", PayloadReason.PART_MALFORMED),
        (part_bytes(HASH, b"\0", b"\2", b"x", tail=b"\0x"), PayloadReason.PART_TRAILING_BYTES),
        (part_bytes(HASH, b"\0", b"\2", b"x", tail=bytes(5)), PayloadReason.PART_TRAILING_BYTES),
        (part_bytes(HASH, b"\0", b"\2", b"x")[:-1], PayloadReason.PART_MALFORMED),
    ],
    ids=[
        "hash-31",
        "index-empty",
        "index-2-bytes",
        "count-2-bytes",
        "count-1",
        "count-0",
        "index-equals-count",
        "empty-chunk",
        "trailing-element",
        "three-elements",
        "not-a-list",
        "integer-element",
        "trailing-garbage",
        "five-nuls",
        "truncated",
    ],
)
def test_every_bad_part_is_refused_with_its_reason(plaintext: bytes, reason: str) -> None:
    with pytest.raises(PayloadError) as error:
        decode_part(plaintext)
    assert refusal(error) == reason


# Receive (D23, D26)


def test_each_key_is_tried_in_turn_and_a_blob_no_key_opens_is_skipped() -> None:
    (blob,) = wrap(m127(), KEY, DOMAIN)
    assert unwrap([blob], [OTHER_KEY, KEY], DOMAIN) == m127()
    received = receive([blob], [OTHER_KEY], DOMAIN)
    assert received.messages == [] and received.skipped[0].reason == Reason.DECRYPT_FAILED
    with pytest.raises(UsageError):
        receive([blob], [], DOMAIN)


def test_what_is_skipped_and_what_goes_to_the_parser() -> None:
    zeros = seal(bytes(216))
    part = seal(encode_part(Part(HASH, 0, 2, b"x")))
    bad_zstd = seal(pad(b"z" + b"nonsense"))
    empty_zstd = seal(pad(b"z" + zstd_compress(b"", 1)))
    other = seal(pad(b"x-not-a-message"))
    received = receive([zeros, part, bad_zstd, empty_zstd, other], [KEY], DOMAIN, multipart=False)
    assert received.messages == [b"x-not-a-message"]
    assert [(skip.blobs, skip.reason) for skip in received.skipped] == [
        ((0,), PayloadReason.PAYLOAD_EMPTY),
        ((1,), PayloadReason.PAYLOAD_MULTIPART_UNSUPPORTED),
        ((2,), PayloadReason.ZSTD_BAD_FRAME),
        ((3,), PayloadReason.ZSTD_EMPTY),
    ]


def test_parts_join_in_any_order_with_repeats_ignored() -> None:
    message = large_message(3_000)
    blobs = wrap(message, KEY, DOMAIN)
    single = wrap(m127(), KEY, DOMAIN)
    received = receive([blobs[2], *single, blobs[0], blobs[2], blobs[1]], [KEY], DOMAIN)
    assert received.messages == [message, m127()] and received.skipped == []


def test_an_incomplete_set_is_skipped_as_a_whole() -> None:
    blobs = wrap(large_message(3_000), KEY, DOMAIN)
    received = receive([blobs[0], blobs[2]], [KEY], DOMAIN)
    assert received.messages == []
    assert [(skip.blobs, skip.reason) for skip in received.skipped] == [
        ((0, 1), PayloadReason.PARTS_INCOMPLETE)
    ]


def forged_set(padded: bytes, digest: bytes) -> list[bytes]:
    """`padded` split in two parts that carry `digest`, sealed."""
    half = len(padded) // 2
    chunks = [padded[:half], padded[half:]]
    return [seal(encode_part(Part(digest, n, 2, chunk))) for n, chunk in enumerate(chunks)]


def test_a_joined_payload_must_have_the_parts_hash_and_hold_a_message() -> None:
    padded = pad(m127())
    with pytest.raises(PayloadError) as error:
        unwrap(forged_set(padded, bytes(32)), [KEY], DOMAIN)
    assert refusal(error) == PayloadReason.PARTS_HASH_MISMATCH
    good = pad(b"x" + m127())
    with pytest.raises(PayloadError) as error:
        unwrap(forged_set(good, hashlib.blake2b(good, digest_size=32).digest()), [KEY], DOMAIN)
    assert refusal(error) == PayloadReason.PAYLOAD_NOT_MESSAGE
    honest = forged_set(padded, hashlib.blake2b(padded, digest_size=32).digest())
    assert unwrap(honest, [KEY], DOMAIN) == m127()


def test_parts_disagreeing_on_the_count_are_refused() -> None:
    padded = pad(m127())
    digest = hashlib.blake2b(padded, digest_size=32).digest()
    stray = seal(encode_part(Part(digest, 2, 3, b"x")))
    received = receive([*forged_set(padded, digest), stray], [KEY], DOMAIN)
    assert received.messages == [m127()]
    assert [(s.blobs, s.reason) for s in received.skipped] == [
        ((2,), PayloadReason.PARTS_COUNT_MISMATCH)
    ]


def test_a_part_over_76800_bytes_is_refused() -> None:
    oversized = seal(encode_part(Part(HASH, 0, 2, bytes(MAX_CHUNK_SIZE + 1))))
    assert len(oversized) == 76_801
    with pytest.raises(PayloadError) as error:
        unwrap([oversized], [KEY], DOMAIN)
    assert refusal(error) == PayloadReason.PART_TOO_LARGE


def test_unwrap_wants_one_message() -> None:
    blobs = wrap(m127(), KEY, DOMAIN) + wrap(EMPTY, KEY, DOMAIN)
    with pytest.raises(PayloadError) as error:
        unwrap(blobs, [KEY], DOMAIN)
    assert refusal(error) == PayloadReason.PAYLOAD_SEVERAL_MESSAGES
