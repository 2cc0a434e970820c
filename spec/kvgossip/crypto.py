"""Ed25519 and SHA-256 behind a thin namespace (notes 1.2, table row 1).

Entities are raw 32-byte Ed25519 public keys; secret keys are 32-byte seeds. Signatures are
deterministic, so every vector and simulation is reproducible byte for byte.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache

from nacl.exceptions import BadSignatureError
from nacl.exceptions import ValueError as NaclValueError
from nacl.signing import SigningKey, VerifyKey

PUBLIC_KEY_SIZE = 32
SIGNATURE_SIZE = 64
HASH_SIZE = 32


def sha256(data: bytes) -> bytes:
    """SHA-256 of `data`."""
    return hashlib.sha256(data).digest()


def seed_from_label(label: str) -> bytes:
    """A deterministic 32-byte seed for a named test entity (vectors and simulation only)."""
    return sha256(b"kvg/test-seed/" + label.encode())


def public_key(seed: bytes) -> bytes:
    """The 32-byte public key of a 32-byte secret seed."""
    return bytes(SigningKey(seed).verify_key)


def sign(seed: bytes, message: bytes) -> bytes:
    """The 64-byte Ed25519 signature of `message` under the secret `seed`."""
    return SigningKey(seed).sign(message).signature


@lru_cache(maxsize=1 << 16)
def verify(public: bytes, message: bytes, signature: bytes) -> bool:
    """True iff `signature` is a valid Ed25519 signature of `message` under `public`."""
    if len(public) != PUBLIC_KEY_SIZE or len(signature) != SIGNATURE_SIZE:
        return False
    try:
        VerifyKey(public).verify(message, signature)
    except (BadSignatureError, NaclValueError):
        return False
    return True
