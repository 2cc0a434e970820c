"""Ed25519 signatures (D17), deterministic XChaCha20-Poly1305 encryption (D18, D19), padding."""

from __future__ import annotations

import functools
import hashlib

from nacl import bindings
from nacl.exceptions import BadSignatureError, CryptoError

from swarmconf.spec.configmerge.reasons import DecryptError, Reason, UsageError

SIGNATURE_SIZE = 64
TAG_SIZE = 16
NONCE_SIZE = 24
OVERHEAD = TAG_SIZE + NONCE_SIZE
SPEC_NONCE_KEY = b"libsession-config-nonce-hash-key"
LIBSESSION_NONCE_PREFIX = b"libsessionutil-config-encrypted-"


def signing_secret(sign_key: object) -> bytes:
    """The 64-byte libsodium secret key for a 32-byte seed or a 64-byte seed+public key."""
    if type(sign_key) is not bytes or len(sign_key) not in (32, 64):
        raise UsageError(Reason.BAD_KEY, "a signing key is a 32-byte seed or 64 bytes")
    public, secret = _seed_keypair(sign_key[:32])
    if len(sign_key) == 64 and sign_key[32:] != public:
        raise UsageError(Reason.BAD_KEY, "the public half does not match the seed")
    return secret


@functools.lru_cache(maxsize=8)
def _seed_keypair(seed: bytes) -> tuple[bytes, bytes]:
    """(public key, 64-byte secret key) derived from `seed`; a merger signs many merges with
    one key, and the derivation costs as much as a small merge. Keeping the last few derived
    keys keeps no more than the caller holds: the seed, from which they follow, is already in
    the caller's memory."""
    public, secret = bindings.crypto_sign_seed_keypair(seed)
    return bytes(public), bytes(secret)


def check_verify_key(verify_key: object) -> bytes:
    """`verify_key`, if it is one (32 bytes)."""
    if type(verify_key) is not bytes or len(verify_key) != 32:
        raise UsageError(Reason.BAD_KEY, "a verification key is 32 bytes")
    return verify_key


def sign(signed: bytes, secret: bytes) -> bytes:
    """The detached 64-byte Ed25519 signature of `signed`."""
    return bytes(bindings.crypto_sign(signed, secret)[:SIGNATURE_SIZE])


VERIFIED_LIMIT = 1 << 16
"""Signatures remembered as verified, at most (about 8 MiB of digests and table)."""
_verified: dict[bytes, None] = {}
_SALT = bytes(bindings.randombytes(16))


def verify(signed: bytes, signature: bytes, public: bytes) -> bool:
    """Whether `signature` is `public`'s Ed25519 signature of `signed`.

    A client meets the same message in many merges (every poll merges what the swarm holds
    again), and each Ed25519 verification costs about 55 us. Signatures that verified are
    remembered by a BLAKE2b-256 digest of the signature, the key and the signed bytes, keyed
    by a random per-process salt so no one can aim a collision at an entry; the digest costs
    about 1 us per KiB. Only successes are kept, so a forged signature is checked every time;
    the oldest entries go first once `VERIFIED_LIMIT` is reached.
    """
    entry = hashlib.blake2b(signature, digest_size=32, key=_SALT)
    entry.update(public)
    entry.update(signed)
    digest = entry.digest()
    if digest in _verified:
        return True
    try:
        bindings.crypto_sign_open(signature + signed, public)
    except (BadSignatureError, CryptoError, ValueError):
        return False
    if len(_verified) >= VERIFIED_LIMIT:
        del _verified[next(iter(_verified))]
    _verified[digest] = None
    return True


def keypair() -> tuple[bytes, bytes]:
    """A fresh (seed, public key) pair."""
    seed = random_key()
    public, _secret = bindings.crypto_sign_seed_keypair(seed)
    return seed, bytes(public)


def random_key() -> bytes:
    """32 random bytes, e.g. an encryption key."""
    return bytes(bindings.randombytes(32))


def padded_size(size: int, overhead: int = OVERHEAD) -> int:
    """The padded plaintext size for `size` bytes (D19)."""
    total = size + overhead
    if total < 5 * 1024:
        chunk = 256
    elif total < 20 * 1024:
        chunk = 1024
    elif total < 40 * 1024:
        chunk = 2048
    else:
        chunk = 5120
    return (total + chunk - 1) // chunk * chunk - overhead


def pad(plaintext: bytes, overhead: int = OVERHEAD) -> bytes:
    """`plaintext` behind the leading zero bytes that bring it to `padded_size` (D19)."""
    return bytes(padded_size(len(plaintext), overhead) - len(plaintext)) + plaintext


def unpad(padded: bytes) -> bytes:
    """`padded` without its leading zero bytes (D19)."""
    return padded.lstrip(b"\0")


def _keys(key: object, profile: object, domain: object, size: int) -> tuple[bytes, bytes]:
    """(encryption key, nonce key) for a plaintext of `size` bytes, checking the arguments."""
    if type(key) is not bytes or len(key) != 32:
        raise UsageError(Reason.BAD_KEY, "an encryption key is 32 bytes")
    if profile == "spec":
        if domain is not None:
            raise UsageError(Reason.BAD_DOMAIN, "the spec profile takes no domain")
        return key, SPEC_NONCE_KEY
    if profile != "libsession":
        raise UsageError(Reason.BAD_PROFILE, repr(profile))
    if type(domain) is not bytes or not 1 <= len(domain) <= 24:
        raise UsageError(Reason.BAD_DOMAIN, "a domain is 1 to 24 bytes")
    derived = hashlib.blake2b(key + size.to_bytes(8, "big") + domain, digest_size=32).digest()
    return derived, LIBSESSION_NONCE_PREFIX + domain


def encrypt(
    plaintext: bytes, key: bytes, *, profile: str = "spec", domain: bytes | None = None
) -> bytes:
    """Deterministic encryption: ciphertext, tag, then the nonce hashed from the plaintext.

    No padding in either profile: `pad` is a step of its own (D19).
    """
    plaintext = bytes(plaintext)
    enc_key, nonce_key = _keys(key, profile, domain, len(plaintext))
    nonce = hashlib.blake2b(plaintext, digest_size=NONCE_SIZE, key=nonce_key).digest()
    sealed = bindings.crypto_aead_xchacha20poly1305_ietf_encrypt(plaintext, None, nonce, enc_key)
    return bytes(sealed) + nonce


def decrypt(
    ciphertext: bytes, key: bytes, *, profile: str = "spec", domain: bytes | None = None
) -> bytes:
    """The plaintext `encrypt` was given, padding included; `DecryptError` if it does not
    authenticate."""
    ciphertext = bytes(ciphertext)
    enc_key, _nonce_key = _keys(key, profile, domain, max(len(ciphertext) - OVERHEAD, 0))
    if len(ciphertext) < OVERHEAD:
        raise DecryptError(Reason.DECRYPT_TOO_SHORT, f"{len(ciphertext)} bytes")
    nonce = ciphertext[-NONCE_SIZE:]
    try:
        plaintext = bindings.crypto_aead_xchacha20poly1305_ietf_decrypt(
            ciphertext[:-NONCE_SIZE], None, nonce, enc_key
        )
    except CryptoError as exc:
        raise DecryptError(Reason.DECRYPT_FAILED, "authentication failed") from exc
    return bytes(plaintext)
