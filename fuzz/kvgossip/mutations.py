"""Mutations of canonical msgpack: K/V Gossip's objects, frames and payloads made hostile.

Besides the byte-level ones every campaign shares (truncations, splices, byte edits), they edit
the encoding's headers (an array, string or bin length off by one, zero or huge; an integer or
length widened to a non-canonical form), nest arrays deeply, replace a value anywhere in the
decoded tree (reaching into bins that are themselves msgpack: a record's body, a frame's
records, a revocation's grant) and re-encode it canonically, so the object still decodes and
the deeper checks (key grammar, sizes, signatures, session rules) see it, or make a message of
a known name with random fields.
"""

from __future__ import annotations

import random
import re
from typing import Any

import msgpack  # type: ignore[import-untyped]

from swarmconf.spec.kvgossip import messages as m
from swarmconf.spec.kvgossip.encoding import UINT64_MAX, encode

from ..hostile import Mutation, byte_editor, splice, truncate

FIX_ARRAY = range(0x90, 0xA0)
FIX_STR = range(0xA0, 0xC0)
SIZED = {0xC4: 1, 0xC5: 2, 0xC6: 4, 0xD9: 1, 0xDA: 2, 0xDB: 4, 0xDC: 2, 0xDD: 4, 0xCC: 1}
"""Headers followed by a big-endian length or value of this many bytes (bin, str, array, u8)."""
HEADER = re.compile(b"[\x90-\xbf" + re.escape(bytes(SIZED)) + b"]")
"""Bytes that may start a header with a length or a small value."""
NESTING = (2, 63, 64, 65, 200, 1000, 5000)
HOSTILE_INTS = (0, 1, -1, 2, 31, 32, 33, 255, 256, 1024, 1025, 2**32, UINT64_MAX, -(2**63))
HOSTILE_STRS = ("", "/", "//", "/a/../b", "/a/./b", "/a b", "/é", "/" + "x" * 300, "**", "HELLO")
STRUCTURAL = bytes([0x90, 0x91, 0x92, 0x95, 0x80, 0x81, 0xA0, 0xA5, 0xC0, 0xC2, 0xC3, 0xC4])
STRUCTURAL += bytes([0xC5, 0xCC, 0xCD, 0xCF, 0xD0, 0xD9, 0xDC, 0xDD, 0xDE, 0xFF, 0x00, 0x20])


def header_edit(rng: random.Random, message: bytes, other: bytes) -> bytes:
    """A length or small integer in a header changed: off by one, zero, huge or widened."""
    starts = [match.start() for match in HEADER.finditer(message)]
    if not starts:
        return message
    i = rng.choice(starts)
    head = message[i]
    if head in SIZED:
        size = SIZED[head]
        old = int.from_bytes(message[i + 1 : i + 1 + size].ljust(size, b"\0"), "big")
        value = rng.choice((old + 1, max(0, old - 1), 0, (1 << 8 * size) - 1)) % (1 << 8 * size)
        return message[: i + 1] + value.to_bytes(size, "big") + message[i + 1 + size :]
    base = 0x90 if head in FIX_ARRAY else 0xA0
    count = head - base
    widened = b"\xdc\x00" + bytes([count]) if base == 0x90 else b"\xd9" + bytes([count])
    new = rng.choice(
        (
            bytes([base + (count + 1) % 16]),
            bytes([base + max(0, count - 1)]),
            bytes([base]),
            widened,
            (b"\xdd" if base == 0x90 else b"\xdb") + b"\xff\xff\xff\xff",
        )
    )
    return message[:i] + new + message[i + 1 :]


def nesting(rng: random.Random, message: bytes, other: bytes) -> bytes:
    """Arrays nested up to thousands deep, inserted where a value may start."""
    depth = rng.choice(NESTING)
    i = rng.randrange(len(message) + 1)
    return message[:i] + b"\x91" * depth + b"\xc0" + message[i:]


def hostile_value(rng: random.Random, depth: int = 2) -> Any:
    """A value of any msgpack type that canonical encoding can carry."""
    kind = rng.randrange(8 if depth > 0 else 6)
    if kind == 0:
        return rng.choice(HOSTILE_INTS)
    if kind == 1:
        return rng.choice(HOSTILE_STRS)
    if kind == 2:
        return rng.choice((b"", bytes(31), bytes(32), bytes(33), bytes(64), rng.randbytes(16)))
    if kind == 3:
        return rng.choice((True, False, None))
    if kind == 4:
        return rng.choice((m.HELLO, m.BYE, m.RECORDS, m.PUSH, "kvg/record/1", "kvg/grant/1"))
    if kind == 5:
        return rng.choice((0.5, [], {}))
    if kind == 6:
        return [hostile_value(rng, depth - 1) for _ in range(rng.randrange(5))]
    return {str(rng.randrange(3)): hostile_value(rng, depth - 1) for _ in range(rng.randrange(3))}


def same_kind(rng: random.Random, value: Any) -> Any:
    """A hostile value of `value`'s own type, which passes the decoders' type checks."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return rng.choice((0, -1, -(2**63), 2**63, UINT64_MAX, value + 1, value - 1))
    if isinstance(value, str):
        return rng.choice(HOSTILE_STRS)
    if isinstance(value, bytes):
        return rng.choice((b"", value[:-1], value + b"\0", bytes(len(value)), value * 2))
    return hostile_value(rng)


def value_edit(rng: random.Random, message: bytes, other: bytes) -> bytes:
    """One value of the decoded tree replaced, dropped or repeated, and the tree re-encoded
    canonically; a bin holding msgpack is entered half the time."""
    try:
        tree = msgpack.unpackb(message, raw=False, strict_map_key=False)
    except (ValueError, TypeError, msgpack.UnpackException):
        return message
    try:
        return encode(edited(rng, tree))
    except (ValueError, TypeError, OverflowError):
        return message


def edited(rng: random.Random, value: Any) -> Any:
    """`value` with one part changed (see `value_edit`)."""
    if isinstance(value, bytes) and value and rng.random() < 0.5:
        inner = value_edit(rng, value, b"")
        if inner != value:
            return inner
    if not isinstance(value, list) or not value or rng.random() < 0.2:
        return same_kind(rng, value) if rng.random() < 0.5 else hostile_value(rng)
    i = rng.randrange(len(value))
    choice = rng.randrange(7)
    if choice == 0:
        return value[:i] + value[i + 1 :]
    if choice == 6:
        return []
    if choice == 1:
        return value[: i + 1] + value[i:]
    if choice == 2:
        return [*value[:i], hostile_value(rng), *value[i + 1 :]]
    return [*value[:i], edited(rng, value[i]), *value[i + 1 :]]


def generated(rng: random.Random, message: bytes, other: bytes) -> bytes:
    """A message of a known name with random fields, or any value at all."""
    if rng.random() < 0.3:
        return encode(hostile_value(rng, 3))
    name = rng.choice(sorted(m.FIELDS))
    return encode([name, *(hostile_value(rng) for _ in range(rng.choice((0, 1, 2, 4, 5))))])


def replaced(rng: random.Random, message: bytes, other: bytes) -> bytes:
    """Another real object in its place (a grant where a record goes, a frame out of turn)."""
    return other


MUTATIONS: dict[str, Mutation] = {
    "truncate": truncate,
    "splice": splice,
    "byte": byte_editor(STRUCTURAL),
    "header": header_edit,
    "nesting": nesting,
    "value": value_edit,
    "generated": generated,
    "replaced": replaced,
}
WEIGHTS = tuple(4 if name == "value" else 1 for name in MUTATIONS)
"""Value edits are drawn four times as often as each other mutation: they keep the encoding
valid, so they are the ones that reach the checks past decoding."""
