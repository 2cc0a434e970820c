"""Config messages: parsing in the contract's order of checks, editing, increment, serializing."""

from __future__ import annotations

import hashlib
from typing import Any, Final, NamedTuple

from swarmconf.spec.configmerge.reasons import ConfigError, Reason, UsageError

from . import bt, crypto, splice
from .data import (
    BtData,
    Data,
    Diff,
    check_bounds,
    check_data,
    check_diff,
    check_writer_limits,
    from_bt,
    make_diff,
    to_bt,
)

# What a message may be received as (the compiled module checks argument types).
Received = bytes | bytearray | memoryview
_SIG_TAIL: Final = len(b"1:~64:") + crypto.SIGNATURE_SIZE + 1
_new_tuple = tuple.__new__


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
    """A parsed (read-only) or editable config message; see the API contract.

    The data is kept in bt form (`data.BtData`), as decoded or merged, and is turned into dicts
    and sets only when `data` is read. A parsed message is read-only: its `data` is a copy to
    read, and `increment()` gives the editable successor. An editable message's `data` may be
    changed in place; its `diff` is the D12 diff from its data at creation (D13).
    """

    __slots__ = (
        "_bt",
        "_cache",
        "_data",
        "_diff",
        "_hash",
        "_included_ranks",
        "_layout",
        "_raw",
        "_raw_lagged",
        "_received",
        "_sign_secret",
        "_signature",
        "_verified",
        "extra",
        "lag",
        "lagged",
        "merged",
        "seqno",
    )

    def __init__(
        self,
        seqno: int,
        data: BtData,
        lagged: list[LaggedEntry],
        *,
        lag: int,
        extra: dict[bytes, bytes] | None = None,
        merged: bool = False,
    ) -> None:
        self.seqno = seqno
        self.lagged = lagged
        self.lag = lag
        self.extra = extra if extra is not None else {}
        self.merged = merged
        self._signature: bytes | None = None
        self._verified = False
        self._sign_secret: bytes | None = None
        # The data in bt form, never changed: a parsed message's, or an editable one's at
        # creation; and the dicts and sets handed out as `data`, made on first use.
        self._bt = data
        self._data: Data | None = None
        # Parsed messages: the stored diff and hash, and the bytes received when serializing
        # writes them back unchanged (every field kept, nothing dropped).
        self._diff: Diff | None = None
        self._hash: bytes | None = None
        self._raw: bytes | None = None
        # The bytes received, the `<` list as decoded and where the data entries lie (found
        # when first needed; False when not the usual layout), for `parse_alike`.
        self._received: bytes | None = None
        self._raw_lagged: list[Any] | None = None
        self._layout: splice.Layout | bool | None = None
        # Editable messages: the last serialization as (data in bt form, signing secret, bytes).
        self._cache: tuple[BtData, bytes | None, bytes] | None = None
        # Parsed messages: the (seqno, hash) of the lagged entries, made for the first merge.
        self._included_ranks: frozenset[tuple[int, bytes]] | None = None

    @classmethod
    def new(cls, seqno: object, *, lag: object = 5) -> ConfigMessage:
        """An editable message with empty data and no history.

        The public arguments are typed `object`: any value is taken, and refused with a reason
        code unless it is of the type the contract names.
        """
        checked_lag = check_lag(lag)
        return cls(_check_seqno(seqno), {}, [], lag=checked_lag)

    @property
    def data(self) -> Data:
        """The data as dicts and sets (D11), made from the bt form on first use."""
        if self._data is None:
            self._data = from_bt(self._bt)
        return self._data

    @data.setter
    def data(self, value: Data) -> None:
        self._data = value

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
        return self._state(limits=False)[1]

    @property
    def hash(self) -> bytes:
        """BLAKE2b-256 of the message bytes (D1)."""
        if self._hash is not None:
            return self._hash
        return blake2b(self.serialize())

    def _included(self) -> frozenset[tuple[int, bytes]]:
        """The (seqno, hash) of the lagged entries (D14); a parsed message, never changed, keeps
        them for the next merges it is an input of."""
        if self._included_ranks is not None:
            return self._included_ranks
        ranks = frozenset([e[:2] for e in self.lagged])
        if self._hash is not None:
            self._included_ranks = ranks
        return ranks

    def _state(self, limits: bool) -> tuple[BtData, Diff]:
        """(data in bt form, the diff since creation) of an editable message, the types and
        ranges checked; with `limits`, the writer limits on what the diff adds (D11)."""
        if self._data is None:
            return self._bt, {}
        now = to_bt(self._data)
        if now == self._bt:  # compared at C speed
            return now, {}
        diff = make_diff(self._bt, now)
        if limits:
            check_writer_limits(diff, now)
        return now, diff

    def increment(self) -> ConfigMessage:
        """An editable successor: seqno + 1, this message's diff appended to `lagged` (D13)."""
        if self.seqno >= bt.INT64_MAX:
            raise UsageError(Reason.SEQNO_OVERFLOW, str(self.seqno))
        if self._hash is None:
            data, diff = self._state(limits=False)
            own_hash = self.hash
        else:
            data, diff, own_hash = self._bt, self.diff, self._hash
        seqno = self.seqno + 1
        floor = seqno - self.lag
        lagged = [e for e in self.lagged if e.seqno > floor]
        if self.seqno > floor:  # not with lag 1: the window holds nothing then (D7)
            lagged.append(LaggedEntry(self.seqno, own_hash, diff))
        return ConfigMessage(seqno, data, lagged, lag=self.lag, extra=dict(self.extra))

    def serialize(self, sign_key: object = None) -> bytes:
        """The canonical message bytes, keys in order (D8, D9, D17); signed with `sign_key`."""
        secret = crypto.signing_secret(sign_key) if sign_key is not None else self._sign_secret
        if self._hash is not None:
            return self._serialize_parsed(secret)
        data, diff = self._state(limits=True)
        cache = self._cache
        if cache is not None and cache[1] == secret and cache[0] == data:
            return cache[2]
        out = self._sign(self._body(data, diff), secret)
        self._cache = (data, secret, out)
        self._sign_secret = secret  # an editable message signed once is hashed signed (D1)
        return out

    def _serialize_parsed(self, secret: bytes | None) -> bytes:
        """A parsed message's bytes: those received when nothing was dropped (D7, D17)."""
        keep = secret is None and self._verified and self._signature is not None
        raw = self._raw
        if raw is not None and secret is None:
            if keep or self._signature is None:
                return raw
            return raw[:-_SIG_TAIL] + b"e"
        body = self._body(self._bt, self.diff)
        if keep:
            assert self._signature is not None
            return body + b"1:~64:" + self._signature + b"e"
        return self._sign(body, secret)

    def _body(self, data: BtData, diff: Diff) -> bytes:
        """The serialization up to, not including, the signature pair and the final `e`."""
        fields: dict[bytes, Any] = {
            b"#": self.seqno,
            b"&": data,
            b"<": self.lagged,  # entries are tuples, encoded as lists
            b"=": diff,
        }
        if not self.extra:
            return bt.encode_fast(fields)[:-1]  # one encoding; the `e` closes it after `~`
        encoded = {key: bt.encode_fast(value) for key, value in fields.items()}
        encoded.update(self.extra)  # unknown keys, kept encoded and in place (D9)
        out = [b"d"]
        for key in sorted(encoded):
            out += (b"%d:" % len(key), key, encoded[key])
        return b"".join(out)

    @staticmethod
    def _sign(body: bytes, secret: bytes | None) -> bytes:
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


def _check_lagged(raw: Any, seqno: int, lag: int, checked: list[LaggedEntry]) -> list[LaggedEntry]:
    """The kept lagged entries (D7), step 4 of the contract; diffs equal to that of the entry
    with the same seqno and hash in `checked`, entries already validated, are valid too."""
    known = {e[:2]: e[2] for e in checked}
    if type(raw) is not list:
        raise ConfigError(Reason.LAGGED_NOT_LIST)
    floor = seqno - lag
    kept: list[LaggedEntry] = []
    prev: tuple[int, bytes] | None = None
    for index, entry in enumerate(raw):
        if type(entry) is not list or not entry or type(entry[0]) is not int:
            raise ConfigError(Reason.LAGGED_BAD_ENTRY, f"entry {index}")
        if entry[0] <= floor:
            check_bounds(entry, 3)  # dropped unread, but within the limits (D10)
            continue
        if len(entry) != 3 or type(entry[1]) is not bytes or type(entry[2]) is not dict:
            raise ConfigError(Reason.LAGGED_BAD_ENTRY, f"entry {index}")
        entry_seqno, entry_hash, diff = entry
        if len(entry_hash) != 32:
            raise ConfigError(Reason.LAGGED_BAD_HASH, f"entry {index}")
        if entry_seqno >= seqno:
            raise ConfigError(Reason.LAGGED_SEQNO_TOO_HIGH, f"entry {index}")
        if entry_seqno < bt.INT64_MIN:
            raise ConfigError(Reason.BT_INTEGER_RANGE, f"entry {index}")
        key = (entry_seqno, entry_hash)
        if not known or known.get(key) != diff:
            check_diff(diff, 4)
        if prev is not None and key <= prev:
            raise ConfigError(Reason.LAGGED_UNSORTED, f"entry {index}")
        prev = key
        kept.append(_new_tuple(LaggedEntry, entry))  # as LaggedEntry(*entry), at C speed
    return kept


def parse(data: Received, *, lag: object = 5, verify_key: object = None) -> ConfigMessage:
    """Parse and validate one plaintext message; `ConfigError` with the first failing check.

    The compiled decoder, when present, handles valid input; anything it or the checks refuse
    is parsed again by the strict pure decoder, which reports the first violation in order.
    """
    checked_lag = check_lag(lag)
    key = crypto.check_verify_key(verify_key) if verify_key is not None else None
    return parse_alike(data, checked_lag, key, None)


def parse_alike(
    data: Received,
    lag: int,
    verify_key: bytes | None,
    alike: ConfigMessage | None,
    shared: bool = False,
) -> ConfigMessage:
    """`parse` with the arguments already checked, taking as valid the data subtrees and the
    lagged entries equal to those of `alike`, a message parsed before with the same `lag`: the
    inputs of a merge share most of their data and history. With `shared` (several more inputs
    to come), a large message is decoded sharing the data entries it has in common with `alike`.
    """
    raw = bytes(data)
    spliced = _decode_alike(raw, alike) if alike is not None and shared else None
    top, layout = spliced if spliced is not None else (bt.decode_fast(raw), None)
    if top is not None:
        try:
            spliced_data = layout is not None
            msg = _build(raw, top, lag, verify_key, bounds=True, alike=alike, spliced=spliced_data)
            msg._layout = layout
            return msg
        except ConfigError as exc:
            if exc.reason not in _BOUNDS_REASONS and _in_bounds(top):
                raise  # the input is canonical bt: this is the first failing check
    return _build(raw, bt.decode_message(raw), lag, verify_key, bounds=False, alike=alike)


def _decode_alike(raw: bytes, alike: ConfigMessage) -> tuple[Any, splice.Layout] | None:
    """`raw` decoded sharing the data entries it has in common with `alike`, if laid out alike."""
    if alike._layout is None and alike._received is not None:
        if len(alike._received) < splice.MIN_SIZE:
            alike._layout = False
            return None
        found = splice.layout(alike._received, alike._bt, alike._raw_lagged)
        alike._layout = found if found is not None else False
    if type(alike._layout) is not splice.Layout:
        return None
    return splice.decode_alike(raw, alike._layout)


_BOUNDS_REASONS: Final = (Reason.BT_INTEGER_RANGE, Reason.BT_TOO_DEEP)
_CHECKED_WITH_CONTENTS: Final = frozenset((b"&", b"<", b"="))
# The keys of the usual message, unsigned and signed: none unknown (D9).
_PLAIN_KEYS: Final = frozenset((b"#", b"&", b"<", b"="))
_SIGNED_KEYS: Final = _PLAIN_KEYS | {b"~"}


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
    raw: bytes,
    top: Any,
    lag: int,
    verify_key: bytes | None,
    *,
    bounds: bool,
    alike: ConfigMessage | None,
    spliced: bool = False,
) -> ConfigMessage:
    """Steps 2..6 of the contract's checks on the decoded `top`; with `bounds`, also D10's
    integer ranges and nesting limit, which the compiled decoder does not check. What equals
    the data or a lagged entry of `alike`, a message already validated, is valid too; with
    `spliced`, the data entries equal to `alike`'s are its very objects."""
    _check_top(top)
    seqno: int = top[b"#"]
    usual = top.keys() == _PLAIN_KEYS or top.keys() == _SIGNED_KEYS
    if bounds:  # `&`, `<` and `=` are checked with their contents below
        if usual:
            if seqno < bt.INT64_MIN or seqno > bt.INT64_MAX:
                raise ConfigError(Reason.BT_INTEGER_RANGE)
        else:
            for key, value in top.items():
                if key not in _CHECKED_WITH_CONTENTS:
                    high = bt.INT64_MAX if key in bt.KNOWN_KEYS else bt.UINT64_MAX
                    check_bounds(value, 2, high)
    if alike is None:
        check_data(top[b"&"])
    else:
        check_data(top[b"&"], checked=alike._bt, shared=spliced)
    raw_lagged = top.get(b"<")
    if raw_lagged is None:
        lagged: list[LaggedEntry] = []
    elif alike is not None and seqno == alike.seqno and raw_lagged == alike._raw_lagged:
        lagged = list(alike.lagged)  # the same entries, kept alike
    else:
        lagged = _check_lagged(raw_lagged, seqno, lag, alike.lagged if alike is not None else [])
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
    extra = {} if usual else {k: bt.encode(v) for k, v in top.items() if k not in bt.KNOWN_KEYS}
    msg = ConfigMessage(seqno, top[b"&"], lagged, lag=lag, extra=extra)
    msg._diff = diff
    msg._hash = blake2b(raw)
    msg._signature = signature
    msg._verified = verified
    msg._raw_lagged = raw_lagged
    msg._received = raw
    if raw_lagged is not None and b"=" in top and len(lagged) == len(raw_lagged):
        msg._raw = raw
    return msg
