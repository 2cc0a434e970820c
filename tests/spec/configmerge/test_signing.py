"""Signatures under `~` (D17)."""

from __future__ import annotations

import hashlib

import nacl.signing
import pytest

from swarmconf.spec.configmerge import ConfigError, ConfigMessage, Reason, UsageError, merge, parse
from swarmconf.spec.configmerge.signing import SIGNATURE_SUFFIX

SEED = bytes(range(32))
SIGNER = nacl.signing.SigningKey(SEED)
PUBLIC = bytes(SIGNER.verify_key)
SECRET = SEED + PUBLIC
OTHER_PUBLIC = bytes(nacl.signing.SigningKey(bytes(32)).verify_key)


def signed_first() -> bytes:
    message = ConfigMessage.new(1)
    message.data[b"k"] = b"v"
    return message.serialize(sign_key=SEED)


def fork(base: bytes, value: int, sign_key: bytes | None = SEED) -> bytes:
    child = parse(base, verify_key=PUBLIC).increment()
    child.data[b"n"] = value
    return child.serialize(sign_key=sign_key)


def reason_of(data: bytes, **kwargs: object) -> Reason:
    with pytest.raises(ConfigError) as caught:
        parse(data, **kwargs)  # type: ignore[arg-type]
    return caught.value.reason


def test_signature_is_last_and_covers_everything_before_it() -> None:
    signed = signed_first()
    unsigned = ConfigMessage.new(1)
    unsigned.data[b"k"] = b"v"
    body = unsigned.serialize()[:-1]
    assert signed.startswith(body + SIGNATURE_SUFFIX) and signed.endswith(b"e")
    assert SIGNER.verify_key.verify(body, signed[len(body) + 6 : -1]) == body
    assert parse(signed, verify_key=PUBLIC).signature == signed[-65:-1]


def test_64_byte_secret_keys_sign_like_their_seed() -> None:
    message = ConfigMessage.new(4)
    assert message.serialize(sign_key=SECRET) == message.serialize(sign_key=SEED)
    with pytest.raises(UsageError) as caught:
        message.serialize(sign_key=SEED + OTHER_PUBLIC)
    assert caught.value.reason == Reason.BAD_KEY
    with pytest.raises(UsageError):
        message.serialize(sign_key=SEED[:31])


def test_verification_failures() -> None:
    signed = signed_first()
    assert reason_of(signed, verify_key=OTHER_PUBLIC) == Reason.SIG_INVALID
    corrupted = signed[:-2] + bytes([signed[-2] ^ 1]) + b"e"
    assert reason_of(corrupted, verify_key=PUBLIC) == Reason.SIG_INVALID
    body_changed = signed.replace(b"1:v", b"1:w")
    assert reason_of(body_changed, verify_key=PUBLIC) == Reason.SIG_INVALID
    assert reason_of(ConfigMessage.new(1).serialize(), verify_key=PUBLIC) == Reason.SIG_MISSING
    not_last = signed[:-1] + b"1:\x7fi0ee"
    assert reason_of(not_last) == Reason.MSG_KEY_AFTER_SIGNATURE
    short = signed[: -(65 + 6)] + b"1:~63:" + bytes(63) + b"e"
    assert reason_of(short) == Reason.SIG_MALFORMED
    with pytest.raises(UsageError):
        parse(signed, verify_key=PUBLIC[:31])


def test_serialization_keeps_only_verified_signatures() -> None:
    signed = signed_first()
    assert parse(signed, verify_key=PUBLIC).serialize() == signed
    unverified = parse(signed)
    assert unverified.hash == parse(signed, verify_key=PUBLIC).hash
    assert unverified.serialize() == signed[: -(65 + 6)] + b"e"
    assert parse(signed).serialize(sign_key=SEED) == signed


def test_merge_with_a_signing_key_signs_the_result() -> None:
    base = signed_first()
    forks = [fork(base, 1), fork(base, 2)]
    merged = merge(forks, verify_key=PUBLIC, sign_key=SEED)
    assert merged.merged
    encoded = merged.serialize()
    winner = max(forks, key=lambda f: parse(f).hash)
    assert parse(encoded, verify_key=PUBLIC).data == parse(winner).data
    assert merged.hash == parse(encoded, verify_key=PUBLIC).hash


def test_merge_without_a_signing_key_returns_the_top_message() -> None:
    base = signed_first()
    forks = [fork(base, 1), fork(base, 2)]
    result = merge(forks, verify_key=PUBLIC)
    assert not result.merged
    assert result.hash == max(parse(f).hash for f in forks)
    assert result.serialize() in forks


def test_unsigned_and_forged_messages_are_skipped_when_verifying() -> None:
    base = signed_first()
    good = fork(base, 1)
    forged = fork(base, 2, sign_key=bytes(32))
    unsigned = fork(base, 3, sign_key=None)
    assert merge([good, forged, unsigned], verify_key=PUBLIC).serialize() == good
    assert merge([forged, unsigned]).merged


@pytest.mark.parametrize("key", [SEED, SECRET])
def test_a_signed_new_message_is_hashed_with_its_signature(key: bytes) -> None:
    """D1: the hash of an editable message covers the `~` pair `serialize(sign_key)` wrote."""
    message = ConfigMessage.new(1)
    message.data[b"k"] = b"v"
    signed = message.serialize(key)
    assert signed.endswith(SIGNATURE_SUFFIX + signed[-65:-1] + b"e")
    assert message.hash == hashlib.blake2b(signed, digest_size=32).digest()


def test_a_signed_increment_is_hashed_with_its_signature() -> None:
    child = parse(signed_first()).increment()
    signed = child.serialize(SEED)
    assert child.hash == hashlib.blake2b(signed, digest_size=32).digest()
    assert parse(signed, verify_key=PUBLIC).hash == child.hash


def test_a_refused_signing_key_leaves_the_message_unsigned() -> None:
    message = ConfigMessage.new(1)
    with pytest.raises(UsageError):
        message.serialize(SEED[:31])
    assert message.hash == hashlib.blake2b(message.serialize(), digest_size=32).digest()
    assert SIGNATURE_SUFFIX not in message.serialize()
