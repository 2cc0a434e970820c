"""Large byte strings in vectors: recipes for inputs, digests for expected answers.

A hex field of a case's input may be a recipe every client expands the same way:

- `{"repeat": "<hex>", "count": N}`: the bytes repeated N times;
- `{"concat": [<hex, repeat or seeded>, ...]}`: the pieces one after the other;
- `{"seeded": "<label>", "size": N}`: the first N bytes of SHAKE-256 of the UTF-8 label.

An expected hex answer longer than `DIGEST_THRESHOLD` bytes is written as
`{"size": N, "blake2b": "<hex of BLAKE2b-256 of the bytes>"}`.
"""

from __future__ import annotations

import hashlib
from typing import Any

DIGEST_THRESHOLD = 64 * 1024
"""Expected byte strings longer than this are written as digests."""


class RecipeError(ValueError):
    """A value is neither hex nor a recipe."""


def is_recipe(value: Any) -> bool:
    """Whether `value` is a recipe object (not plain hex)."""
    return isinstance(value, dict) and bool({"repeat", "concat", "seeded"} & value.keys())


def expand(value: Any) -> bytes:
    """The bytes a hex string or a recipe stands for."""
    if isinstance(value, str):
        return bytes.fromhex(value)
    if not isinstance(value, dict):
        raise RecipeError(f"not hex nor a recipe: {value!r}")
    if value.keys() == {"repeat", "count"}:
        return bytes.fromhex(value["repeat"]) * _count(value["count"])
    if value.keys() == {"concat"} and isinstance(value["concat"], list):
        if any(isinstance(piece, dict) and "concat" in piece for piece in value["concat"]):
            raise RecipeError("a concat piece is hex, a repeat or a seeded recipe")
        return b"".join(expand(piece) for piece in value["concat"])
    if value.keys() == {"seeded", "size"} and isinstance(value["seeded"], str):
        return hashlib.shake_256(value["seeded"].encode()).digest(_count(value["size"]))
    raise RecipeError(f"not a recipe: {sorted(value)}")


def _count(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise RecipeError(f"not a count: {value!r}")
    return value


def expand_fields(fields: Any) -> Any:
    """`fields` (an input, a list, a value) with every recipe replaced by its hex."""
    if is_recipe(fields):
        return expand(fields).hex()
    if isinstance(fields, dict):
        return {name: expand_fields(value) for name, value in fields.items()}
    if isinstance(fields, list):
        return [expand_fields(item) for item in fields]
    return fields


def digest(data: bytes) -> dict[str, Any]:
    """The digest form of `data`."""
    return {"size": len(data), "blake2b": hashlib.blake2b(data, digest_size=32).hexdigest()}


def is_digest(value: Any) -> bool:
    """Whether `value` is an expected answer in digest form."""
    return isinstance(value, dict) and value.keys() == {"size", "blake2b"}


def compact(value: Any) -> Any:
    """`value` with every hex string longer than `DIGEST_THRESHOLD` bytes written as a digest."""
    if isinstance(value, str) and len(value) > 2 * DIGEST_THRESHOLD:
        try:
            return digest(bytes.fromhex(value))
        except ValueError:
            return value
    if isinstance(value, dict) and not is_digest(value):
        return {name: compact(item) for name, item in value.items()}
    if isinstance(value, list):
        return [compact(item) for item in value]
    return value


def matches_digest(expected: dict[str, Any], answer: Any) -> bool:
    """Whether a client's hex `answer` has the size and hash `expected` gives."""
    if not isinstance(answer, str):
        return False
    try:
        data = bytes.fromhex(answer)
    except ValueError:
        return False
    return digest(data) == {"size": expected["size"], "blake2b": expected["blake2b"].lower()}
