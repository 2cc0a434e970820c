"""Deterministic XChaCha20-Poly1305 encryption of config messages (design text "Message
Encryption"; D18, D19, D20). Both profiles write ciphertext ‖ 16-byte tag ‖ 24-byte nonce.
"""

from __future__ import annotations

import hashlib
from typing import Literal, get_args

import nacl.bindings
import nacl.exceptions

from .reasons import DecryptError, Reason, UsageError

Profile = Literal["spec", "libsession"]
PROFILES: tuple[Profile, ...] = get_args(Profile)
"""The encryption profiles: the design text's and the deployed client's (D18, D19)."""

KEY_LENGTH = 32
NONCE_LENGTH = 24
TAG_LENGTH = 16
OVERHEAD = TAG_LENGTH + NONCE_LENGTH
SPEC_NONCE_KEY = b"libsession-config-nonce-hash-key"
LIBSESSION_NONCE_KEY_PREFIX = b"libsessionutil-config-encrypted-"
MAX_DOMAIN_LENGTH = 24


def padded_size(size: int, overhead: int = OVERHEAD) -> int:
    """The padded plaintext size: size + overhead rounded up to a chunk, minus overhead; the
    chunk is 256 below 5120, 1024 below 20480, 2048 below 40960, else 5120 (D19).

    pre: 0 <= size <= 10**9
    pre: 0 <= overhead <= 10**6
    post: size <= __return__ < size + 5120
    post: (__return__ + overhead) % 256 == 0
    post: size + overhead >= 40960 or __return__ - size < 2048
    """
    total = size + overhead
    if total < 5120:
        chunk = 256
    elif total < 20480:
        chunk = 1024
    elif total < 40960:
        chunk = 2048
    else:
        chunk = 5120
    return (total + chunk - 1) // chunk * chunk - overhead


def pad(plaintext: bytes, overhead: int = OVERHEAD) -> bytes:
    """Prefix zero bytes up to `padded_size` (D19)."""
    return bytes(padded_size(len(plaintext), overhead) - len(plaintext)) + plaintext


def unpad(padded: bytes) -> bytes:
    """Strip the leading zero bytes of padding; a message starts with `d`, never a zero (D19).

    All zeros strip to the empty plaintext (the deployed client keeps them: X9).
    """
    return padded.lstrip(b"\0")


def spec_nonce(plaintext: bytes) -> bytes:
    """Profile `spec`: a 24-byte BLAKE2b hash of the plaintext keyed with
    `libsession-config-nonce-hash-key` (D18)."""
    return hashlib.blake2b(plaintext, digest_size=NONCE_LENGTH, key=SPEC_NONCE_KEY).digest()


def libsession_nonce(plaintext: bytes, domain: bytes) -> bytes:
    """Profile `libsession`: a 24-byte BLAKE2b hash of the plaintext keyed with
    `libsessionutil-config-encrypted-` ‖ domain (D19)."""
    key = LIBSESSION_NONCE_KEY_PREFIX + domain
    return hashlib.blake2b(plaintext, digest_size=NONCE_LENGTH, key=key).digest()


def libsession_key(key_base: bytes, plaintext_length: int, domain: bytes) -> bytes:
    """Profile `libsession`: BLAKE2b-256 of key_base ‖ uint64 big-endian length ‖ domain (D19)."""
    material = key_base + plaintext_length.to_bytes(8, "big") + domain
    return hashlib.blake2b(material, digest_size=KEY_LENGTH).digest()


def check_arguments(key: bytes, profile: str, domain: bytes | None) -> None:
    """A 32-byte key; `spec` takes no domain, `libsession` a domain of 1 to 24 bytes."""
    if not isinstance(key, bytes) or len(key) != KEY_LENGTH:
        raise UsageError(Reason.BAD_KEY, "the encryption key is 32 bytes")
    if profile == "spec":
        if domain is not None:
            raise UsageError(Reason.BAD_DOMAIN, "profile spec takes no domain")
    elif profile == "libsession":
        if not isinstance(domain, bytes) or not 1 <= len(domain) <= MAX_DOMAIN_LENGTH:
            raise UsageError(Reason.BAD_DOMAIN, "profile libsession needs a 1 to 24-byte domain")
    else:
        raise UsageError(Reason.BAD_PROFILE, repr(profile))


def seal(plaintext: bytes, key: bytes, nonce: bytes) -> bytes:
    """XChaCha20-Poly1305-IETF without associated data; ciphertext ‖ tag ‖ nonce (D18)."""
    sealed = nacl.bindings.crypto_aead_xchacha20poly1305_ietf_encrypt(plaintext, None, nonce, key)
    return bytes(sealed) + nonce


def seal_spec(plaintext: bytes, key: bytes) -> bytes:
    """Profile `spec`: the key as given, the nonce from `spec_nonce` (D18)."""
    return seal(plaintext, key, spec_nonce(plaintext))


def seal_libsession(plaintext: bytes, key_base: bytes, domain: bytes) -> bytes:
    """Profile `libsession`: key and nonce derived from the plaintext and the domain (D19)."""
    key = libsession_key(key_base, len(plaintext), domain)
    return seal(plaintext, key, libsession_nonce(plaintext, domain))


def encrypt(
    plaintext: bytes, key: bytes, *, profile: Profile = "spec", domain: bytes | None = None
) -> bytes:
    """Encrypt deterministically: the same plaintext and key give the same bytes (D18, D19).

    The primitive only, in both profiles: padding is a step of its own (`pad`), which the
    deployed client takes before it encrypts when it pushes (D19).
    """
    check_arguments(key, profile, domain)
    if profile == "libsession":
        assert domain is not None
        return seal_libsession(plaintext, key, domain)
    return seal_spec(plaintext, key)


def decrypt(
    ciphertext: bytes, key: bytes, *, profile: Profile = "spec", domain: bytes | None = None
) -> bytes:
    """Decrypt and authenticate, raising `DecryptError`: the bytes `encrypt` was given,
    padding included (`unpad` strips it, D19)."""
    check_arguments(key, profile, domain)
    # Verify the ciphertext holds at least a tag and a nonce
    if len(ciphertext) < OVERHEAD:
        raise DecryptError(Reason.DECRYPT_TOO_SHORT, f"{len(ciphertext)} bytes")
    sealed, nonce = ciphertext[:-NONCE_LENGTH], ciphertext[-NONCE_LENGTH:]
    if profile == "libsession":
        assert domain is not None
        key = libsession_key(key, len(sealed) - TAG_LENGTH, domain)
    try:
        plaintext = nacl.bindings.crypto_aead_xchacha20poly1305_ietf_decrypt(
            sealed, None, nonce, key
        )
    except nacl.exceptions.CryptoError as error:
        raise DecryptError(Reason.DECRYPT_FAILED) from error
    return plaintext
