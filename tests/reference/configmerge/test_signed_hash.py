"""D1 in the reference: an editable message signed on serialization is hashed signed."""

from __future__ import annotations

import hashlib

import nacl.signing
import pytest

import swarmconf.reference.configmerge as ref

SEED = bytes(range(32))
PUBLIC = bytes(nacl.signing.SigningKey(SEED).verify_key)


def _blake2b(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=32).digest()


@pytest.mark.parametrize("key", [SEED, SEED + PUBLIC])
def test_new_signed_hash_covers_the_signature(key: bytes) -> None:
    message = ref.ConfigMessage.new(3)
    message.data[b"k"] = {1, b"x"}
    signed = message.serialize(key)
    assert signed[-71:-65] == b"1:~64:"
    assert message.hash == _blake2b(signed)


def test_increment_signed_hash_covers_the_signature_and_lags_into_the_next() -> None:
    first = ref.ConfigMessage.new(1)
    first.data[b"a"] = 1
    child = ref.parse(first.serialize(SEED), verify_key=PUBLIC).increment()
    child.data[b"a"] = 2
    signed = child.serialize(SEED)
    assert child.hash == _blake2b(signed)
    grandchild = child.increment()
    assert grandchild.lagged[-1].hash == _blake2b(signed)


def test_an_unsigned_editable_message_is_hashed_unsigned() -> None:
    message = ref.ConfigMessage.new(1)
    assert message.hash == _blake2b(message.serialize())
