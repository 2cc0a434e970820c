"""Edits a client makes to its config data, their random generation and their JSON form.

An edit is one operation on a path of keys: assign a value (any kind, so the kind at a path can
change), remove a key, add or discard set elements, or clear a set or dict (emptying it, which
the writer's serialization then prunes).
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass
from typing import Any, Literal

Scalar = int | bytes
Value = int | bytes | set[Scalar] | dict[bytes, "Value"]
Data = dict[bytes, Value]
Path = tuple[bytes, ...]
OpKind = Literal["assign", "remove", "add", "discard", "clear"]
JsonValue = dict[str, Any]

KEYS = (b"a", b"b", b"c", b"d")
INTS = (0, 1, -1, 2, 7, 1000, -(2**63), 2**63 - 1)
STRINGS = (b"", b"x", b"yy", b"\x00\xff")
MAX_DEPTH = 3


@dataclass(frozen=True)
class Edit:
    """One operation: `value` is set for assign, `elements` for add and discard."""

    op: OpKind
    path: Path
    value: Value | None = None
    elements: tuple[Scalar, ...] = ()


def parent_dict(data: Data, path: Path, *, create: bool) -> Data | None:
    """The dict holding `path[-1]`; with `create`, missing or non-dict parents become dicts."""
    node = data
    for key in path[:-1]:
        child = node.get(key)
        if not isinstance(child, dict):
            if not create:
                return None
            child = {}
            node[key] = child
        node = child
    return node


def apply_edit(data: Data, edit: Edit) -> None:
    """Apply one edit to `data` in place."""
    key = edit.path[-1]
    node = parent_dict(data, edit.path, create=edit.op in ("assign", "add"))
    if node is None:
        return
    target = node.get(key)
    if edit.op == "assign":
        assert edit.value is not None
        node[key] = copy.deepcopy(edit.value)
    elif edit.op == "remove":
        node.pop(key, None)
    elif edit.op == "add":
        if isinstance(target, set):
            target.update(edit.elements)
        else:
            node[key] = set(edit.elements)
    elif edit.op == "discard":
        if isinstance(target, set):
            target.difference_update(edit.elements)
    elif isinstance(target, set | dict):
        target.clear()


def apply_batch(data: Data, batch: tuple[Edit, ...]) -> None:
    for edit in batch:
        apply_edit(data, edit)


def random_scalar(rng: random.Random) -> Scalar:
    return rng.choice(INTS) if rng.random() < 0.5 else rng.choice(STRINGS)


def random_elements(rng: random.Random) -> tuple[Scalar, ...]:
    return tuple(random_scalar(rng) for _ in range(rng.randint(1, 3)))


def random_value(rng: random.Random, depth: int) -> Value:
    roll = rng.random()
    if roll < 0.55 or depth >= MAX_DEPTH:
        return random_scalar(rng)
    if roll < 0.8:
        return set(random_elements(rng))
    return {rng.choice(KEYS): random_value(rng, depth + 1) for _ in range(rng.randint(1, 2))}


def random_data(rng: random.Random) -> Data:
    return {rng.choice(KEYS): random_value(rng, 1) for _ in range(rng.randint(1, 4))}


def random_path(rng: random.Random) -> Path:
    return tuple(rng.choice(KEYS) for _ in range(rng.choice((1, 1, 1, 2, 2, 3))))


def random_edit(rng: random.Random) -> Edit:
    path = random_path(rng)
    op: OpKind = rng.choices(
        ("assign", "remove", "add", "discard", "clear"), weights=(5, 2, 3, 2, 1)
    )[0]
    if op == "assign":
        return Edit(op, path, value=random_value(rng, len(path)))
    if op in ("add", "discard"):
        return Edit(op, path, elements=random_elements(rng))
    return Edit(op, path)


def random_batch(rng: random.Random) -> tuple[Edit, ...]:
    return tuple(random_edit(rng) for _ in range(rng.randint(1, 3)))


def value_to_json(value: Value) -> JsonValue:
    """A JSON form that keeps ints, byte strings, sets and dicts apart."""
    if isinstance(value, int):
        return {"int": value}
    if isinstance(value, bytes):
        return {"bytes": value.hex()}
    if isinstance(value, set):
        return {"set": [value_to_json(element) for element in sorted_scalars(value)]}
    return {"dict": {key.hex(): value_to_json(item) for key, item in sorted(value.items())}}


def value_from_json(obj: JsonValue) -> Value:
    if "int" in obj:
        return int(obj["int"])
    if "bytes" in obj:
        return bytes.fromhex(str(obj["bytes"]))
    if "set" in obj:
        elements = [value_from_json(item) for item in obj["set"]]
        return {element for element in elements if isinstance(element, int | bytes)}
    return {bytes.fromhex(key): value_from_json(item) for key, item in obj["dict"].items()}


def sorted_scalars(elements: set[Scalar] | tuple[Scalar, ...]) -> list[Scalar]:
    """Ints before byte strings, each ascending (the order sets are written in)."""
    return sorted(elements, key=lambda e: (isinstance(e, bytes), e if isinstance(e, int) else 0, e))


def edit_to_json(edit: Edit) -> JsonValue:
    obj: JsonValue = {"op": edit.op, "path": [key.hex() for key in edit.path]}
    if edit.value is not None:
        obj["value"] = value_to_json(edit.value)
    if edit.elements:
        obj["elements"] = [value_to_json(element) for element in edit.elements]
    return obj


def edit_from_json(obj: JsonValue) -> Edit:
    path = tuple(bytes.fromhex(key) for key in obj["path"])
    value = value_from_json(obj["value"]) if "value" in obj else None
    elements = [value_from_json(item) for item in obj.get("elements", [])]
    scalars = tuple(element for element in elements if isinstance(element, int | bytes))
    return Edit(obj["op"], path, value, scalars)
