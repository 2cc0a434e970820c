"""Grants, grant ids and revocations (notes 1.2, 2.2; table rows 3, 8, 11-13).

A grant body is `["kvg/grant/1", issuer, issuee, pattern, flags, issued_at, expires_at]`; a signed
grant is `[body, signature]`, signed by the issuer. `grant_id = SHA-256(body)`. A revocation body
is `["kvg/revoke/1", signed_grant, revoker, revoked_at]`, signed by the revoker, which must be
the grant's issuer or the root.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from . import crypto
from .encoding import GRANT_TAG, REVOCATION_TAG, decode_body, decode_tuple, encode
from .keys import check_pattern, matches
from .reasons import KvError, KvReason, require

FLAG_SUBGRANT = 1
KNOWN_FLAGS = FLAG_SUBGRANT
MAX_GRANT_BYTES = 512
MAX_REVOCATION_BYTES = 1024


@dataclass(frozen=True, slots=True)
class Grant:
    """A signed grant: permission from `issuer` to `issuee` to write keys matching `pattern`."""

    issuer: bytes
    issuee: bytes
    pattern: str
    flags: int
    issued_at: int
    expires_at: int
    body: bytes
    signature: bytes
    wire: bytes | None = field(default=None, repr=False, compare=False)
    """The wire bytes the grant was decoded from (canonical, so `encode` gives them back)."""
    id: bytes = field(init=False, repr=False, compare=False)
    """The grant id: SHA-256 of the canonical body (table row 3)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "id", crypto.sha256(self.body))

    @property
    def subgrant(self) -> bool:
        """True iff the issuee may issue sub-grants (flag bit 0)."""
        return bool(self.flags & FLAG_SUBGRANT)

    def encode(self) -> bytes:
        """The signed grant's wire bytes `[body, signature]`."""
        if self.wire is not None:
            return self.wire
        return encode([self.body, self.signature])


@dataclass(frozen=True, slots=True)
class Revocation:
    """A signed revocation of `grant` by `revoker` at `revoked_at`."""

    grant: Grant
    revoker: bytes
    revoked_at: int
    body: bytes
    signature: bytes

    @property
    def grant_id(self) -> bytes:
        """The id of the revoked grant; a revocation applies to it forever."""
        return self.grant.id

    def encode(self) -> bytes:
        """The signed revocation's wire bytes `[body, signature]`."""
        return encode([self.body, self.signature])


@lru_cache(maxsize=1 << 14)
def grant_id_of(data: bytes) -> bytes:
    """The grant id of signed grant bytes, reading only the envelope (to index stored chains)."""
    body, _ = decode_tuple(data, (bytes, bytes), MAX_GRANT_BYTES)
    return crypto.sha256(body)


def grant_body(
    issuer: bytes, issuee: bytes, pattern: str, flags: int, issued_at: int, expires_at: int
) -> bytes:
    """The canonical body bytes of a grant."""
    return encode([GRANT_TAG, issuer, issuee, pattern, flags, issued_at, expires_at])


def issue_grant(
    issuer_seed: bytes,
    issuee: bytes,
    pattern: str,
    *,
    subgrant: bool,
    issued_at: int,
    expires_at: int = 0,
) -> Grant:
    """Sign a new grant with the issuer's seed and return it, checked like a received one."""
    issuer = crypto.public_key(issuer_seed)
    flags = FLAG_SUBGRANT if subgrant else 0
    body = grant_body(issuer, issuee, pattern, flags, issued_at, expires_at)
    return decode_grant(encode([body, crypto.sign(issuer_seed, body)]))


@lru_cache(maxsize=1 << 12)
def decode_grant(data: bytes) -> Grant:
    """Decode and check a signed grant on its own (no root, time or revocations involved).

    Checks: canonical envelope and body, key sizes, pattern grammar, known flags, expiry after
    issue, issuer != issuee, and the issuer's signature over the body. A pure function of the
    bytes, so the result is cached: every record of a writer carries the same grants.
    """
    body, signature = decode_tuple(data, (bytes, bytes), MAX_GRANT_BYTES)
    fields = (bytes, bytes, str, int, int, int)
    issuer, issuee, pattern, flags, issued_at, expires_at = decode_body(
        body, GRANT_TAG, fields, MAX_GRANT_BYTES
    )
    # Verify the keys are 32 bytes and the signature 64
    require(len(issuer) == crypto.PUBLIC_KEY_SIZE, KvReason.BAD_SHAPE, "issuer size")
    require(len(issuee) == crypto.PUBLIC_KEY_SIZE, KvReason.BAD_SHAPE, "issuee size")
    require(len(signature) == crypto.SIGNATURE_SIZE, KvReason.BAD_SHAPE, "signature size")
    # Verify the pattern grammar and the flags
    check_pattern(pattern)
    require(flags & ~KNOWN_FLAGS == 0, KvReason.GRANT_UNKNOWN_FLAGS)
    # Verify the expiry is after the issue time
    require(expires_at == 0 or expires_at > issued_at, KvReason.GRANT_EXPIRES_BEFORE_ISSUE)
    # Verify a grant never points back at its own issuer
    require(issuer != issuee, KvReason.GRANT_SELF_ISSUED)
    # Verify the issuer's signature
    require(crypto.verify(issuer, body, signature), KvReason.BAD_SIGNATURE)
    return Grant(issuer, issuee, pattern, flags, issued_at, expires_at, body, signature, data)


def check_grant_for(
    grant: Grant, key: str, ts: int, root: bytes, revoked: frozenset[bytes] | set[bytes]
) -> None:
    """Refuse a decoded grant that cannot serve on a chain for `key` at record time `ts`.

    This is `valid_grant` of notes 2.2 plus the per-key intersection rule (table row 6): the
    record's timestamp, never a local clock, judges issue and expiry times (rows 11-12).
    """
    # Verify no grant points to the root (row 8)
    require(grant.issuee != root, KvReason.GRANT_TO_ROOT)
    # Verify the grant is not revoked
    require(grant.id not in revoked, KvReason.GRANT_REVOKED)
    # Verify the record's time lies in the grant's validity window
    require(grant.issued_at <= ts, KvReason.GRANT_NOT_YET_VALID)
    require(grant.expires_at == 0 or ts < grant.expires_at, KvReason.GRANT_EXPIRED)
    # Verify the grant's pattern matches the key
    require(matches(grant.pattern, key), KvReason.GRANT_PATTERN_MISMATCH)


def grant_reason_for(
    grant: Grant, key: str, ts: int, root: bytes, revoked: frozenset[bytes] | set[bytes]
) -> KvReason | None:
    """`check_grant_for` as a value: None if the grant serves, else the reason it does not."""
    try:
        check_grant_for(grant, key, ts, root, revoked)
    except KvError as err:
        return err.reason
    return None


def revocation_body(grant: Grant, revoker: bytes, revoked_at: int) -> bytes:
    """The canonical body bytes of a revocation."""
    return encode([REVOCATION_TAG, grant.encode(), revoker, revoked_at])


def revoke_grant(revoker_seed: bytes, grant: Grant, revoked_at: int, root: bytes) -> Revocation:
    """Sign a revocation of `grant` and return it, checked like a received one."""
    body = revocation_body(grant, crypto.public_key(revoker_seed), revoked_at)
    return decode_revocation(encode([body, crypto.sign(revoker_seed, body)]), root)


def decode_revocation(data: bytes, root: bytes) -> Revocation:
    """Decode and check a signed revocation (notes 1.2, table row 13).

    Valid iff the embedded grant is a valid signed grant, the revoker is the grant's issuer or
    the root, `revoked_at > issued_at`, and the revoker's signature verifies.
    """
    body, signature = decode_tuple(data, (bytes, bytes), MAX_REVOCATION_BYTES)
    grant_bytes, revoker, revoked_at = decode_body(
        body, REVOCATION_TAG, (bytes, bytes, int), MAX_REVOCATION_BYTES
    )
    require(len(revoker) == crypto.PUBLIC_KEY_SIZE, KvReason.BAD_SHAPE, "revoker size")
    require(len(signature) == crypto.SIGNATURE_SIZE, KvReason.BAD_SHAPE, "signature size")
    # Verify the revoked grant is itself a valid signed grant
    grant = decode_grant(grant_bytes)
    # Verify the revoker is the grant's issuer or the root
    require(revoker in (grant.issuer, root), KvReason.REVOCATION_BAD_REVOKER)
    # Verify the revocation comes after the grant
    require(revoked_at > grant.issued_at, KvReason.REVOCATION_NOT_AFTER_ISSUE)
    # Verify the revoker's signature
    require(crypto.verify(revoker, body, signature), KvReason.BAD_SIGNATURE)
    return Revocation(grant, revoker, revoked_at, body, signature)
