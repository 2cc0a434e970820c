"""A small bt codec for the conformance tools, independent of the implementations under test.

`encode` writes canonical bt (sets as sorted lists: ints first, then byte strings). `decode`
is lenient: it accepts any well-formed bt, big integers and unsorted keys included, because
the runner must show whatever a client answers and the adapter must pass writer-side bad data
(oversized integers, lists of dicts) on to the implementation, which refuses it.
`render` turns a decoded value into indented, readable lines for failure reports.
"""

from __future__ import annotations

from typing import Any

BtValue = Any


def set_order(value: int | bytes) -> tuple[bool, int | bytes]:
    """Sort key of a set element: ints before byte strings, each ascending."""
    return (isinstance(value, bytes), value)


def encode(value: BtValue) -> bytes:
    """Canonical bt encoding of ints, bytes, lists, tuples, sets and dicts with bytes keys."""
    out: list[bytes] = []
    _write(value, out)
    return b"".join(out)


def _write(value: BtValue, out: list[bytes]) -> None:
    """Append the encoding of `value` to `out`, piece by piece (one join for the whole value)."""
    if isinstance(value, bytes):
        out += (b"%d:" % len(value), value)
    elif isinstance(value, dict):
        out.append(b"d")
        for key, item in sorted(value.items()):
            _write(key, out)
            _write(item, out)
        out.append(b"e")
    elif isinstance(value, (list, tuple)):
        out.append(b"l")
        for item in value:
            _write(item, out)
        out.append(b"e")
    elif isinstance(value, (set, frozenset)):
        _write(sorted(value, key=set_order), out)
    elif isinstance(value, bool):
        raise TypeError("bool is not a bt value")
    elif isinstance(value, int):
        out.append(b"i%de" % value)
    else:
        raise TypeError(f"not a bt value: {type(value).__name__}")


class BtDecodeError(ValueError):
    """The bytes are not well-formed bt (even leniently)."""


def decode(data: bytes) -> BtValue:
    """Decode one bt value spanning all of `data`; dicts keep their keys in input order."""
    value, end = _decode_at(data, 0, 0)
    if end != len(data):
        raise BtDecodeError(f"trailing bytes at offset {end}")
    return value


def _decode_at(data: bytes, pos: int, depth: int) -> tuple[BtValue, int]:
    if depth > 200:
        raise BtDecodeError("nested too deeply to show")
    if pos >= len(data):
        raise BtDecodeError("truncated")
    head = data[pos : pos + 1]
    if head == b"i":
        end = data.find(b"e", pos)
        if end < 0:
            raise BtDecodeError("truncated integer")
        try:
            return int(data[pos + 1 : end]), end + 1
        except ValueError as error:
            raise BtDecodeError(f"bad integer at offset {pos}") from error
    if head.isdigit():
        colon = data.find(b":", pos)
        if colon < 0 or not data[pos:colon].isdigit():
            raise BtDecodeError(f"bad string length at offset {pos}")
        end = colon + 1 + int(data[pos:colon])
        if end > len(data):
            raise BtDecodeError("truncated string")
        return data[colon + 1 : end], end
    if head in (b"l", b"d"):
        items: list[BtValue] = []
        pos += 1
        while data[pos : pos + 1] != b"e":
            item, pos = _decode_at(data, pos, depth + 1)
            items.append(item)
        if head == b"l":
            return items, pos + 1
        if len(items) % 2 or not all(isinstance(key, bytes) for key in items[::2]):
            raise BtDecodeError("bad dict")
        return dict(zip(items[::2], items[1::2], strict=True)), pos + 1
    raise BtDecodeError(f"unknown type byte at offset {pos}")


def show_bytes(value: bytes) -> str:
    """Printable ASCII as a quoted string, anything else as 0x-prefixed hex."""
    if all(32 <= byte < 127 for byte in value):
        return '"' + value.decode().replace("\\", "\\\\").replace('"', '\\"') + '"'
    return "0x" + value.hex()


def render(value: BtValue, indent: str = "") -> list[str]:
    """Readable lines: one scalar or dict entry per line, nested values indented."""
    inner = indent + "  "
    if isinstance(value, bytes):
        return [indent + show_bytes(value)]
    if isinstance(value, int):
        return [indent + str(value)]
    if isinstance(value, list):
        if all(not isinstance(item, (list, dict)) for item in value):
            return [indent + "[" + ", ".join(render(item)[0] for item in value) + "]"]
        lines = [indent + "["]
        for item in value:
            lines.extend(render(item, inner))
        return [*lines, indent + "]"]
    lines = [indent + "{"]
    for key, item in value.items():
        shown = render(item, inner)
        lines.append(inner + show_bytes(key) + ": " + shown[0].lstrip())
        lines.extend(shown[1:])
    return [*lines, indent + "}"]


def render_hex(text: object) -> list[str]:
    """Render a hex field holding bt; fall back to the raw text if it does not decode."""
    if not isinstance(text, str):
        return [repr(text)]
    try:
        return render(decode(bytes.fromhex(text)))
    except (ValueError, BtDecodeError):
        return [f"(not bt) {text}"]
