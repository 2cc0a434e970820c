"""The deployed client's payload layer as the emulation models it (X9, X11, X13, X15, X16)."""

from __future__ import annotations

import pytest
import zstandard

from swarmconf.conformance.configmerge.deployed_payload import (
    deployed_level,
    deployed_unwrap,
    deployed_wrap,
)
from swarmconf.conformance.configmerge.suites.payload import large_message
from swarmconf.conformance.recipes import expand
from swarmconf.spec.configmerge.compression import MAX_INFLATED_SIZE
from swarmconf.spec.configmerge.encryption import encrypt, pad
from swarmconf.spec.configmerge.examples import m118
from swarmconf.spec.configmerge.payload import unwrap, wrap
from swarmconf.spec.configmerge.reasons import ConfigError, PayloadReason, UsageError

KEY = bytes(range(32))
DOMAIN = b"UserProfile"


def seal(plaintext: bytes) -> bytes:
    return encrypt(pad(plaintext), KEY, profile="libsession", domain=DOMAIN)


@pytest.mark.parametrize(
    ("level", "used", "fired"),
    [
        (None, None, False),
        (1, 1, False),
        (22, 22, False),
        (0, None, True),
        (23, 22, True),
        (-1, -1, True),
        (10**6, 22, True),
    ],
)
def test_the_level_goes_to_zstd_unchecked(level: int | None, used: int | None, fired: bool) -> None:
    found: set[str] = set()
    assert deployed_level(level, found) == used
    assert (found == {"X16"}) is fired


def test_a_level_the_deployed_api_cannot_hold_is_refused() -> None:
    with pytest.raises(UsageError):
        deployed_level(2**31, set())


def test_level_0_pushes_what_no_compression_pushes() -> None:
    found: set[str] = set()
    blobs = deployed_wrap(m118(), KEY, DOMAIN, 0, found)
    assert blobs == wrap(m118(), KEY, DOMAIN, level=None)
    assert found == {"X16"}


def test_an_all_zero_plaintext_is_handed_on_whole() -> None:
    found: set[str] = set()
    message = deployed_unwrap([seal(b"")], [KEY], DOMAIN, found)
    assert message == bytes(216)
    assert found == {"X9"}
    with pytest.raises(ConfigError) as refused:
        unwrap([seal(b"")], [KEY], DOMAIN)
    assert refused.value.reason == PayloadReason.PAYLOAD_EMPTY


def test_decompression_has_no_bound() -> None:
    inflated = bytes(MAX_INFLATED_SIZE + 1)
    blob = seal(b"z" + zstandard.ZstdCompressor(level=1).compress(inflated))
    assert len(blob) == 256
    found: set[str] = set()
    assert deployed_unwrap([blob], [KEY], DOMAIN, found) == inflated
    assert found == {"X15"}
    with pytest.raises(ConfigError) as refused:
        unwrap([blob], [KEY], DOMAIN)
    assert refused.value.reason == PayloadReason.ZSTD_TOO_LARGE


def test_within_the_bound_no_quirk_fires() -> None:
    found: set[str] = set()
    blobs = wrap(m118(), KEY, DOMAIN)
    assert deployed_unwrap(blobs, [KEY], DOMAIN, found) == m118()
    assert found == set()


@pytest.mark.parametrize(("size", "fired"), [(5_000_000, set()), (5_000_001, {"X13"})])
def test_the_message_is_not_bounded_on_push(size: int, fired: set[str]) -> None:
    """X13: only the blob is bounded, so a compressible message past 5,000,000 bytes is pushed
    as one small blob, which swarmconf's `wrap` refuses and its `unwrap` will not inflate."""
    message = expand(large_message(size, incompressible=False))
    found: set[str] = set()
    (blob,) = deployed_wrap(message, KEY, DOMAIN, 1, found)
    assert len(message) == size and len(blob) < 1_000 and found == fired
    if fired:
        with pytest.raises(ConfigError) as pushed:
            wrap(message, KEY, DOMAIN)
        assert pushed.value.reason == PayloadReason.PAYLOAD_TOO_LARGE
        with pytest.raises(ConfigError) as read:
            unwrap([blob], [KEY], DOMAIN)
        assert read.value.reason == PayloadReason.ZSTD_TOO_LARGE
    else:
        assert [blob] == wrap(message, KEY, DOMAIN) and unwrap([blob], [KEY], DOMAIN) == message
