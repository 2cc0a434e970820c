"""K/V Gossip reason codes: every way input can be refused, one stable identifier each.

Vectors, the sync session and the node compare these codes, never message text. A code's value
is its name, so it reads the same in JSON, on the wire and in Python.
"""

from __future__ import annotations

from enum import StrEnum


class KvReason(StrEnum):
    """Why a body, a record, a grant, a revocation or a session message was refused."""

    # Canonical encoding (notes 1.2, table row 2)
    MALFORMED_ENCODING = "MALFORMED_ENCODING"
    """The bytes are not exactly one msgpack value (truncated, trailing bytes, bad UTF-8)."""
    NONCANONICAL_ENCODING = "NONCANONICAL_ENCODING"
    """The bytes decode, but re-encoding gives different bytes (wider int, str/bin swapped...)."""
    BAD_SHAPE = "BAD_SHAPE"
    """The value is not an array of the expected length and field types."""
    WRONG_DOMAIN_TAG = "WRONG_DOMAIN_TAG"
    """The body's leading domain tag is not the one this object needs."""
    OVERSIZE = "OVERSIZE"
    """The encoded object is larger than its size cap (notes table row 33)."""

    # Keys (notes 1.2, table row 17)
    KEY_SYNTAX = "KEY_SYNTAX"
    """A key is not `/`-separated non-empty segments of `[A-Za-z0-9._-]`."""
    KEY_DOT_SEGMENT = "KEY_DOT_SEGMENT"
    """A key has a `.` or `..` segment."""
    KEY_TOO_LONG = "KEY_TOO_LONG"
    """A key is longer than 256 bytes."""
    KEY_TOO_DEEP = "KEY_TOO_DEEP"
    """A key has more than 32 segments."""

    # Patterns (notes 2.2, table row 18)
    PATTERN_SYNTAX = "PATTERN_SYNTAX"
    """A pattern is not `/`-separated non-empty segments of `[A-Za-z0-9._-*]`."""
    PATTERN_DOT_SEGMENT = "PATTERN_DOT_SEGMENT"
    """A pattern has a `.` or `..` segment."""
    PATTERN_DOUBLESTAR_IN_SEGMENT = "PATTERN_DOUBLESTAR_IN_SEGMENT"
    """`**` appears inside a segment instead of being a whole segment (`/a**b`)."""
    PATTERN_TOO_LONG = "PATTERN_TOO_LONG"
    """A pattern is longer than 128 bytes."""
    PATTERN_TOO_DEEP = "PATTERN_TOO_DEEP"
    """A pattern has more than 32 segments."""

    # Signatures (table row 1)
    BAD_SIGNATURE = "BAD_SIGNATURE"
    """An Ed25519 signature does not verify under the key the body names."""

    # Grants (notes 1.2 and 2.2: valid_grant)
    GRANT_SELF_ISSUED = "GRANT_SELF_ISSUED"
    """A grant's issuer and issuee are the same key."""
    GRANT_UNKNOWN_FLAGS = "GRANT_UNKNOWN_FLAGS"
    """A grant sets flag bits other than bit 0 (subgrant)."""
    GRANT_EXPIRES_BEFORE_ISSUE = "GRANT_EXPIRES_BEFORE_ISSUE"
    """A grant's `expires_at` is not 0 and not after its `issued_at`."""
    GRANT_TO_ROOT = "GRANT_TO_ROOT"
    """A grant's issuee is the root key (table row 8)."""
    GRANT_REVOKED = "GRANT_REVOKED"
    """A grant's id is in the revocation set."""
    GRANT_NOT_YET_VALID = "GRANT_NOT_YET_VALID"
    """The record's timestamp is before the grant's `issued_at` (table row 12)."""
    GRANT_EXPIRED = "GRANT_EXPIRED"
    """The record's timestamp is at or after the grant's `expires_at` (table row 11)."""
    GRANT_PATTERN_MISMATCH = "GRANT_PATTERN_MISMATCH"
    """The grant's pattern does not match the record's key (table row 6)."""

    # Revocations (notes 1.2, table row 13)
    REVOCATION_BAD_REVOKER = "REVOCATION_BAD_REVOKER"
    """A revocation is signed by neither the grant's issuer nor the root."""
    REVOCATION_NOT_AFTER_ISSUE = "REVOCATION_NOT_AFTER_ISSUE"
    """A revocation's `revoked_at` is not after the grant's `issued_at`."""

    # Records (notes 1.2, 2.2, table rows 4, 5, 10, 16, 22)
    VALUE_HASH_MISMATCH = "VALUE_HASH_MISMATCH"
    """A value's SHA-256 differs from the value hash the signed body names."""
    TOMBSTONE_WITH_VALUE = "TOMBSTONE_WITH_VALUE"
    """A tombstone carries a non-empty value."""
    TOMBSTONE_HASH_NOT_ZERO = "TOMBSTONE_HASH_NOT_ZERO"
    """A tombstone's value hash is not 32 zero bytes."""
    VALUE_TOO_LARGE = "VALUE_TOO_LARGE"
    """A value is larger than 1 MiB."""
    POOL_TOO_LARGE = "POOL_TOO_LARGE"
    """A record ships more grants than the pool cap."""
    UNAUTHORIZED = "UNAUTHORIZED"
    """No chain from the root to the signer authorises the key at the record's timestamp."""
    REVOKED = "REVOKED"
    """A chain would authorise the record, but only through revoked grants."""
    FUTURE_TIMESTAMP = "FUTURE_TIMESTAMP"
    """The record's timestamp is beyond the local clock plus the skew: deferred, not stored."""
    STALE = "STALE"
    """The record is LWW-older than the stored one for its key."""

    # Sync sessions (notes 3.5)
    SESSION_BAD_MESSAGE = "SESSION_BAD_MESSAGE"
    """A frame is not a well-formed session message."""
    SESSION_FRAME_TOO_LARGE = "SESSION_FRAME_TOO_LARGE"
    """A frame is larger than 4 MiB."""
    SESSION_PROTOCOL_VERSION = "SESSION_PROTOCOL_VERSION"
    """The peer's HELLO names a protocol version other than 2."""
    SESSION_UNEXPECTED_MESSAGE = "SESSION_UNEXPECTED_MESSAGE"
    """A message arrives that the session's current step does not allow."""
    SESSION_DUPLICATE_KEY = "SESSION_DUPLICATE_KEY"
    """Two records of one key arrive in one pass."""
    SESSION_NOT_REQUESTED = "SESSION_NOT_REQUESTED"
    """A RECORDS frame answering a WANT holds a record that WANT did not ask for."""
    SESSION_TOO_MANY_ROUNDS = "SESSION_TOO_MANY_ROUNDS"
    """The peer sends more than 32 reconciliation messages in one pass."""
    SESSION_TOO_MANY_PASSES = "SESSION_TOO_MANY_PASSES"
    """The peer starts more passes than `max_loops` allows."""
    SESSION_TIMEOUT = "SESSION_TIMEOUT"
    """The peer stayed silent longer than the idle timeout."""
    SESSION_CLOSED = "SESSION_CLOSED"
    """A message arrives after the session ended."""


class KvError(Exception):
    """Input was refused; `.reason` says why."""

    def __init__(self, reason: KvReason, detail: str = "") -> None:
        self.reason = reason
        self.detail = detail
        super().__init__(f"{reason.value}: {detail}" if detail else reason.value)


def require(condition: bool, reason: KvReason, detail: str = "") -> None:
    """Raise `KvError(reason)` unless `condition` holds."""
    if not condition:
        raise KvError(reason, detail)
