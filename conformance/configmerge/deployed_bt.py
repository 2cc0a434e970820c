"""The deployed client's bt decoding, as decisions.md describes it (X1, X7, X14).

It accepts what swarmconf's strict decoder refuses in these ways only: integers with leading
zeros or `-0`, string lengths with leading zeros, unsorted or duplicate keys inside unknown
top-level values (the first value of a duplicate wins), bytes after the message's final `e`
(X1), and any nesting depth (X7). Integers must fit in signed 64 bits, except inside unknown
top-level values, where they may reach 2^64-1 (D9). Inside `=` and `<` it checks neither key
order nor integer range (X14): keys may repeat or come unsorted, integers reach 2^64-1.
Everything else it refuses.

Most inputs need none of these leniencies: `decode_message` reads each input once with
swarmconf's compiled strict decoder, and reads it leniently only where that decoder meets
something a leniency may excuse (see `REFUSED_ALIKE`).
"""

from __future__ import annotations

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
        while self.byte() != ord("e"):
            out.append(self.value(depth + 1, high, lenient_keys))
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
                if self.in_diff:
                    self.unchecked = True  # no key order check inside `=` and `<` (X14)
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
