"""Canonical bt-encoding (bencode): the encoder and the strict decoder (D10).

bt values are integers, byte strings, lists and dicts with byte-string keys. Only the canonical
form is accepted: dict keys strictly ascending bytewise, no leading zeros in integers or string
lengths, no `-0`, integers within signed 64 bits, nothing after the final value.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NoReturn

from .reasons import ConfigError, Reason, require

BtValue = int | bytes | list["BtValue"] | dict[bytes, "BtValue"]

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
UINT64_MAX = 2**64 - 1
MAX_DEPTH = 64
"""Lists and dicts may nest this deep; deeper input is refused with BT_TOO_DEEP."""

DIGITS = b"0123456789"
MAX_DIGITS = len(str(UINT64_MAX))
"""No integer or string length in range has more digits than 2^64-1 (20)."""


def encode(value: BtValue) -> bytes:
    """Encode a bt value canonically: dict keys sorted, integers and lengths in shortest form
    (D10)."""
    out: list[bytes] = []
    _write(value, out)
    return b"".join(out)


def _write(value: BtValue, out: list[bytes]) -> None:
    """Append the encoding of `value` to `out`, piece by piece (one join for the whole value)."""
    if isinstance(value, bytes):
        out += (b"%d:" % len(value), value)
    elif isinstance(value, dict):
        if not all(isinstance(key, bytes) for key in value):
            raise TypeError("bt dict keys are byte strings")
        out.append(b"d")
        for key in sorted(value):
            out += (b"%d:" % len(key), key)
            _write(value[key], out)
        out.append(b"e")
    elif isinstance(value, list):
        out.append(b"l")
        for item in value:
            _write(item, out)
        out.append(b"e")
    elif isinstance(value, bool):
        raise TypeError("bool is not a bt value")
    elif isinstance(value, int):
        out.append(encode_integer(value))
    else:
        raise TypeError(f"{type(value).__name__} is not a bt value")


def encode_integer(value: int) -> bytes:
    """`i<decimal>e` in shortest form: no leading zeros, no `-0` (D10).

    pre: INT64_MIN <= value <= INT64_MAX
    post: decode(__return__) == value
    post: __return__[1:2] != b"0" or __return__ == b"i0e"
    """
    return b"i%de" % value


def decode(data: bytes, *, wide_int_keys: Callable[[bytes], bool] | None = None) -> BtValue:
    """Decode canonical bt-encoded `data`, refusing every non-canonical form (D10).

    Violations are reported in reading order: the first one met, left to right, raises.
    `wide_int_keys`, when given, names the top-level dict keys whose values may hold integers
    in [-2^63, 2^64-1] instead of signed 64 bits (unknown top-level keys, D9).
    """
    reader = _Reader(data, wide_int_keys)
    value = reader.value(depth=0, wide=False)
    # Verify nothing follows the top-level value
    require(reader.pos == len(data), Reason.BT_TRAILING_BYTES, f"at offset {reader.pos}")
    return value


INTEGER_START = ord("i")
LIST_START = ord("l")
DICT_START = ord("d")
END = ord("e")
LENGTH_END = ord(":")
UNSIGNED_DIGITS = re.compile(rb"[0-9]*")
SIGNED_DIGITS = re.compile(rb"-?[0-9]*")
"""The digits of a string length, and of an integer (after an optional minus)."""
CANONICAL_INTEGER = re.compile(rb"i(0|-?[1-9][0-9]{0,19})e")
CANONICAL_LENGTH = re.compile(rb"(0|[1-9][0-9]{0,19}):")
"""An integer, and a string length, in shortest form with no more digits than 2^64-1 has."""


class _Reader:
    """A cursor over the input; each method reads one token or value at the cursor, checking
    the rules of D10 in reading order."""

    def __init__(self, data: bytes, wide_int_keys: Callable[[bytes], bool] | None) -> None:
        self.data = data
        self.pos = 0
        self.wide_int_keys = wide_int_keys

    def peek(self) -> int:
        """The byte at the cursor; the input must not end here."""
        if self.pos >= len(self.data):
            raise ConfigError(Reason.BT_TRUNCATED, f"at offset {self.pos}")
        return self.data[self.pos]

    def value(self, depth: int, wide: bool) -> BtValue:
        kind = self.peek()
        if kind == INTEGER_START:
            return self.integer(wide)
        if kind in DIGITS:
            return self.string()
        if kind in (LIST_START, DICT_START):
            # Verify the nesting limit before descending
            require(depth < MAX_DEPTH, Reason.BT_TOO_DEEP, f"deeper than {MAX_DEPTH}")
            return self.list(depth + 1, wide) if kind == LIST_START else self.dict(depth + 1, wide)
        raise ConfigError(Reason.BT_UNKNOWN_TYPE, f"byte {kind:#x} at offset {self.pos}")

    def digits_until(self, terminator: int, reason: Reason, *, signed: bool) -> bytes:
        """Read digits (after a `-` if `signed`) up to `terminator`; consume the terminator.

        The run of digits is matched at once; the byte after it must be the terminator.
        """
        start = self.pos
        digits = (SIGNED_DIGITS if signed else UNSIGNED_DIGITS).match(self.data, start)
        assert digits is not None  # an empty run matches too
        self.pos = digits.end()
        # Verify only digits (and a leading minus for integers) precede the terminator
        char = self.peek()
        if char != terminator:
            raise ConfigError(reason, f"{char:#x} at offset {self.pos}")
        text = self.data[start : self.pos]
        self.pos += 1
        return text

    def integer(self, wide: bool) -> int:
        """`i<digits>e`: no leading zeros, no `-0`, within the allowed range.

        The canonical form is matched as one token; anything else is read rule by rule to find
        the first one it breaks."""
        token = CANONICAL_INTEGER.match(self.data, self.pos)
        if token is None:
            self.pos += 1
            self.refuse_integer(self.digits_until(END, Reason.BT_BAD_INTEGER, signed=True))
        text = token[1]
        self.pos = token.end()
        number = int(text)
        # Verify the range: signed 64 bits, or [-2^63, 2^64-1] where D9 allows
        if not INT64_MIN <= number <= (UINT64_MAX if wide else INT64_MAX):
            raise ConfigError(Reason.BT_INTEGER_RANGE, text.decode())
        return number

    @staticmethod
    def refuse_integer(text: bytes) -> NoReturn:
        """Why the digits `text` of an integer are not in shortest form."""
        magnitude = text.removeprefix(b"-")
        # Verify there is at least one digit
        require(magnitude != b"", Reason.BT_BAD_INTEGER, "no digits")
        # Verify the shortest form
        require(text != b"-0", Reason.BT_NEGATIVE_ZERO)
        require(magnitude == b"0" or magnitude[0] != ord("0"), Reason.BT_LEADING_ZERO)
        # Verify the range: more digits than 2^64-1 has can never fit
        raise ConfigError(Reason.BT_INTEGER_RANGE, f"{len(text)} digits")

    def string(self) -> bytes:
        """`<length>:<bytes>`: the length without leading zeros, the bytes all present.

        A length in shortest form is matched as one token; anything else is read rule by rule
        to find the first one it breaks."""
        token = CANONICAL_LENGTH.match(self.data, self.pos)
        if token is None:
            self.refuse_length(
                self.digits_until(LENGTH_END, Reason.BT_BAD_STRING_LENGTH, signed=False)
            )
        start = token.end()
        end = start + int(token[1])
        # Verify the declared bytes are present
        require(end <= len(self.data), Reason.BT_TRUNCATED, "string")
        self.pos = end
        return self.data[start:end]

    @staticmethod
    def refuse_length(length_text: bytes) -> NoReturn:
        """Why the digits `length_text` of a string length are not in shortest form."""
        # Verify the length is in shortest form (it starts with a digit, so it is not empty)
        require(length_text == b"0" or length_text[0] != ord("0"), Reason.BT_LEADING_ZERO)
        # Verify the declared bytes are present (a length of over 20 digits never is)
        raise ConfigError(Reason.BT_TRUNCATED, "string")

    def list(self, depth: int, wide: bool) -> list[BtValue]:
        self.pos += 1
        items: list[BtValue] = []
        while self.peek() != END:
            items.append(self.value(depth, wide))
        self.pos += 1
        return items

    def dict(self, depth: int, wide: bool) -> dict[bytes, BtValue]:
        self.pos += 1
        items: dict[bytes, BtValue] = {}
        previous: bytes | None = None
        while (kind := self.peek()) != END:
            # Verify keys are byte strings, strictly ascending
            if kind not in DIGITS:
                raise ConfigError(Reason.BT_KEY_NOT_STRING, f"at offset {self.pos}")
            key = self.string()
            if previous is not None and key <= previous:
                reason = Reason.BT_DUPLICATE_KEY if key == previous else Reason.BT_KEYS_UNSORTED
                raise ConfigError(reason, repr(key))
            previous = key
            unknown_top_level = (
                depth == 1 and self.wide_int_keys is not None and self.wide_int_keys(key)
            )
            items[key] = self.value(depth, wide or unknown_top_level)
        self.pos += 1
        return items
