"""The reference remembers signatures that verified, and only those."""

from __future__ import annotations

import nacl.signing
import pytest
from hypothesis import given
from hypothesis import strategies as st

import swarmconf.reference.configmerge as ref
from swarmconf.reference.configmerge import crypto
from swarmconf.spec.configmerge.reasons import ConfigError, Reason

SEED = bytes(range(32))
PUBLIC = bytes(nacl.signing.SigningKey(SEED).verify_key)
OTHER = bytes(nacl.signing.SigningKey(bytes(32)).verify_key)


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """The signed messages libsodium is asked to check, with an empty memory to start."""
    monkeypatch.setattr(crypto, "_verified", {})
    calls: list[bytes] = []
    real = crypto.bindings.crypto_sign_open

    def counting(signed: bytes, public: bytes) -> bytes:
        calls.append(signed)
        return real(signed, public)

    monkeypatch.setattr(crypto.bindings, "crypto_sign_open", counting)
    return calls


def signed_message(value: int) -> bytes:
    message = ref.ConfigMessage.new(1)
    message.data[b"k"] = value
    return message.serialize(SEED)


def test_a_verified_signature_is_checked_once(opened: list[bytes]) -> None:
    raw = signed_message(1)
    first = ref.parse(raw, verify_key=PUBLIC)
    again = ref.parse(raw, verify_key=PUBLIC)
    assert first.hash == again.hash and len(opened) == 1


def test_the_same_signature_under_another_key_is_checked_and_refused(opened: list[bytes]) -> None:
    raw = signed_message(1)
    ref.parse(raw, verify_key=PUBLIC)
    with pytest.raises(ConfigError) as refused:
        ref.parse(raw, verify_key=OTHER)
    assert refused.value.reason is Reason.SIG_INVALID and len(opened) == 2


def test_a_forged_signature_is_checked_every_time(opened: list[bytes]) -> None:
    raw = bytearray(signed_message(1))
    raw[-2] ^= 1  # inside the signature
    for _ in range(3):
        with pytest.raises(ConfigError) as refused:
            ref.parse(bytes(raw), verify_key=PUBLIC)
        assert refused.value.reason is Reason.SIG_INVALID
    assert len(opened) == 3 and crypto._verified == {}


def test_the_memory_is_bounded_oldest_first(
    opened: list[bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(crypto, "VERIFIED_LIMIT", 2)
    first, second, third = (signed_message(value) for value in (1, 2, 3))
    for raw in (first, second, third):
        ref.parse(raw, verify_key=PUBLIC)
    assert len(crypto._verified) == 2
    ref.parse(third, verify_key=PUBLIC)  # remembered
    ref.parse(first, verify_key=PUBLIC)  # forgotten: checked again
    assert len(opened) == 4


@given(st.binary(max_size=200), st.binary(min_size=64, max_size=64), st.booleans())
def test_remembering_never_changes_an_answer(signed: bytes, forged: bytes, twice: bool) -> None:
    secret = crypto.signing_secret(SEED)
    signature = crypto.sign(signed, secret)
    for _ in range(2 if twice else 1):
        assert crypto.verify(signed, signature, PUBLIC)
        assert not crypto.verify(signed, signature, OTHER)
        assert crypto.verify(signed, forged, PUBLIC) == (forged == signature)
        assert not crypto.verify(signed + b"x", signature, PUBLIC)
