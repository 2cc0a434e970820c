"""Config diffs: building them (D12), validating them (D12, X3) and replaying them (D15).

A diff mirrors the data: `b""` marks a scalar assigned, `b"-"` a scalar removed, a nested dict
changes inside a dict, and `[added, removed]` changes to a set.
"""

from __future__ import annotations

from .bt import BtValue
from .data import (
    MAX_KEY_LENGTH,
    MAX_STRING_LENGTH,
    Data,
    Scalar,
    Value,
    is_scalar,
    is_strictly_ordered,
    pruned,
    sorted_set,
)
from .reasons import Reason, UsageError, require

SetDiff = list[list[Scalar]]
DiffValue = bytes | SetDiff | dict[bytes, "DiffValue"]
Diff = dict[bytes, DiffValue]

ASSIGNED = b""
REMOVED = b"-"


def kind_of(value: Value | None) -> str:
    """The kinds a diff distinguishes: scalar, set and dict (D12)."""
    if isinstance(value, dict):
        return "dict"
    if isinstance(value, set):
        return "set"
    return "scalar" if value is not None else "absent"


def addition(value: Value) -> DiffValue:
    """The diff recording that `value` was written where nothing of its kind was (D12)."""
    if isinstance(value, dict):
        return {key: addition(item) for key, item in sorted(value.items())}
    if isinstance(value, set):
        return [sorted_set(value), []]
    return ASSIGNED


def removal(value: Value) -> DiffValue:
    """The diff recording that `value` was removed: a dict as the removal of all its contents,
    recursively; a set as the removal of all its elements (D12)."""
    if isinstance(value, dict):
        return {key: removal(item) for key, item in sorted(value.items())}
    if isinstance(value, set):
        return [[], sorted_set(value)]
    return REMOVED


def change(old: Value, new: Value) -> DiffValue | None:
    """The diff from `old` to `new` at one path, or None when nothing changed (D12).

    pre: isinstance(old, int | bytes) and isinstance(new, int | bytes)
    post: (__return__ is None) == (old == new)
    post: __return__ is None or __return__ == b""
    """
    if kind_of(old) != kind_of(new):
        # A value whose kind changes is recorded as the addition of the new value only
        return addition(new)
    if isinstance(old, dict) and isinstance(new, dict):
        nested = diff_data(old, new)
        return nested or None
    if isinstance(old, set) and isinstance(new, set):
        if old == new:
            return None
        return [sorted_set(new - old), sorted_set(old - new)]
    # Setting a scalar to what it already is records nothing (an int never equals bytes)
    return None if old == new else ASSIGNED


def diff_data(old: Data, new: Data) -> Diff:
    """The D12 diff between two (pruned) data dicts, keys in ascending order."""
    result: Diff = {}
    for key in sorted(old.keys() | new.keys()):
        if key not in new:
            result[key] = removal(old[key])
        elif key not in old:
            result[key] = addition(new[key])
        else:
            entry = change(old[key], new[key])
            if entry is not None:
                result[key] = entry
    return result


def check_diff(value: BtValue) -> Diff:
    """Validate a decoded diff (`=` or the third element of a lagged entry), D12 and X3."""
    # Verify the diff is a dict
    require(isinstance(value, dict), Reason.DIFF_NOT_DICT)
    assert isinstance(value, dict)
    return check_diff_dict(value)


def check_diff_dict(items: dict[bytes, BtValue]) -> Diff:
    """Each entry is a marker, a nested diff or a set diff, in key order."""
    diff: Diff = {}
    for key, item in items.items():
        if isinstance(item, bytes):
            # Verify a marker is "" (assigned) or "-" (removed)
            require(item in (ASSIGNED, REMOVED), Reason.DIFF_BAD_MARKER, repr(item))
            diff[key] = item
        elif isinstance(item, dict):
            diff[key] = check_diff_dict(item)
        elif isinstance(item, list):
            diff[key] = check_set_diff(item)
        else:
            # Verify no integer appears in a diff (the deployed client loops forever: X3)
            require(False, Reason.DIFF_INTEGER, repr(key))
    return diff


def check_set_diff(items: list[BtValue]) -> SetDiff:
    """A set diff is exactly two lists of scalars, each strictly ordered as sets are (D12)."""
    # Verify the shape: [added, removed]
    require(len(items) == 2 and all(isinstance(part, list) for part in items), Reason.DIFF_BAD_SET)
    parts: SetDiff = []
    for part in items:
        assert isinstance(part, list)
        # Verify each element is a scalar
        require(all(isinstance(element, int | bytes) for element in part), Reason.DIFF_BAD_SET)
        scalars = [element for element in part if isinstance(element, int | bytes)]
        # Verify the set order
        require(is_strictly_ordered(scalars), Reason.DIFF_SET_UNSORTED)
        parts.append(scalars)
    return parts


def diff_to_bt(diff: Diff) -> dict[bytes, BtValue]:
    """The bt form of a diff."""
    result: dict[bytes, BtValue] = {}
    for key, entry in diff.items():
        if isinstance(entry, dict):
            result[key] = diff_to_bt(entry)
        elif isinstance(entry, list):
            result[key] = [list(entry[0]), list(entry[1])]
        else:
            result[key] = entry
    return result


def check_written_limits(data: Data, diff: Diff) -> None:
    """Writers may not create keys over 128 bytes or strings over 4096 bytes (D11); only the
    values this diff adds or assigns are checked, so over-limit data received from others can
    still be carried along."""
    for key, entry in diff.items():
        if not adds_anything(entry):
            continue
        if len(key) > MAX_KEY_LENGTH:
            raise UsageError(Reason.KEY_TOO_LONG, f"{len(key)}-byte key")
        value = data.get(key)
        if isinstance(entry, dict) and isinstance(value, dict):
            check_written_limits(value, entry)
        elif isinstance(entry, list):
            check_string_lengths(entry[0])
        elif isinstance(value, bytes):
            check_string_lengths([value])


def adds_anything(entry: DiffValue) -> bool:
    """True when a diff entry assigns a scalar or adds a set element, here or below."""
    if isinstance(entry, dict):
        return any(adds_anything(nested) for nested in entry.values())
    if isinstance(entry, list):
        return entry[0] != []
    return entry == ASSIGNED


def check_string_lengths(elements: list[Scalar]) -> None:
    for element in elements:
        if isinstance(element, bytes) and len(element) > MAX_STRING_LENGTH:
            raise UsageError(Reason.STRING_TOO_LONG, f"{len(element)}-byte string")


def apply_diff(current: Data, diff: Diff, source: Data) -> None:
    """Replay one diff onto `current`, taking assigned values from `source`, the data of the
    message the diff was taken from (design text "Conflict resolution" step 6; D15).

    Where `source` holds nothing at a path, or a value of another kind than the diff entry
    implies, the path is removed from `current` instead. A set or dict diff applied where
    `current` has no value of that kind starts from an empty one.
    """
    for key, entry in diff.items():
        origin = source.get(key)
        target = current.get(key)
        if entry == ASSIGNED and is_scalar(origin):
            assert isinstance(origin, int | bytes)
            current[key] = origin
        elif isinstance(entry, list) and isinstance(origin, set):
            elements = set(target) if isinstance(target, set) else set()
            current[key] = (elements | set(entry[0])) - set(entry[1])
        elif isinstance(entry, dict) and isinstance(origin, dict):
            nested = target if isinstance(target, dict) else {}
            apply_diff(nested, entry, origin)
            current[key] = nested
        else:
            # "-", or the source has nothing of the implied kind here
            current.pop(key, None)


def replay(start: Data, entries: list[tuple[Diff, Data]]) -> Data:
    """Apply `entries` (diff, source) in order to a copy of `start`, then prune empty sets and
    dicts recursively (D15)."""
    current = pruned(start)
    for diff, source in entries:
        apply_diff(current, diff, source)
    return pruned(current)
