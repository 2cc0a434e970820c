"""The deployed client's bt decoding, as decisions.md and its source describe it (X1, X3, X7, X14).

It accepts what swarmconf's strict decoder refuses in these ways only: integers with leading
zeros or `-0`, string lengths with leading zeros, unsorted or duplicate keys inside unknown
top-level values (the first value of a duplicate wins), bytes after the message's final `e`
(X1), and any nesting depth (X7). Integers must fit in signed 64 bits, except inside unknown
top-level values, where they may reach 2^64-1 (D9). Inside the set diffs of `=` and `<` it
checks neither key order nor integer range (X14): keys may repeat or come unsorted, integers
reach 2^64-1; the keys of a diff's own dicts must be in order (`load_diff`). `loops` says where
its parse never returns (X3).
Everything else it refuses.

Most inputs need none of these leniencies: `decode_message` reads each input once with
swarmconf's compiled strict decoder, and reads it leniently only where that decoder meets
something a leniency may excuse (see `REFUSED_ALIKE`).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from swarmconf.reference.configmerge import bt as strict_bt
from swarmconf.spec.configmerge.reasons import ConfigError, Reason

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
UINT64_MAX = 2**64 - 1
KNOWN_KEYS = frozenset({b"#", b"&", b"<", b"=", b"~"})
UNCHECKED_KEYS = frozenset({b"<", b"="})
"""Top-level keys whose values the deployed client reads without bt's checks (X14)."""
STRICT_DEPTH = 64
"""swarmconf's nesting limit (D10); the deployed client has none (X7)."""
REFUSED_ALIKE = frozenset(
    (
        Reason.BT_TRUNCATED,
        Reason.BT_UNKNOWN_TYPE,
        Reason.BT_BAD_INTEGER,
        Reason.BT_BAD_STRING_LENGTH,
        Reason.BT_KEY_NOT_STRING,
    )
)
"""The strict decoder's first violations that the lenient reading meets too, at the same byte:
before it the strict decoder found nothing a leniency excuses, so both read the bytes alike."""


class LenientDecodeError(ValueError):
    """Input the deployed client refuses as bt; `strict` is swarmconf's refusal of it, when
    known."""

    def __init__(self, detail: str, strict: ConfigError | None = None) -> None:
        super().__init__(detail)
        self.strict = strict


@dataclass
class Decoded:
    """A decoded message and how far it strays from canonical bt."""

    value: Any
    canonical: bool
    """False when an X1 leniency was used (including trailing bytes)."""
    deep: bool
    """Lists and dicts nest deeper than `STRICT_DEPTH` (the top level counting 1)."""
    unchecked: bool = False
    """True when `=` or `<` holds what only the X14 leniency lets through."""


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0
        self.canonical = True
        self.unchecked = False
        self.in_diff = False
        self.in_set = False
        """Inside a list in `=` or `<`: a set diff, read whole as bt values (X14)."""
        self.depth = 0

    def byte(self) -> int:
        if self.pos >= len(self.data):
            raise LenientDecodeError("truncated")
        return self.data[self.pos]

    def digits(self, end: bytes) -> int:
        """Decimal digits up to `end`, leading zeros allowed (X1)."""
        stop = self.data.find(end, self.pos)
        if stop < 0:
            raise LenientDecodeError("truncated")
        text = self.data[self.pos : stop]
        negative = text.startswith(b"-")
        body = text[1:] if negative else text
        if not body or not body.isdigit() or len(body.lstrip(b"0")) > 20:
            raise LenientDecodeError(f"bad or overlong number {text[:30]!r}")
        if (len(body) > 1 and body.startswith(b"0")) or (negative and body.strip(b"0") == b""):
            self.canonical = False
        self.pos = stop + 1
        number = int(body)
        return -number if negative else number

    def value(self, depth: int, high: int, lenient_keys: bool) -> Any:
        kind = self.byte()
        if kind == ord("i"):
            self.pos += 1
            number = self.digits(b"e")
            in_range = INT64_MIN <= number <= high
            if self.in_diff and not in_range and INT64_MIN <= number <= UINT64_MAX:
                self.unchecked = True  # no range check inside `=` and `<` (X14)
            elif not in_range:
                raise LenientDecodeError(f"integer {number} out of range")
            return number
        if ord("0") <= kind <= ord("9"):
            length = self.digits(b":")
            if length < 0 or self.pos + length > len(self.data):
                raise LenientDecodeError("truncated string")
            self.pos += length
            return self.data[self.pos - length : self.pos]
        if kind in (ord("l"), ord("d")):
            self.pos += 1
            self.depth = max(self.depth, depth)
            if kind == ord("l"):
                return self.items(depth, high, lenient_keys)
            return self.dict(depth, high, lenient_keys)
        raise LenientDecodeError(f"unknown type {bytes([kind])!r}")

    def items(self, depth: int, high: int, lenient_keys: bool) -> list[Any]:
        out = []
        in_set, self.in_set = self.in_set, self.in_diff
        while self.byte() != ord("e"):
            out.append(self.value(depth + 1, high, lenient_keys))
        self.in_set = in_set
        self.pos += 1
        return out

    def dict(self, depth: int, high: int, lenient_keys: bool) -> dict[bytes, Any]:
        out: dict[bytes, Any] = {}
        previous: bytes | None = None
        top = depth == 1
        while self.byte() != ord("e"):
            if not ord("0") <= self.byte() <= ord("9"):
                raise LenientDecodeError("a dict key is not a string")
            key = self.value(depth + 1, high, lenient_keys)
            if previous is not None and key <= previous:
                if self.in_set:
                    self.unchecked = True  # no key order check inside a set diff (X14)
                elif not lenient_keys:
                    raise LenientDecodeError(f"key {key!r} out of order")
                else:
                    self.canonical = False
            previous = key if previous is None else max(previous, key)
            unknown = top and key not in KNOWN_KEYS
            self.in_diff = self.in_diff or (top and key in UNCHECKED_KEYS)
            value = self.value(
                depth + 1,
                UINT64_MAX if unknown else high,
                lenient_keys or unknown,
            )
            if top:
                self.in_diff = False
            out.setdefault(key, value)
        self.pos += 1
        return out


def decode_message(data: bytes) -> Decoded:
    """The message as the deployed client reads it; `LenientDecodeError` if it refuses.

    Canonical bt within swarmconf's ranges and nesting limit reads alike either way, and so does
    the input before the strict decoder's first violation: read leniently only from there.
    """
    try:
        value = strict_bt.decode_message(data)
    except ConfigError as error:
        if error.reason in REFUSED_ALIKE:
            raise LenientDecodeError(str(error), error) from None
        return read_leniently(data)
    return Decoded(value, canonical=True, deep=False)


def read_leniently(data: bytes) -> Decoded:
    """`decode_message` byte by byte, every leniency checked."""
    reader = _Reader(data)
    value = reader.value(1, INT64_MAX, False)
    if reader.pos != len(data):
        reader.canonical = False  # trailing bytes are ignored (X1)
    return Decoded(value, reader.canonical, reader.depth > STRICT_DEPTH, reader.unchecked)


class _Refused(Exception):
    """The deployed parse throws here: it answers (a refusal, an abort), so it does not loop."""


class _Loops(Exception):
    """The deployed parse has reached the endless loop of `load_diff` (X3)."""


class _DeployedParse:
    """The deployed message constructor's pass over a message, as far as it decides whether it
    loops (X3): `ConfigMessage(serialized, ...)` in `src/config.cpp` over oxenc's streaming
    consumers, which read the top-level dict one key at a time and check each value's bt
    structure (`skip_value`, any depth) when they consume it, never what follows."""

    def __init__(self, data: bytes, lag: int) -> None:
        self.data = data
        self.lag = lag
        self.pos = 0
        self.key: bytes | None = None
        """The top-level key read and not yet consumed with its value (`consume_key`)."""
        self.unknown: bytes | None = None

    def at(self, pos: int) -> int:
        if pos >= len(self.data):
            raise _Refused("truncated")
        return self.data[pos]

    def integer(self, pos: int, high: int = UINT64_MAX) -> tuple[int, int]:
        """`bt_deserialize_integer` at `pos` (an `i`), within `high` when positive."""
        stop = self.data.find(b"e", pos + 1)
        text = self.data[pos + 1 : stop] if stop > pos else b""
        body = text.removeprefix(b"-")
        if stop < 0 or not body.isdigit() or len(body.lstrip(b"0")) > 20:
            raise _Refused("bad integer")
        number = -int(body) if text.startswith(b"-") else int(body)
        if not INT64_MIN <= number <= high:
            raise _Refused("integer out of range")
        return number, stop + 1

    def string(self, pos: int) -> tuple[bytes, int]:
        """A string at `pos`; refused if what is there is not one."""
        if not ord("0") <= self.at(pos) <= ord("9"):
            raise _Refused("not a string")
        stop = self.data.find(b":", pos)
        digits = self.data[pos:stop] if stop > 0 else b""
        if not digits.isdigit() or len(digits.lstrip(b"0")) > 20:
            raise _Refused("bad string length")
        end = stop + 1 + int(self.data[pos:stop])
        if end > len(self.data):
            raise _Refused("truncated string")
        return self.data[stop + 1 : end], end

    def skip(self, pos: int) -> int:
        """The end of the value at `pos`, its structure checked at any depth (`skip_value`)."""
        open_kinds: list[int] = []
        while True:
            if open_kinds:
                if self.at(pos) == ord("e"):
                    open_kinds.pop()
                    pos += 1
                    if not open_kinds:
                        return pos
                    continue
                if open_kinds[-1] == ord("d"):
                    pos = self.string(pos)[1]
            kind = self.at(pos)
            if kind == ord("i"):
                pos = self.integer(pos)[1]
            elif ord("0") <= kind <= ord("9"):
                pos = self.string(pos)[1]
            elif kind in (ord("l"), ord("d")):
                open_kinds.append(kind)
                pos += 1
                continue
            else:
                raise _Refused("unknown type")
            if not open_kinds:
                return pos

    def peek_key(self) -> bytes | None:
        """The next top-level key, None at the dict's end (`consume_key`)."""
        if self.key is None:
            if self.at(self.pos) == ord("e"):
                return None
            self.key, self.pos = self.string(self.pos)
            if self.at(self.pos) == ord("e"):
                raise _Refused("a key with no value")
        return self.key

    def value(self, kind: str) -> int:
        """Consume the next top-level value, which must be of `kind` (`l`, `d` or `i`); its
        position."""
        if self.peek_key() is None or self.at(self.pos) != ord(kind):
            raise _Refused(f"not {kind}")
        start = self.pos
        self.pos = self.skip(start)
        self.key = None
        return start

    def run(self) -> None:
        if len(self.data) < 2 or self.data[0] != ord("d"):
            raise _Refused("not a dict")
        self.pos = 1
        seqno, _ = self.integer(self.value("i"), INT64_MAX)
        self.unknowns(b"#", b"&")
        if self.peek_key() != b"&":
            raise _Refused("no data")
        self.data_dict(self.value("d"), top=True)
        self.unknowns(b"&", b"<")
        if self.required_key() == b"<":
            self.lagged(self.value("l"), seqno)
        self.unknowns(b"<", b"=")
        if self.required_key() == b"=":
            self.diff(self.value("d"))

    def required_key(self) -> bytes:
        key = self.peek_key()
        if key is None:
            raise _Refused("the dict ends before the diff")
        return key

    def unknowns(self, previous: bytes, until: bytes) -> None:
        """`load_unknowns`: the keys before `until`, in order, each value read whole."""
        while (key := self.peek_key()) is not None and key < until:
            if key <= previous or (self.unknown is not None and key <= self.unknown):
                raise _Refused("top-level keys out of order")
            if self.at(self.pos) == ord("i"):
                negative = self.at(self.pos + 1) == ord("-")
                self.integer(self.pos, INT64_MAX if negative else UINT64_MAX)
            self.pos = self.skip(self.pos)
            self.key = None
            self.unknown = key

    def data_dict(self, pos: int, top: bool = False) -> int:
        """`parse_data` of a dict: sorted keys, no empty dict below the top, int64 integers."""
        pos += 1
        if not top and self.at(pos) == ord("e"):
            raise _Refused("an empty dict")
        previous: bytes | None = None
        while self.at(pos) != ord("e"):
            key, pos = self.string(pos)
            if previous is not None and key <= previous:
                raise _Refused("data keys out of order")
            kind = self.at(pos)
            if kind == ord("d"):
                pos = self.data_dict(pos)
            elif kind == ord("l"):
                pos = self.data_set(pos)
            else:
                pos = self.scalar(pos)[1]
            previous = key
        return pos + 1

    def scalar(self, pos: int) -> tuple[tuple[int, int | bytes], int]:
        """An int64 integer or a string, as the deployed sets order them (integers first)."""
        if self.at(pos) == ord("i"):
            number, pos = self.integer(pos, INT64_MAX)
            return (0, number), pos
        text, pos = self.string(pos)
        return (1, text), pos

    def data_set(self, pos: int) -> int:
        """`parse_data` of a set: scalars, strictly increasing, not empty."""
        pos += 1
        if self.at(pos) == ord("e"):
            raise _Refused("an empty set")
        previous: tuple[int, int | bytes] | None = None
        while self.at(pos) != ord("e"):
            element, pos = self.scalar(pos)
            if previous is not None and element <= previous:
                raise _Refused("a set out of order")
            previous = element
        return pos + 1

    def lagged(self, pos: int, seqno: int) -> None:
        """`parse_lagged_diffs`: each entry's seqno, then (inside the lag) its hash, its order
        and its diff, and only then its length."""
        pos += 1
        previous: tuple[int, bytes] | None = None
        while self.at(pos) != ord("e"):
            end = self.skip(pos)
            if self.at(pos) != ord("l") or self.at(pos + 1) != ord("i"):
                raise _Refused("a bad lagged entry")
            entry_seqno, inner = self.integer(pos + 1, INT64_MAX)
            if entry_seqno >= seqno:
                raise _Refused("a lagged seqno too high")
            if entry_seqno > seqno - self.lag:
                entry_hash, inner = self.string(inner)
                if len(entry_hash) != 32:
                    raise _Refused("a bad lagged hash")
                if previous is not None and (entry_seqno, entry_hash) <= previous:
                    raise _Refused("lagged entries out of order")
                if self.at(inner) != ord("d"):
                    raise _Refused("a lagged diff that is not a dict")
                if self.at(self.diff(inner)) != ord("e"):
                    raise _Refused("a lagged entry of more than 3 elements")
                previous = (entry_seqno, entry_hash)
            pos = end

    def diff(self, pos: int) -> int:
        """`load_diff`: keys in order; a marker, a set diff or a dict diff each; any other
        value (an integer: nothing else passes `skip`) is never consumed, and the loop asks for
        the same key forever."""
        pos += 1
        previous: bytes | None = None
        while self.at(pos) != ord("e"):
            key, pos = self.string(pos)
            if previous is not None and key <= previous:
                raise _Refused("diff keys out of order")
            kind = self.at(pos)
            if ord("0") <= kind <= ord("9"):
                marker, pos = self.string(pos)
                if marker not in (b"", b"-"):
                    raise _Refused("a bad marker")
            elif kind == ord("l"):
                end = self.skip(pos)
                self.set_diff(pos)
                pos = end
            elif kind == ord("d"):
                pos = self.diff(pos)
            else:
                raise _Loops()
            previous = key
        return pos + 1

    def set_diff(self, pos: int) -> None:
        """A set diff: two lists, each of scalars in order (`check_scalar_order`, pairwise, so
        a single element of any kind passes: X2)."""
        halves: list[int] = []
        pos += 1
        while self.at(pos) != ord("e"):
            halves.append(pos)
            pos = self.skip(pos)
        if len(halves) != 2 or any(self.at(half) != ord("l") for half in halves):
            raise _Refused("a bad set diff")
        for half in halves:
            elements = []
            pos = half + 1
            while self.at(pos) != ord("e"):
                elements.append(pos)
                pos = self.skip(pos)
            for first, second in itertools.pairwise(elements):
                if self.scalar(first)[0] >= self.scalar(second)[0]:
                    raise _Refused("a set diff out of order")


def loops(data: bytes, lag: int) -> bool:
    """Whether the deployed client's parse of `data` under `lag` never returns (X3): reading in
    its order, it meets a diff value that is an integer (in `=`, or in a lagged entry inside the
    lag window) before anything it refuses. What follows that value is never read: trailing
    bytes, a non-string key, nesting past swarmconf's limit, a missing signature."""
    try:
        _DeployedParse(data, lag).run()
    except _Loops:
        return True
    except _Refused:
        return False
    return False
