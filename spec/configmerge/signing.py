"""Ed25519 signatures under the `~` key (design text "Config message outer metadata"; D17)."""

from __future__ import annotations

import nacl.exceptions
import nacl.signing

from .reasons import Reason, UsageError

SIGNATURE_KEY = b"~"
SIGNATURE_LENGTH = 64
SIGNATURE_SUFFIX = b"1:~64:"
"""What follows the signed bytes: the `~` key and the 64-byte string header."""


def signing_key(sign_key: bytes) -> nacl.signing.SigningKey:
    """A 32-byte seed, or a 64-byte secret key (seed followed by its public key)."""
    if not isinstance(sign_key, bytes) or len(sign_key) not in (32, 64):
        raise UsageError(Reason.BAD_KEY, "a signing key is a 32-byte seed or 64-byte secret key")
    key = nacl.signing.SigningKey(sign_key[:32])
    if len(sign_key) == 64 and bytes(key.verify_key) != sign_key[32:]:
        raise UsageError(Reason.BAD_KEY, "the public half does not match the seed")
    return key


def check_verify_key(verify_key: bytes) -> nacl.signing.VerifyKey:
    """A 32-byte Ed25519 public key."""
    if not isinstance(verify_key, bytes) or len(verify_key) != 32:
        raise UsageError(Reason.BAD_KEY, "a verification key is 32 bytes")
    return nacl.signing.VerifyKey(verify_key)


def signed_bytes(unsigned_serialization: bytes) -> bytes:
    """The bytes a signature covers: the serialization up to, not including, `1:~64:` (D17).

    For a message serialized without its signature that is everything but the final `e`.
    """
    return unsigned_serialization[:-1]


def attach_signature(unsigned_serialization: bytes, signature: bytes) -> bytes:
    """Append `~` as the last key of the top-level dict."""
    return signed_bytes(unsigned_serialization) + SIGNATURE_SUFFIX + signature + b"e"


def sign(unsigned_serialization: bytes, sign_key: bytes) -> bytes:
    """The signed serialization: `~` holds the Ed25519 signature of the signed bytes (D17)."""
    payload = signed_bytes(unsigned_serialization)
    signature = signing_key(sign_key).sign(payload).signature
    return attach_signature(unsigned_serialization, signature)


def signature_is_valid(signed_serialization: bytes, verify_key: bytes) -> bool:
    """Check the signature of a message whose last key is `~` with a 64-byte value (D17)."""
    cut = len(signed_serialization) - len(SIGNATURE_SUFFIX) - SIGNATURE_LENGTH - 1
    payload = signed_serialization[:cut]
    signature = signed_serialization[cut + len(SIGNATURE_SUFFIX) : -1]
    try:
        check_verify_key(verify_key).verify(payload, signature)
    except nacl.exceptions.BadSignatureError:
        return False
    return True
