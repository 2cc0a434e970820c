"""Building blocks for cases: raw message bytes, spec-made messages, and random data and edits.

Randomness comes from `random.Random(seed)` with string seeds, which Python derives with
SHA-512: the same seed gives the same cases on every machine and run.
"""

from __future__ import annotations

import random
from typing import Any

from swarmconf.conformance import btcodec
from swarmconf.spec import configmerge as spec

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
HASH_A = bytes(range(32))
HASH_B = bytes(range(1, 33))

Data = dict[bytes, Any]


def raw_message(seqno: Any = 1, data: Any = None, **fields: Any) -> bytes:
    """A canonically encoded top-level dict: `#`, `&` and any other keys given by name.

    Field names: `lagged` (`<`), `diff` (`=`), `sig` (`~`), `extra` (a dict of further keys).
    Absent `lagged`/`diff` are left out; pass `diff={}` for the minimal valid message.
    """
    top: dict[bytes, Any] = {b"#": seqno, b"&": {} if data is None else data}
    names = {"lagged": b"<", "diff": b"=", "sig": b"~"}
    for name, key in names.items():
        if name in fields:
            top[key] = fields[name]
    top.update(fields.get("extra", {}))
    return btcodec.encode(top)


def minimal(seqno: int = 1, data: Any = None) -> bytes:
    return raw_message(seqno, data, lagged=[], diff={})


def new_message(seqno: int, data: Data, *, lag: int = 5, sign_key: bytes | None = None) -> bytes:
    """The serialization of a new message whose data was set to `data` (spec-made)."""
    message = spec.ConfigMessage.new(seqno, lag=lag)
    message.data.update(btcodec_copy(data))
    return message.serialize(sign_key)


def edited(
    parent: bytes, data: Data | None, *, lag: int = 5, sign_key: bytes | None = None
) -> bytes:
    """Increment `parent` and replace its data with `data` (None: no change)."""
    message = spec.parse(parent, lag=lag).increment()
    if data is not None:
        message.data.clear()
        message.data.update(btcodec_copy(data))
    return message.serialize(sign_key)


def btcodec_copy(value: Any) -> Any:
    """A deep copy of data (dicts and sets), so cases never share mutable values."""
    if isinstance(value, dict):
        return {key: btcodec_copy(item) for key, item in value.items()}
    if isinstance(value, set):
        return set(value)
    return value


def data_hex(data: Data) -> str:
    """Data as the protocol sends it: bt with sets as ordered lists."""
    return btcodec.encode(data).hex()


# ---- random values ------------------------------------------------------------------------

KEYS = [b"a", b"b", b"c", b"dict", b"set", b"x", b"long-key-name", b"\x00", b"\xff", b""]
EDGE_INTS = [0, 1, -1, 9, 10, 127, 128, 255, 256, -256, 2**31, -(2**31), INT64_MAX, INT64_MIN]
STRINGS = [b"", b"a", b"b", b"hello", b"Hello", b"\x00", b"\xff\xfe", b"1", b"-", b"e", b"i1e"]


def random_scalar(rng: random.Random) -> int | bytes:
    pick = rng.random()
    if pick < 0.3:
        return rng.choice(EDGE_INTS)
    if pick < 0.55:
        return rng.randint(-1000, 1000)
    if pick < 0.8:
        return rng.choice(STRINGS)
    return bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 12)))


def random_set(rng: random.Random) -> set[int | bytes]:
    elements: set[int | bytes] = set()
    while len(elements) < rng.randint(1, 5):
        elements.add(random_scalar(rng))
    return elements


def random_value(rng: random.Random, depth: int = 0) -> Any:
    pick = rng.random()
    if pick < 0.5 or depth >= 3:
        return random_scalar(rng)
    if pick < 0.75:
        return random_set(rng)
    return random_data(rng, depth + 1, minimum=1)


def random_data(rng: random.Random, depth: int = 0, *, minimum: int = 0) -> Data:
    return {
        rng.choice(KEYS): random_value(rng, depth)
        for _ in range(rng.randint(minimum, 4 if depth else 6))
    } or ({KEYS[0]: 1} if minimum else {})


def random_edit(rng: random.Random, data: Data, depth: int = 0) -> None:
    """One random edit in place: assign, remove, change kind, edit a set or a nested dict."""
    key = rng.choice([*data, rng.choice(KEYS)]) if data else rng.choice(KEYS)
    current = data.get(key)
    pick = rng.random()
    if isinstance(current, dict) and pick < 0.5 and depth < 3:
        random_edit(rng, current, depth + 1)
        if not current:
            del data[key]
    elif isinstance(current, set) and pick < 0.5:
        if rng.random() < 0.5:
            current.add(random_scalar(rng))
        else:
            current.discard(rng.choice(sorted(current, key=btcodec.set_order)))
            if not current:
                del data[key]
    elif current is not None and pick < 0.7:
        del data[key]
    else:
        data[key] = random_value(rng, depth)


def random_edits(rng: random.Random, data: Data, count: int) -> Data:
    result: Data = btcodec_copy(data)
    for _ in range(count):
        random_edit(rng, result)
    return result
