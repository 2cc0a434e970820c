"""Config messages: parsing in the contract's order of checks, editing, increment, serializing."""

from __future__ import annotations

import hashlib
from typing import Any, NamedTuple

from swarmconf.spec.configmerge.reasons import ConfigError, Reason, UsageError

from . import bt, crypto
from .data import (
    Data,
    Diff,
    check_bounds,
    check_data,
    check_diff,
    check_writer_limits,
    encode_data,
    encode_diff,
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
        "_cache",
        "_diff",
        "_hash",
        "_sign_secret",
        "_signature",
        "_verified",
        "data",
        "extra",
        "lag",
        "lagged",
        "merged",
        "seqno",
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
        self._signature: bytes | None = None
        self._verified = False
        self._sign_secret: bytes | None = None
        # Parsed messages: the stored diff and hash.
        self._diff: Diff | None = None
        self._hash: bytes | None = None
        # Editable messages: the (pruned) data at creation, never handed out, and the last
        # serialization as (encoded data, signing secret, bytes).
        self._base: Data = {}
        self._cache: tuple[bytes, bytes | None, bytes] | None = None

    @classmethod
    def new(cls, seqno: int, *, lag: int = 5) -> ConfigMessage:
        """An editable message with empty data and no history."""
        lag = check_lag(lag)
        return cls(_check_seqno(seqno), {}, [], lag=lag)

    @classmethod
    def editable_from(
        cls, base: Data, seqno: int, lagged: list[LaggedEntry], **kwargs: Any
    ) -> ConfigMessage:
        """An editable message whose data starts as a copy of `base` (pruned, kept private)."""
        msg = cls(seqno, pruned_copy(base), lagged, **kwargs)
        msg._base = base
        return msg

    @property
    def editable(self) -> bool:
        return self._hash is None

    @property
    def signature(self) -> bytes | None:
        """The `~` of a parsed message (None for editable ones, which are signed on output)."""
        return self._signature

    @property
    def diff(self) -> Diff:
        """The stored `=` of a parsed message; the diff of the edits so far for an editable one."""
        if self._diff is not None:
            return self._diff
        encode_data(self.data)  # the type and range checks
        return self._edits()

    @property
    def hash(self) -> bytes:
        """BLAKE2b-256 of the message bytes (D1)."""
        if self._hash is not None:
            return self._hash
        return blake2b(self.serialize())

    def _edits(self, limits: bool = False) -> Diff:
        """The diff since creation (D12) of an editable message whose data encoded fine; with
        `limits`, the writer limits on what it adds (D11)."""
        if self.data == self._base:
            return {}
        now = pruned_copy(self.data)
        diff = make_diff(self._base, now)
        if limits:
            check_writer_limits(diff, now)
        return diff

    def increment(self) -> ConfigMessage:
        """An editable successor: seqno + 1, this message's diff appended to `lagged` (D13)."""
        if self.seqno >= bt.INT64_MAX:
            raise UsageError(Reason.SEQNO_OVERFLOW, str(self.seqno))
        own_hash, diff = self.hash, self.diff
        seqno = self.seqno + 1
        floor = seqno - self.lag
        lagged = [e for e in self.lagged if e.seqno > floor]
        if self.seqno > floor:  # not with lag 1: the window holds nothing then (D7)
            lagged.append(LaggedEntry(self.seqno, own_hash, diff))
        return ConfigMessage.editable_from(
            pruned_copy(self.data), seqno, lagged, lag=self.lag, extra=dict(self.extra)
        )

    def serialize(self, sign_key: bytes | None = None) -> bytes:
        """The canonical message bytes, keys in order (D8, D9, D17); signed with `sign_key`."""
        secret = crypto.signing_secret(sign_key) if sign_key is not None else self._sign_secret
        encoded = encode_data(self.data)
        if self._hash is not None:
            if secret is None and self._verified and self._signature is not None:
                return self._body(encoded, self.diff) + b"1:~64:" + self._signature + b"e"
            return self._serialize(encoded, self.diff, secret)
        cache = self._cache
        if cache is not None and cache[0] == encoded and cache[1] == secret:
            return cache[2]
        out = self._serialize(encoded, self._edits(limits=True), secret)
        self._cache = (encoded, secret, out)
        self._sign_secret = secret  # an editable message signed once is hashed signed (D1)
        return out

    def _body(self, encoded: bytes, diff: Diff) -> bytes:
        """The serialization up to, not including, the signature pair and the final `e`."""
        lagged_out = [b"l"]
        for entry in self.lagged:
            lagged_out += (b"li%de32:" % entry.seqno, entry.hash)
            lagged_out.append(encode_diff(entry.diff))
            lagged_out.append(b"e")
        lagged_out.append(b"e")
        fields = {b"&": encoded, b"<": b"".join(lagged_out), b"=": encode_diff(diff)}
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
    """Parse and validate one plaintext message; `ConfigError` with the first failing check.

    The compiled decoder, when present, handles valid input; anything it or the checks refuse
    is parsed again by the strict pure decoder, which reports the first violation in order.
    """
    check_lag(lag)
    if verify_key is not None:
        crypto.check_verify_key(verify_key)
    raw = bytes(data)
    top = bt.decode_fast(raw)
    if top is not None:
        try:
            return _build(raw, top, lag, verify_key, bounds=True)
        except ConfigError as exc:
            if exc.reason not in _BOUNDS_REASONS and _in_bounds(top):
                raise  # the input is canonical bt: this is the first failing check
    return _build(raw, bt.decode_message(raw), lag, verify_key, bounds=False)


_BOUNDS_REASONS = (Reason.BT_INTEGER_RANGE, Reason.BT_TOO_DEEP)


def _in_bounds(top: Any) -> bool:
    """Whether a decoded message holds no integer out of range and nothing too deep (D9, D10)."""
    try:
        if type(top) is dict:
            for key, value in top.items():
                check_bounds(value, 2, bt.INT64_MAX if key in bt.KNOWN_KEYS else bt.UINT64_MAX)
        else:
            check_bounds(top, 1)
    except ConfigError:
        return False
    return True


def _build(
    raw: bytes, top: Any, lag: int, verify_key: bytes | None, *, bounds: bool
) -> ConfigMessage:
    """Steps 2..6 of the contract's checks on the decoded `top`; with `bounds`, also D10's
    integer ranges and nesting limit, which the compiled decoder does not check."""
    _check_top(top)
    if bounds:
        for key, value in top.items():
            if key != b"&":
                check_bounds(value, 2, bt.INT64_MAX if key in bt.KNOWN_KEYS else bt.UINT64_MAX)
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
    msg._signature = signature
    msg._verified = verified
    return msg
