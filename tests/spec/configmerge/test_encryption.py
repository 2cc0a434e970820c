"""Deterministic encryption in both profiles, and padding (D18, D19, D20)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from swarmconf.spec.configmerge import (
    DecryptError,
    Reason,
    UsageError,
    decrypt,
    encrypt,
    pad,
    padded_size,
)
from swarmconf.spec.configmerge.encryption import seal_libsession, unpad
from swarmconf.spec.configmerge.examples import m127

KEY = bytes.fromhex("abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789")
OTHER_KEY = bytes.fromhex("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef")
PROFILES: list[tuple[str, bytes | None]] = [("spec", None), ("libsession", b"test-suite1")]


def test_libsession_known_answer() -> None:
    """The deployed client's own published encryption of "some message 1" (no padding)."""
    sealed = seal_libsession(b"some message 1", KEY, b"test-suite1")
    assert sealed.hex() == (
        "f14f242a26638f3305707d1035e734577f943cd7d28af58e32637e"
        "0966dcaf2f4860cb4d0f8ba7e09d29e31f5e4a18f65847287a54a0"
    )
    other_domain = seal_libsession(b"some message 1", KEY, b"test-suite2")
    assert other_domain[-24:].hex() == "277e639d36ba46470dfff509a68cb73d9a96386c51739bdd"
    assert seal_libsession(b"some message 1", OTHER_KEY, b"test-suite1")[-24:] == sealed[-24:]


@pytest.mark.parametrize(("profile", "domain"), PROFILES)
@given(st.binary(max_size=600))
def test_round_trip_and_determinism(profile: str, domain: bytes | None, plaintext: bytes) -> None:
    message = b"d" + plaintext  # a message never starts with a zero byte
    sealed = encrypt(message, KEY, profile=profile, domain=domain)  # type: ignore[arg-type]
    assert sealed == encrypt(message, KEY, profile=profile, domain=domain)  # type: ignore[arg-type]
    assert decrypt(sealed, KEY, profile=profile, domain=domain) == message  # type: ignore[arg-type]


def test_padding_is_a_step_of_its_own() -> None:
    """The libsession primitive does not pad; pad-then-encrypt is the deployed push, and
    decrypt returns the padded plaintext for `unpad` (D19)."""
    assert len(encrypt(m127(), KEY, profile="libsession", domain=b"convo")) == len(m127()) + 40
    sealed = encrypt(pad(m127()), KEY, profile="libsession", domain=b"convo")
    assert len(sealed) == padded_size(len(m127())) + 40
    opened = decrypt(sealed, KEY, profile="libsession", domain=b"convo")
    assert opened == pad(m127()) and unpad(opened) == m127()
    assert len(encrypt(m127(), KEY)) == len(m127()) + 40


def test_all_zero_padding_unpads_to_nothing() -> None:
    """swarmconf strips every leading zero; the deployed client keeps all zeros (X9)."""
    assert unpad(pad(b"")) == b"" and len(pad(b"")) == 216


@pytest.mark.parametrize(("profile", "domain"), PROFILES)
def test_wrong_key_domain_or_tampering_fails(profile: str, domain: bytes | None) -> None:
    sealed = encrypt(m127(), KEY, profile=profile, domain=domain)  # type: ignore[arg-type]
    attempts = [(sealed, OTHER_KEY, domain)]
    if domain is not None:
        attempts.append((sealed, KEY, b"test-suite2"))
    for position in (0, 3, len(sealed) - 30, len(sealed) - 1):
        tampered = bytearray(sealed)
        tampered[position] ^= 0x42
        attempts.append((bytes(tampered), KEY, domain))
    for ciphertext, key, dom in attempts:
        with pytest.raises(DecryptError) as caught:
            decrypt(ciphertext, key, profile=profile, domain=dom)  # type: ignore[arg-type]
        assert caught.value.reason == Reason.DECRYPT_FAILED
    with pytest.raises(DecryptError) as caught:
        decrypt(sealed[:39], KEY, profile=profile, domain=domain)  # type: ignore[arg-type]
    assert caught.value.reason == Reason.DECRYPT_TOO_SHORT


@pytest.mark.parametrize(
    ("kwargs", "reason"),
    [
        ({"key": KEY[:31]}, Reason.BAD_KEY),
        ({"key": "k" * 32}, Reason.BAD_KEY),
        ({"profile": "other"}, Reason.BAD_PROFILE),
        ({"domain": b"x"}, Reason.BAD_DOMAIN),
        ({"profile": "libsession"}, Reason.BAD_DOMAIN),
        ({"profile": "libsession", "domain": b""}, Reason.BAD_DOMAIN),
        ({"profile": "libsession", "domain": b"x" * 25}, Reason.BAD_DOMAIN),
    ],
)
def test_bad_arguments_are_usage_errors(kwargs: dict[str, object], reason: Reason) -> None:
    arguments: dict[str, object] = {"key": KEY, "profile": "spec", "domain": None, **kwargs}
    for function in (encrypt, decrypt):
        with pytest.raises(UsageError) as caught:
            function(bytes(64), **arguments)  # type: ignore[arg-type]
        assert caught.value.reason == reason


# The deployed client's published padding facts (size, overhead, padded size).
PADDING_FACTS = [
    (1, 0, 256),
    (1, 10, 246),
    (246, 10, 246),
    (247, 10, 502),
    (247, 256, 256),
    (3744, 96, 3744),
    (3745, 96, 4000),
    (3839, 96, 4000),
    (4864, 0, 4864),
    (4865, 0, 5120),
    (5121, 0, 6144),
    (9216, 0, 9216),
    (9217, 0, 10240),
    (10241, 0, 11264),
    (20480, 0, 20480),
    (20481, 0, 22528),
    (38912, 0, 38912),
    (38913, 0, 40960),
    (40961, 0, 46080),
    (46081, 0, 51200),
    (71680, 0, 71680),
    (71681, 0, 76800),
    (76800, 0, 76800),
    (76800 - 24, 24, 76800 - 24),
]


@pytest.mark.parametrize(("size", "overhead", "expected"), PADDING_FACTS)
def test_padded_size_facts(size: int, overhead: int, expected: int) -> None:
    assert padded_size(size, overhead) == expected


@pytest.mark.parametrize("boundary", [5120, 20480, 40960])
def test_padded_size_at_every_bucket_boundary(boundary: int) -> None:
    below, at = boundary - 1 - 40, boundary - 40
    chunk_below = {5120: 256, 20480: 1024, 40960: 2048}[boundary]
    chunk_at = {5120: 1024, 20480: 2048, 40960: 5120}[boundary]
    assert (padded_size(below) + 40) % chunk_below == 0
    assert (padded_size(at) + 40) % chunk_at == 0
    assert padded_size(at) >= at and padded_size(below) >= below


@given(st.integers(0, 200_000), st.integers(0, 200))
def test_padded_size_is_the_smallest_chunk_multiple(size: int, overhead: int) -> None:
    padded = padded_size(size, overhead)
    total = size + overhead
    chunk = 256 if total < 5120 else 1024 if total < 20480 else 2048 if total < 40960 else 5120
    assert padded >= size and (padded + overhead) % chunk == 0 and padded - size < chunk


def test_pad_and_unpad() -> None:
    padded = pad(m127())
    assert len(padded) == padded_size(len(m127())) and padded.endswith(m127())
    assert unpad(padded) == m127()
