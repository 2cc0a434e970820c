"""Strict bt-encoding (D10): a single-pass decoder that reports the first violation, and an encoder.

bt values are `int`, `bytes`, `list` and `dict[bytes, ...]`. The decoder works on `bytes` with
`find` for the delimiters, so each byte of the input is looked at a bounded number of times; it
never allocates more than the input holds (a declared length is checked against what is left
before anything is sliced) and stops at `MAX_DEPTH` nested containers.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from swarmconf.spec.configmerge.reasons import ConfigError, Reason

try:  # An optional compiled codec (PyPI wheels) whose decoder rejects the same non-canonical forms.
    from bencode2 import bdecode as _accelerated_decode
    from bencode2 import bencode as _accelerated_encode
except ImportError:  # pragma: no cover - the pure codec below is the fallback
    _accelerated_decode = None  # type: ignore[assignment]
    _accelerated_encode = None  # type: ignore[assignment]

# Final: the compiled modules use the values themselves rather than look the names up.
MAX_DEPTH: Final = 64
INT64_MIN: Final = -(1 << 63)
INT64_MAX: Final = (1 << 63) - 1
UINT64_MAX: Final = (1 << 64) - 1
# Top-level keys of a config message whose values are not opaque (D9).
KNOWN_KEYS: Final = frozenset((b"#", b"&", b"<", b"=", b"~"))

_I, _L, _D, _E, _COLON, _MINUS = b"i"[0], b"l"[0], b"d"[0], b"e"[0], b":"[0], b"-"[0]
_ZERO, _NINE = b"0"[0], b"9"[0]
_MAX_DIGITS: Final = 20  # 2^64 - 1 has 20 digits: anything longer is out of every range we accept


def _fail(reason: Reason, pos: int) -> ConfigError:
    return ConfigError(reason, f"at byte {pos}")


def _unterminated(rest: bytes, reason: Reason, pos: int) -> ConfigError:
    """The error for digits never followed by their terminator: the first bad byte, else the end."""
    digits = rest[1:] if rest[:1] == b"-" else rest
    if digits and not digits.isdigit():
        return _fail(reason, pos)
    return _fail(Reason.BT_TRUNCATED, pos + len(rest))


def _read_int(data: bytes, pos: int, hi: int) -> tuple[int, int]:
    """Decode `i...e` starting at `pos` (the `i`); return (value, position after the `e`)."""
    end = data.find(b"e", pos + 1)
    if end < 0:
        raise _unterminated(data[pos + 1 :], Reason.BT_BAD_INTEGER, pos)
    body = data[pos + 1 : end]
    digits = body[1:] if body[:1] == b"-" else body
    if not digits.isdigit():
        raise _fail(Reason.BT_BAD_INTEGER, pos)
    if digits[0] == _ZERO:
        if len(digits) > 1:
            raise _fail(Reason.BT_LEADING_ZERO, pos)
        if len(body) > 1:
            raise _fail(Reason.BT_NEGATIVE_ZERO, pos)
    if len(digits) > _MAX_DIGITS:
        raise _fail(Reason.BT_INTEGER_RANGE, pos)
    value = int(body)
    if value < INT64_MIN or value > hi:
        raise _fail(Reason.BT_INTEGER_RANGE, pos)
    return value, end + 1


def _read_str(data: bytes, pos: int) -> tuple[bytes, int]:
    """Decode `N:bytes` starting at `pos` (a digit); return (value, position after it)."""
    colon = data.find(b":", pos)
    if colon < 0:
        raise _unterminated(data[pos:], Reason.BT_BAD_STRING_LENGTH, pos)
    digits = data[pos:colon]
    if not digits.isdigit():
        raise _fail(Reason.BT_BAD_STRING_LENGTH, pos)
    if digits[0] == _ZERO and len(digits) > 1:
        raise _fail(Reason.BT_LEADING_ZERO, pos)
    start = colon + 1
    # A length with more digits than the input's size cannot fit; never convert huge numbers.
    if len(digits) > _MAX_DIGITS or int(digits) > len(data) - start:
        raise _fail(Reason.BT_TRUNCATED, len(data))
    end = start + int(digits)
    return data[start:end], end


class _Decoder:
    """One decoding run over `data`; `message` widens ints inside unknown top-level values."""

    __slots__ = ("data", "message", "n")

    def __init__(self, data: bytes, message: bool) -> None:
        self.data = data
        self.n = len(data)
        self.message = message

    def value(self, pos: int, depth: int, hi: int) -> tuple[Any, int]:
        data = self.data
        if pos >= self.n:
            raise _fail(Reason.BT_TRUNCATED, pos)
        c = data[pos]
        if _ZERO <= c <= _NINE:
            return _read_str(data, pos)
        if c == _I:
            return _read_int(data, pos, hi)
        if c == _L:
            return self.list(pos, depth + 1, hi)
        if c == _D:
            return self.dict(pos, depth + 1, hi)
        raise _fail(Reason.BT_UNKNOWN_TYPE, pos)

    def list(self, pos: int, depth: int, hi: int) -> tuple[list[Any], int]:
        if depth > MAX_DEPTH:
            raise _fail(Reason.BT_TOO_DEEP, pos)
        data, n = self.data, self.n
        out: list[Any] = []
        append = out.append
        pos += 1
        while True:
            if pos >= n:
                raise _fail(Reason.BT_TRUNCATED, pos)
            c = data[pos]
            if c == _E:
                return out, pos + 1
            item: Any
            if _ZERO <= c <= _NINE:
                item, pos = _read_str(data, pos)
            elif c == _I:
                item, pos = _read_int(data, pos, hi)
            else:
                item, pos = self.value(pos, depth, hi)
            append(item)

    def dict(self, pos: int, depth: int, hi: int) -> tuple[dict[bytes, Any], int]:
        if depth > MAX_DEPTH:
            raise _fail(Reason.BT_TOO_DEEP, pos)
        data, n = self.data, self.n
        top = self.message and depth == 1
        out: dict[bytes, Any] = {}
        prev: bytes | None = None
        pos += 1
        while True:
            if pos >= n:
                raise _fail(Reason.BT_TRUNCATED, pos)
            c = data[pos]
            if c == _E:
                return out, pos + 1
            if not _ZERO <= c <= _NINE:
                raise _fail(Reason.BT_KEY_NOT_STRING, pos)
            key_pos = pos
            key, pos = _read_str(data, pos)
            if prev is not None and key <= prev:
                reason = Reason.BT_DUPLICATE_KEY if key == prev else Reason.BT_KEYS_UNSORTED
                raise _fail(reason, key_pos)
            prev = key
            value_hi = UINT64_MAX if top and key not in KNOWN_KEYS else hi
            if pos < n and _ZERO <= data[pos] <= _NINE:
                out[key], pos = _read_str(data, pos)
            else:
                out[key], pos = self.value(pos, depth, value_hi)


def _decode(data: bytes, message: bool) -> Any:
    decoder = _Decoder(bytes(data), message)
    value, end = decoder.value(0, 0, INT64_MAX)
    if end != decoder.n:
        raise _fail(Reason.BT_TRAILING_BYTES, end)
    return value


def decode(data: bytes) -> Any:
    """Decode one canonical bt value filling `data` exactly; raise `ConfigError` otherwise."""
    return _decode(data, message=False)


def decode_message(data: bytes) -> Any:
    """Like `decode`, but ints inside unknown top-level dict values may reach 2^64-1 (D9)."""
    return _decode(data, message=True)


def decode_fast(data: bytes) -> Any | None:
    """The compiled decoder's result, or None when it is missing or refuses `data`.

    It checks canonical form (D10) but neither the int64 range nor `MAX_DEPTH`: callers check
    both on the result, and on any doubt decode again with `decode_message` for the exact
    first violation.
    """
    if _accelerated_decode is None or not ACCELERATED:
        return None
    try:
        return _accelerated_decode(data)
    except Exception:
        return None


# Tests switch the compiled codec off to exercise the pure path.
ACCELERATED = True


def compiled_decoder() -> Callable[[bytes], Any] | None:
    """The compiled decoder (canonical form checked, not ranges or depth), if it is in use."""
    return _accelerated_decode if ACCELERATED else None


def compiled_encoder() -> Callable[[Any], bytes] | None:
    """The compiled encoder (of well-typed values; tuples as lists), if it is in use."""
    return _accelerated_encode if ACCELERATED else None


def encode_into(value: Any, out: list[bytes]) -> None:
    """Append the canonical encoding of a bt value to `out` (dict keys are sorted here)."""
    t = type(value)
    if t is bytes:
        out.append(b"%d:" % len(value))
        out.append(value)
    elif t is int:
        out.append(b"i%de" % value)
    elif t is dict:
        out.append(b"d")
        for key in sorted(value):
            out.append(b"%d:" % len(key))
            out.append(key)
            encode_into(value[key], out)
        out.append(b"e")
    elif t is list or isinstance(value, tuple):  # a tuple (as lagged entries are) is a list
        out.append(b"l")
        for item in value:
            encode_into(item, out)
        out.append(b"e")
    else:
        raise TypeError(f"not a bt value: {t.__name__}")


def encode(value: Any) -> bytes:
    """The canonical bt-encoding of an int, bytes, list or dict with bytes keys."""
    out: list[bytes] = []
    encode_into(value, out)
    return b"".join(out)


def encode_fast(value: Any) -> bytes:
    """`encode` of a value known to be well typed, by the compiled encoder when it is present."""
    if _accelerated_encode is None or not ACCELERATED:
        return encode(value)
    return _accelerated_encode(value)
