"""The outer config message: parse (D7, D8, D9, D17), serialize, hash (D1, D20) and increment
(D13); design text "Config message outer metadata" and "Non-conflicting updates".
"""

from __future__ import annotations

import hashlib
from typing import NamedTuple

from . import bt
from .bt import INT64_MAX, INT64_MIN, BtValue
from .data import Data, check_data, check_writable, data_to_bt, deep_copy, pruned
from .diff import Diff, check_diff, check_written_limits, diff_data, diff_to_bt
from .reasons import Reason, UsageError, require
from .signing import (
    SIGNATURE_KEY,
    SIGNATURE_LENGTH,
    attach_signature,
    check_verify_key,
    sign,
    signature_is_valid,
)

SEQNO_KEY = b"#"
DATA_KEY = b"&"
LAGGED_KEY = b"<"
DIFF_KEY = b"="
KNOWN_KEYS = frozenset({SEQNO_KEY, DATA_KEY, LAGGED_KEY, DIFF_KEY, SIGNATURE_KEY})
DEFAULT_LAG = 5


class LaggedEntry(NamedTuple):
    """One element of `<`: the seqno, hash and own diff of an absorbed update (D7)."""

    seqno: int
    hash: bytes
    diff: Diff


def message_hash(serialized: bytes) -> bytes:
    """Unkeyed BLAKE2b-256 of the plaintext serialized message, signature included (D1, D20)."""
    return hashlib.blake2b(serialized, digest_size=32).digest()


def check_lag(lag: int) -> None:
    """Lag, the "within N" rule, is an integer >= 1 (D16; X4)."""
    if isinstance(lag, bool) or not isinstance(lag, int) or lag < 1:
        raise UsageError(Reason.BAD_LAG, f"lag must be an integer >= 1, not {lag!r}")


def in_window(entry_seqno: int, seqno: int, lag: int) -> bool:
    """A message with seqno S keeps lagged entries with S - lag < seqno (D7)."""
    return entry_seqno > seqno - lag


class ConfigMessage:
    """A config message: parsed from bytes, or editable (new, incremented or merged).

    An editable message's `data` may be changed in place; its `diff` is always the D12 diff
    between the data when it was created and the data now (D13).
    """

    def __init__(
        self,
        *,
        seqno: int,
        data: Data,
        lagged: list[LaggedEntry],
        lag: int,
        extra: dict[bytes, bytes] | None = None,
        stored_diff: Diff | None = None,
        signature: bytes | None = None,
        verified: bool = False,
        received_hash: bytes | None = None,
        merged: bool = False,
        sign_key: bytes | None = None,
    ) -> None:
        self.seqno = seqno
        self.data = data
        self.lagged = lagged
        self.lag = lag
        self.extra: dict[bytes, bytes] = extra or {}
        self.signature = signature
        self.merged = merged
        self._verified = verified
        self._stored_diff = stored_diff
        self._received_hash = received_hash
        self._sign_key = sign_key
        # Editable messages remember their data at creation; the diff follows edits
        self._base = deep_copy(data) if stored_diff is None else None

    @classmethod
    def new(cls, seqno: int, *, lag: int = DEFAULT_LAG) -> ConfigMessage:
        """A first message with empty data: editable, no lagged entries."""
        check_lag(lag)
        if isinstance(seqno, bool) or not isinstance(seqno, int):
            raise UsageError(Reason.BAD_VALUE_TYPE, "seqno must be an integer")
        if not INT64_MIN <= seqno <= INT64_MAX:
            raise UsageError(Reason.INT_OUT_OF_RANGE, f"seqno {seqno}")
        return cls(seqno=seqno, data={}, lagged=[], lag=lag)

    @property
    def editable(self) -> bool:
        return self._base is not None

    @property
    def diff(self) -> Diff:
        """The stored `=` of a parsed message, or the edits so far of an editable one (D12)."""
        if self._base is None:
            assert self._stored_diff is not None
            return self._stored_diff
        check_writable(self.data)
        return diff_data(self._base, pruned(self.data))

    @property
    def hash(self) -> bytes:
        """The message's identity: BLAKE2b-256 of the bytes received, or of `serialize()` with
        the key the message is signed with, if any (D1)."""
        if self._received_hash is not None:
            return self._received_hash
        return message_hash(self.serialize())

    def serialize(self, sign_key: bytes | None = None) -> bytes:
        """The canonical bytes: `#`, unknown keys in place (D9), `&`, `<`, `=`, then `~` (D17).

        With `sign_key` the message is signed; a verified signature is written back verbatim;
        an unverified one is dropped (D17). An editable message keeps the key it is signed
        with, so its hash is of the signed bytes, signature included (D1).
        """
        diff = self.diff
        data = pruned(self.data)
        if self._base is not None:
            check_written_limits(data, diff)
        unsigned = encode_message(self.seqno, self.extra, data, self.lagged, diff)
        key = sign_key if sign_key is not None else self._sign_key
        if key is not None:
            signed = sign(unsigned, key)
            if self.editable:
                self._sign_key = key
            return signed
        if self.signature is not None and self._verified:
            return attach_signature(unsigned, self.signature)
        return unsigned

    def increment(self) -> ConfigMessage:
        """The next message of a non-conflicting update, editable (design text
        "Non-conflicting updates"; D13): seqno + 1, the lagged entries still in the window plus
        this message's own (seqno, hash, diff), the same data and unknown keys."""
        if self.seqno == INT64_MAX:
            raise UsageError(Reason.SEQNO_OVERFLOW, "seqno is already 2^63-1")
        seqno = self.seqno + 1
        own = LaggedEntry(self.seqno, self.hash, self.diff)
        lagged = [e for e in [*self.lagged, own] if in_window(e.seqno, seqno, self.lag)]
        return ConfigMessage(
            seqno=seqno,
            data=pruned(self.data),
            lagged=lagged,
            lag=self.lag,
            extra=dict(self.extra),
        )

    def __repr__(self) -> str:
        return f"ConfigMessage(seqno={self.seqno}, hash={self.hash.hex()[:16]}…)"


def encode_message(
    seqno: int, extra: dict[bytes, bytes], data: Data, lagged: list[LaggedEntry], diff: Diff
) -> bytes:
    """The unsigned serialization; `<` and `=` are always written (D8)."""
    fields: dict[bytes, bytes] = dict(extra)
    fields[SEQNO_KEY] = bt.encode(seqno)
    fields[DATA_KEY] = bt.encode(data_to_bt(data))
    fields[LAGGED_KEY] = bt.encode([[e.seqno, e.hash, diff_to_bt(e.diff)] for e in lagged])
    fields[DIFF_KEY] = bt.encode(diff_to_bt(diff))
    return b"d" + b"".join(bt.encode(key) + fields[key] for key in sorted(fields)) + b"e"


def parse(data: bytes, *, lag: int = DEFAULT_LAG, verify_key: bytes | None = None) -> ConfigMessage:
    """Parse and validate a plaintext config message, raising `ConfigError` with the reason.

    Checks run in the order of the design text's outer structure; the first failure is reported.
    Unknown top-level keys are kept with their raw values (D9); `lag` filters `<` (D7, D16).
    """
    check_lag(lag)
    if verify_key is not None:
        check_verify_key(verify_key)
    if not isinstance(data, bytes):
        raise UsageError(Reason.BAD_VALUE_TYPE, "a message is bytes")
    top = check_top_level(bt.decode(data, wide_int_keys=lambda key: key not in KNOWN_KEYS))
    seqno = check_seqno(top)
    raw_data = check_data_field(top)
    check_top_level_keys(top)
    app_data = check_data(raw_data)
    lagged = check_lagged(top.get(LAGGED_KEY, []), seqno, lag)
    diff = check_diff(top.get(DIFF_KEY, {}))
    signature = check_signature_field(top)
    if verify_key is not None:
        verify_signature(data, signature, verify_key)
    extra = {key: bt.encode(value) for key, value in top.items() if key not in KNOWN_KEYS}
    return ConfigMessage(
        seqno=seqno,
        data=app_data,
        lagged=lagged,
        lag=lag,
        extra=extra,
        stored_diff=diff,
        signature=signature,
        verified=verify_key is not None,
        received_hash=message_hash(data),
    )


def check_top_level(value: BtValue) -> dict[bytes, BtValue]:
    """A config message is a dict (design text "Config message outer metadata")."""
    # Verify the top level is a dict
    require(isinstance(value, dict), Reason.MSG_NOT_DICT)
    assert isinstance(value, dict)
    return value


def check_seqno(top: dict[bytes, BtValue]) -> int:
    """The first key is `#`, an integer seqno (D8); an earlier key is a major version break."""
    first = next(iter(top), None)
    # Verify no key sorts before "#": such a message is for a future major version
    require(first is None or first >= SEQNO_KEY, Reason.MSG_VERSION_BREAK, repr(first))
    # Verify "#" is present and an integer
    require(first == SEQNO_KEY, Reason.MSG_MISSING_SEQNO)
    seqno = top[SEQNO_KEY]
    require(isinstance(seqno, int), Reason.MSG_BAD_SEQNO)
    assert isinstance(seqno, int)
    return seqno


def check_data_field(top: dict[bytes, BtValue]) -> dict[bytes, BtValue]:
    """`&` is required and holds a dict (D8); its contents are checked by `check_data` (D11)."""
    # Verify "&" is present and a dict
    require(DATA_KEY in top, Reason.MSG_MISSING_DATA)
    value = top[DATA_KEY]
    require(isinstance(value, dict), Reason.MSG_BAD_DATA)
    assert isinstance(value, dict)
    return value


def check_top_level_keys(top: dict[bytes, BtValue]) -> None:
    """No key sorts after `~`, and at least one key sorts at or after `=` (D8, D17)."""
    last = next(reversed(top))
    # Verify nothing follows the signature position
    require(last <= SIGNATURE_KEY, Reason.MSG_KEY_AFTER_SIGNATURE, repr(last))
    # Verify the message reaches the "=" position (the deployed client requires it)
    require(last >= DIFF_KEY, Reason.MSG_ENDS_BEFORE_DIFF)


def check_lagged(value: BtValue, seqno: int, lag: int) -> list[LaggedEntry]:
    """`<` lists [seqno, hash, diff] entries; entries outside the window are dropped as soon as
    their seqno is read, the kept ones are checked and strictly ascending (D7)."""
    # Verify "<" is a list
    require(isinstance(value, list), Reason.LAGGED_NOT_LIST)
    assert isinstance(value, list)
    kept: list[LaggedEntry] = []
    for item in value:
        # Verify the entry starts with an integer seqno
        require(
            isinstance(item, list) and item != [] and isinstance(item[0], int),
            Reason.LAGGED_BAD_ENTRY,
        )
        assert isinstance(item, list) and isinstance(item[0], int)
        if not in_window(item[0], seqno, lag):
            continue
        kept.append(check_lagged_entry(item, seqno))
        # Verify the kept entries ascend strictly by (seqno, hash)
        require(len(kept) < 2 or kept[-2][:2] < kept[-1][:2], Reason.LAGGED_UNSORTED, f"{item[0]}")
    return kept


def check_lagged_entry(item: list[BtValue], seqno: int) -> LaggedEntry:
    """A kept entry is exactly [int, 32-byte hash, diff] with seqno below the message's (D7)."""
    # Verify the shape [int, bytes, dict]
    require(
        len(item) == 3 and isinstance(item[1], bytes) and isinstance(item[2], dict),
        Reason.LAGGED_BAD_ENTRY,
    )
    entry_seqno, entry_hash, entry_diff = item
    assert isinstance(entry_seqno, int) and isinstance(entry_hash, bytes)
    # Verify the hash is 32 bytes
    require(len(entry_hash) == 32, Reason.LAGGED_BAD_HASH, f"{len(entry_hash)} bytes")
    # Verify the entry is older than the message
    require(entry_seqno < seqno, Reason.LAGGED_SEQNO_TOO_HIGH, f"{entry_seqno} >= {seqno}")
    return LaggedEntry(entry_seqno, entry_hash, check_diff(entry_diff))


def check_signature_field(top: dict[bytes, BtValue]) -> bytes | None:
    """`~`, when present, is exactly 64 bytes, checked even when nothing verifies (D17)."""
    if SIGNATURE_KEY not in top:
        return None
    signature = top[SIGNATURE_KEY]
    # Verify the signature is a 64-byte string
    require(
        isinstance(signature, bytes) and len(signature) == SIGNATURE_LENGTH,
        Reason.SIG_MALFORMED,
    )
    assert isinstance(signature, bytes)
    return signature


def verify_signature(data: bytes, signature: bytes | None, verify_key: bytes) -> None:
    """Where verification is required, a message without a valid signature is invalid (D17)."""
    # Verify a signature is present
    require(signature is not None, Reason.SIG_MISSING)
    # Verify it is valid for the key
    require(signature_is_valid(data, verify_key), Reason.SIG_INVALID)
