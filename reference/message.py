"""Config messages: parsing in the contract's order of checks, editing, increment, serializing."""

from __future__ import annotations

import hashlib
from typing import Any, NamedTuple

from swarmconf.spec.reasons import ConfigError, Reason, UsageError

from . import bt, crypto
from .data import (
    Data,
    Diff,
    check_data,
    check_diff,
    check_writer_limits,
    encode_data,
    make_diff,
    pruned_copy,
)

_SIG_TAIL = len(b"1:~64:") + crypto.SIGNATURE_SIZE + 1


class LaggedEntry(NamedTuple):
    """One `<` entry: an earlier update's seqno, message hash and diff (D7)."""

    seqno: int
    hash: bytes
    diff: Diff


def blake2b(data: bytes) -> bytes:
    """The unkeyed BLAKE2b-256 message hash (D1)."""
    return hashlib.blake2b(data, digest_size=32).digest()


def check_lag(lag: object) -> int:
    if type(lag) is not int or lag < 1:
        raise UsageError(Reason.BAD_LAG, repr(lag))
    return lag


def _check_seqno(seqno: object) -> int:
    if type(seqno) is not int:
        raise UsageError(Reason.BAD_VALUE_TYPE, "a seqno is an int")
    if not bt.INT64_MIN <= seqno <= bt.INT64_MAX:
        raise UsageError(Reason.INT_OUT_OF_RANGE, str(seqno))
    return seqno


class ConfigMessage:
    """A parsed (read-only) or editable config message; see the API contract."""

    __slots__ = (
        "_base",
        "_base_encoded",
        "_diff",
        "_hash",
        "_sign_secret",
        "_verified",
        "data",
        "extra",
        "lag",
        "lagged",
        "merged",
        "seqno",
        "signature",
    )

    def __init__(
        self,
        seqno: int,
        data: Data,
        lagged: list[LaggedEntry],
        *,
        lag: int,
        extra: dict[bytes, bytes] | None = None,
        merged: bool = False,
    ) -> None:
        self.seqno = seqno
        self.data = data
        self.lagged = lagged
        self.lag = lag
        self.extra = extra if extra is not None else {}
        self.merged = merged
        self.signature: bytes | None = None
        self._verified = False
        self._sign_secret: bytes | None = None
        # Parsed messages: the stored diff and hash. Editable ones: the data at creation.
        self._diff: Diff | None = None
        self._hash: bytes | None = None
        self._base: Data | None = None
        self._base_encoded = b""

    @classmethod
    def new(cls, seqno: int, *, lag: int = 5) -> ConfigMessage:
        """An editable message with empty data and no history."""
        msg = cls(_check_seqno(seqno), {}, [], lag=check_lag(lag))
        msg._start_editing(b"de", {})
        return msg

    def _start_editing(self, encoded: bytes, base: Data | None) -> None:
        """Make this message editable, its diff counted from the data encoded as `encoded`."""
        self._base_encoded = encoded
        self._base = base

    @property
    def editable(self) -> bool:
        return self._hash is None

    @property
    def diff(self) -> Diff:
        """The stored `=` of a parsed message; the diff of the edits so far for an editable one."""
        if self._diff is not None:
            return self._diff
        return self._current()[1]

    @property
    def hash(self) -> bytes:
        """BLAKE2b-256 of the message bytes (D1)."""
        if self._hash is not None:
            return self._hash
        return blake2b(self.serialize())

    def _current(self) -> tuple[bytes, Diff]:
        """(encoded data, diff since creation) of an editable message, writer limits checked."""
        encoded = encode_data(self.data)
        if encoded == self._base_encoded:
            return encoded, {}
        if self._base is None:
            self._base = bt.decode(self._base_encoded)
            check_data(self._base)
        now = pruned_copy(self.data)
        diff = make_diff(self._base, now)
        check_writer_limits(diff, now)
        return encoded, diff

    def increment(self) -> ConfigMessage:
        """An editable successor: seqno + 1, this message's diff appended to `lagged` (D13)."""
        if self.seqno >= bt.INT64_MAX:
            raise UsageError(Reason.SEQNO_OVERFLOW, str(self.seqno))
        if self._hash is None:
            encoded, diff = self._current()
            own = self._serialize(encoded, diff, self._sign_secret)
            own_hash = blake2b(own)
        else:
            encoded, diff, own_hash = encode_data(self.data), self.diff, self._hash
        seqno = self.seqno + 1
        floor = seqno - self.lag
        lagged = [e for e in self.lagged if e.seqno > floor]
        lagged.append(LaggedEntry(self.seqno, own_hash, diff))
        msg = ConfigMessage(
            seqno, pruned_copy(self.data), lagged, lag=self.lag, extra=dict(self.extra)
        )
        msg._start_editing(encoded, None)
        return msg

    def serialize(self, sign_key: bytes | None = None) -> bytes:
        """The canonical message bytes, keys in order (D8, D9, D17); signed with `sign_key`."""
        secret = crypto.signing_secret(sign_key) if sign_key is not None else self._sign_secret
        if self._hash is None:
            encoded, diff = self._current()
            return self._serialize(encoded, diff, secret)
        if secret is None and self._verified and self.signature is not None:
            body = self._body(encode_data(self.data), self.diff)
            return body + b"1:~64:" + self.signature + b"e"
        return self._serialize(encode_data(self.data), self.diff, secret)

    def _body(self, encoded: bytes, diff: Diff) -> bytes:
        """The serialization up to, not including, the signature pair and the final `e`."""
        lagged_out = [b"l"]
        for entry in self.lagged:
            lagged_out += (b"li%de32:" % entry.seqno, entry.hash)
            bt.encode_into(entry.diff, lagged_out)
            lagged_out.append(b"e")
        lagged_out.append(b"e")
        fields = {b"&": encoded, b"<": b"".join(lagged_out), b"=": bt.encode(diff)}
        fields.update(self.extra)
        out = [b"d1:#i%de" % self.seqno]
        for key in sorted(fields):
            out += (b"%d:" % len(key), key, fields[key])
        return b"".join(out)

    def _serialize(self, encoded: bytes, diff: Diff, secret: bytes | None) -> bytes:
        body = self._body(encoded, diff)
        if secret is None:
            return body + b"e"
        return body + b"1:~64:" + crypto.sign(body, secret) + b"e"

    def __repr__(self) -> str:
        kind = "merged" if self.merged else "editable" if self.editable else "parsed"
        return f"<ConfigMessage {kind} seqno={self.seqno} hash={self.hash.hex()[:16]}>"


def _check_top(top: Any) -> None:
    """The outer structure checks, step 2 of the contract (D8)."""
    if type(top) is not dict:
        raise ConfigError(Reason.MSG_NOT_DICT)
    first = next(iter(top), None)
    if first is not None and first < b"#":
        raise ConfigError(Reason.MSG_VERSION_BREAK, repr(first))
    if first != b"#":
        raise ConfigError(Reason.MSG_MISSING_SEQNO)
    if type(top[b"#"]) is not int:
        raise ConfigError(Reason.MSG_BAD_SEQNO)
    if b"&" not in top:
        raise ConfigError(Reason.MSG_MISSING_DATA)
    if type(top[b"&"]) is not dict:
        raise ConfigError(Reason.MSG_BAD_DATA)
    last = next(reversed(top))
    if last > b"~":
        raise ConfigError(Reason.MSG_KEY_AFTER_SIGNATURE, repr(last))
    if last < b"=":
        raise ConfigError(Reason.MSG_ENDS_BEFORE_DIFF)


def _check_lagged(raw: Any, seqno: int, lag: int) -> list[LaggedEntry]:
    """The kept lagged entries (D7), step 4 of the contract."""
    if type(raw) is not list:
        raise ConfigError(Reason.LAGGED_NOT_LIST)
    floor = seqno - lag
    kept: list[LaggedEntry] = []
    prev: tuple[int, bytes] | None = None
    for index, entry in enumerate(raw):
        if type(entry) is not list or not entry or type(entry[0]) is not int:
            raise ConfigError(Reason.LAGGED_BAD_ENTRY, f"entry {index}")
        if entry[0] <= floor:
            continue
        if len(entry) != 3 or type(entry[1]) is not bytes or type(entry[2]) is not dict:
            raise ConfigError(Reason.LAGGED_BAD_ENTRY, f"entry {index}")
        entry_seqno, entry_hash, diff = entry
        if len(entry_hash) != 32:
            raise ConfigError(Reason.LAGGED_BAD_HASH, f"entry {index}")
        if entry_seqno >= seqno:
            raise ConfigError(Reason.LAGGED_SEQNO_TOO_HIGH, f"entry {index}")
        check_diff(diff)
        if prev is not None and (entry_seqno, entry_hash) <= prev:
            raise ConfigError(Reason.LAGGED_UNSORTED, f"entry {index}")
        prev = (entry_seqno, entry_hash)
        kept.append(LaggedEntry(entry_seqno, entry_hash, diff))
    return kept


def parse(data: bytes, *, lag: int = 5, verify_key: bytes | None = None) -> ConfigMessage:
    """Parse and validate one plaintext message; `ConfigError` with the first failing check."""
    check_lag(lag)
    if verify_key is not None:
        crypto.check_verify_key(verify_key)
    raw = bytes(data)
    top = bt.decode_message(raw)
    _check_top(top)
    seqno: int = top[b"#"]
    check_data(top[b"&"])
    lagged = _check_lagged(top[b"<"], seqno, lag) if b"<" in top else []
    diff = top.get(b"=", {})
    check_diff(diff)
    signature = top.get(b"~")
    if signature is not None and (type(signature) is not bytes or len(signature) != 64):
        raise ConfigError(Reason.SIG_MALFORMED)
    verified = False
    if verify_key is not None:
        if signature is None:
            raise ConfigError(Reason.SIG_MISSING)
        if not crypto.verify(raw[:-_SIG_TAIL], signature, verify_key):
            raise ConfigError(Reason.SIG_INVALID)
        verified = True
    extra = {k: bt.encode(v) for k, v in top.items() if k not in bt.KNOWN_KEYS}
    msg = ConfigMessage(seqno, top[b"&"], lagged, lag=lag, extra=extra)
    msg._diff = diff
    msg._hash = blake2b(raw)
    msg.signature = signature
    msg._verified = verified
    return msg
