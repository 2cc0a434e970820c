"""The application data under `&`: ints, byte strings, sets and dicts (design text
"Application-side config data"; D11).
"""

from __future__ import annotations

import copy
import itertools

from .bt import INT64_MAX, INT64_MIN, BtValue
from .reasons import Reason, UsageError, require

Scalar = int | bytes
Value = int | bytes | set[Scalar] | dict[bytes, "Value"]
Data = dict[bytes, Value]

MAX_KEY_LENGTH = 128
MAX_STRING_LENGTH = 4096


def set_order(element: Scalar) -> tuple[bool, int, bytes]:
    """Sets sort integers before strings, each part ascending (D11).

    post: __return__[0] == isinstance(element, bytes)
    post: isinstance(element, bytes) or __return__[1] == element
    """
    if isinstance(element, int):
        return (False, element, b"")
    return (True, 0, element)


def sorted_set(elements: set[Scalar] | list[Scalar]) -> list[Scalar]:
    """The elements of a set in their encoded order (D11).

    pre: len(elements) <= 4
    post: is_strictly_ordered(__return__) or len(set(elements)) < len(elements)
    post: set(__return__) == set(elements)
    """
    return sorted(elements, key=set_order)


def is_strictly_ordered(elements: list[Scalar]) -> bool:
    """True when each element sorts strictly after the one before it: ordered, no duplicates."""
    return all(set_order(a) < set_order(b) for a, b in itertools.pairwise(elements))


def is_scalar(value: object) -> bool:
    """Integers and byte strings are scalars (bool is not an integer here)."""
    return isinstance(value, bytes) or (isinstance(value, int) and not isinstance(value, bool))


def check_set(items: list[BtValue]) -> set[Scalar]:
    """A set is a non-empty, strictly ordered list of integers and strings (D11)."""
    # Verify the set is not empty
    require(items != [], Reason.DATA_EMPTY_SET)
    scalars: list[Scalar] = []
    for item in items:
        # Verify each element is a scalar
        require(isinstance(item, int | bytes), Reason.DATA_SET_NOT_SCALAR)
        assert isinstance(item, int | bytes)
        # Verify each element sorts after the previous one
        require(not scalars or set_order(scalars[-1]) < set_order(item), Reason.DATA_SET_UNSORTED)
        scalars.append(item)
    return set(scalars)


def check_dict(items: dict[bytes, BtValue], *, top_level: bool) -> Data:
    """A dict maps byte-string keys to data values; only the top level may be empty (D11)."""
    # Verify nested dicts are not empty
    require(top_level or items != {}, Reason.DATA_EMPTY_DICT)
    data: Data = {}
    for key, item in items.items():
        if isinstance(item, list):
            data[key] = check_set(item)
        elif isinstance(item, dict):
            data[key] = check_dict(item, top_level=False)
        else:
            data[key] = item
    return data


def check_data(value: dict[bytes, BtValue]) -> Data:
    """Validate the decoded `&` dict and return it as data (sets as Python sets), D11."""
    return check_dict(value, top_level=True)


def pruned(data: Data) -> Data:
    """A deep copy of `data` without empty sets and dicts, recursively (design text: empty sets
    and dicts are omitted; D15's final pruning)."""
    result: Data = {}
    for key, value in data.items():
        if isinstance(value, dict):
            value = pruned(value)
        elif isinstance(value, set):
            value = set(value)
        if value != {} and value != set():
            result[key] = value
    return result


def deep_copy(data: Data) -> Data:
    """An independent copy of `data`: dicts and sets copied at every level, integers and byte
    strings shared (they are immutable); anything else, which only a writer can have put there
    and serializing refuses, copied by `copy.deepcopy`."""
    return {key: _copied(value) for key, value in data.items()}


def _copied(value: Value) -> Value:
    if isinstance(value, dict):
        return {key: _copied(item) for key, item in value.items()}
    if isinstance(value, set) and all(isinstance(element, int | bytes) for element in value):
        return set(value)
    if isinstance(value, int | bytes):
        return value
    return copy.deepcopy(value)


def check_writable(value: object, path: tuple[bytes, ...] = ()) -> None:
    """Data a writer serializes holds only int64s, bytes, sets of scalars and bytes-keyed dicts.

    The walk is deterministic: dict keys in ascending order, and within a set every element's
    type before any integer's range, so the reason reported never depends on hash order.
    """
    if isinstance(value, dict):
        if not all(isinstance(key, bytes) for key in value):
            raise UsageError(Reason.BAD_VALUE_TYPE, f"a key at {path} is not bytes")
        for key in sorted(value):
            check_writable(value[key], (*path, key))
    elif isinstance(value, set):
        if not all(is_scalar(element) for element in value):
            raise UsageError(Reason.BAD_VALUE_TYPE, f"a set element at {path} is not a scalar")
        for element in value:
            check_writable(element, path)
    elif isinstance(value, int) and not isinstance(value, bool):
        if not INT64_MIN <= value <= INT64_MAX:
            raise UsageError(Reason.INT_OUT_OF_RANGE, f"{value} at {path}")
    elif not isinstance(value, bytes):
        raise UsageError(Reason.BAD_VALUE_TYPE, f"{type(value).__name__} at {path}")


def data_to_bt(data: Data) -> dict[bytes, BtValue]:
    """The bt form of (valid, pruned) data: sets become lists in set order."""
    result: dict[bytes, BtValue] = {}
    for key, value in data.items():
        if isinstance(value, set):
            result[key] = list(sorted_set(value))
        elif isinstance(value, dict):
            result[key] = data_to_bt(value)
        else:
            result[key] = value
    return result
