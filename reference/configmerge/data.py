"""Config data and diffs as plain dicts, sets and lists: validation, encoding, diffing, replay.

Editable data values are `int`, `bytes`, `set[int | bytes]` and `dict[bytes, Value]` (D11).
Messages keep their data in bt form, as decoded: each set a list in set order, never an empty
container; it is validated, replayed, diffed and encoded as such, and turned into sets only when
an application asks for `data`. A diff maps keys to `b""`, `b"-"`, a nested diff or
`[added, removed]` (D12).
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import compress
from operator import is_not, ne
from typing import Any, Final

from swarmconf.compiled import is_compiled
from swarmconf.spec.configmerge.reasons import ConfigError, Reason, UsageError

from . import bt
from .bt import INT64_MAX, INT64_MIN, MAX_DEPTH

Data = dict[bytes, Any]
# Data in bt form, as decoded from `&`: sets are lists in set order, no empty container.
BtData = dict[bytes, Any]
Diff = dict[bytes, Any]

# Whether this module runs compiled (mypyc), where some shortcuts of the interpreted code cost more
# than they save.
COMPILED: Final = is_compiled(__file__)
MAX_KEY_LENGTH: Final = 128
MAX_STRING_LENGTH: Final = 4096


def _scalar_run_error(items: list[Any]) -> Reason | None:
    """Why `items` is not strictly ordered as sets are (ints first, then bytes, ints in range),
    if it is not. Each element is given its type once it is known: compiled, the checks on it
    are then native operations rather than generic ones."""
    prev_int: int | None = None
    prev_bytes: bytes | None = None
    for item in items:
        t = type(item)
        if t is int:
            number: int = item
            if prev_bytes is not None or (prev_int is not None and number <= prev_int):
                return Reason.DATA_SET_UNSORTED
            if number < INT64_MIN or number > INT64_MAX:
                return Reason.BT_INTEGER_RANGE
            prev_int = number
        elif t is bytes:
            text: bytes = item
            if prev_bytes is not None and text <= prev_bytes:
                return Reason.DATA_SET_UNSORTED
            prev_bytes = text
        else:
            return Reason.DATA_SET_NOT_SCALAR
    return None


def check_data(
    data: Data, depth: int = 2, checked: BtData | None = None, shared: bool = False
) -> None:
    """Validate decoded data (D11); it stays as decoded (bt form).

    `depth` is the nesting level of `data` in the message (`&` is at 2). Integer ranges and
    nesting are checked too, for input that did not come through the strict decoder. Values
    equal to those at the same keys in `checked`, data at the same level already validated, are
    valid too: they are picked out by comparisons at C speed and not walked again; with
    `shared`, where `data` holds the very objects of `checked`, by identity. Compiled, the walk
    costs less than the comparisons, and only identity is used. Valid data is told by a quick
    walk; only data that fails it is walked again for its first violation.
    """
    values: Iterable[Any] = data.values()
    if checked is not None and (shared or not COMPILED):
        differ = is_not if shared else ne
        values = compress(values, map(differ, values, map(checked.get, data)))
    if depth > MAX_DEPTH or (depth > 2 and not data) or not _valid_values(values, depth):
        _raise_first_violation(data, depth)


def _valid_values(values: Iterable[Any], depth: int) -> bool:
    """Whether the values of a dict at nesting level `depth` are valid data (D10, D11).

    Each value is given its type once it is known (`number`, `inner`, `items`): compiled, the
    checks on it are then native operations rather than generic ones.
    """
    for value in values:
        t = type(value)
        if t is bytes:
            continue
        if t is int:
            number: int = value
            if number < INT64_MIN or number > INT64_MAX:
                return False
        elif t is dict:
            inner: dict[bytes, Any] = value
            if not inner or depth >= MAX_DEPTH or not _valid_values(inner.values(), depth + 1):
                return False
        elif t is not list or depth >= MAX_DEPTH:
            return False
        else:  # a set: not empty, ints in range then bytes, each run ascending
            items: list[Any] = value
            if not items or _scalar_run_error(items) is not None:
                return False
    return True


def _raise_first_violation(data: Data, depth: int) -> None:
    """Raise the first violation of D11 in invalid data, depth-first in key order."""
    if depth > MAX_DEPTH:
        raise ConfigError(Reason.BT_TOO_DEEP)
    if depth > 2 and not data:
        raise ConfigError(Reason.DATA_EMPTY_DICT)
    for key, value in data.items():
        t = type(value)
        if t is bytes:
            continue
        if t is int:
            if value < INT64_MIN or value > INT64_MAX:
                raise ConfigError(Reason.BT_INTEGER_RANGE)
        elif t is dict:
            _raise_first_violation(value, depth + 1)
        elif depth >= MAX_DEPTH:
            raise ConfigError(Reason.BT_TOO_DEEP)
        else:
            reason = _scalar_run_error(value)
            if reason is not None or not value:
                reason = Reason.DATA_EMPTY_SET if reason is None else reason
                raise ConfigError(reason, f"set {key!r}")


def check_bounds(value: Any, depth: int, high: int = INT64_MAX) -> None:
    """Integer range and nesting limits (D10) over a decoded bt value at nesting level `depth`."""
    t = type(value)
    if t is int:
        if value < INT64_MIN or value > high:
            raise ConfigError(Reason.BT_INTEGER_RANGE)
    elif t is list or t is dict:
        if depth > MAX_DEPTH:
            raise ConfigError(Reason.BT_TOO_DEEP)
        for item in value.values() if t is dict else value:
            if type(item) is not bytes:
                check_bounds(item, depth + 1, high)


def check_diff(diff: Any, depth: int = 2) -> None:
    """Validate a decoded diff (D12, X3): markers, no integers, well-formed ordered set diffs.

    `depth` is the diff's nesting level in the message (`=` is at 2); the nesting limit (D10)
    is checked too, for input that did not come through the strict decoder.
    """
    if type(diff) is not dict:
        raise ConfigError(Reason.DIFF_NOT_DICT)
    if depth > MAX_DEPTH:
        raise ConfigError(Reason.BT_TOO_DEEP)
    for key, value in diff.items():
        t = type(value)
        if t is bytes:
            if value != b"" and value != b"-":
                raise ConfigError(Reason.DIFF_BAD_MARKER, f"key {key!r}")
        elif t is dict:
            check_diff(value, depth + 1)
        elif t is int:
            raise ConfigError(Reason.DIFF_INTEGER, f"key {key!r}")
        else:
            _check_set_diff(key, value)
            if depth + 2 > MAX_DEPTH:  # the lists of added and removed elements
                raise ConfigError(Reason.BT_TOO_DEEP)


def _check_set_diff(key: bytes, value: list[Any]) -> None:
    if len(value) != 2 or type(value[0]) is not list or type(value[1]) is not list:
        raise ConfigError(Reason.DIFF_BAD_SET, f"key {key!r}")
    for part in value:
        for item in part:
            if type(item) is not int and type(item) is not bytes:
                raise ConfigError(Reason.DIFF_BAD_SET, f"key {key!r}")
        if _scalar_run_error(part) is not None:
            raise ConfigError(Reason.DIFF_SET_UNSORTED, f"key {key!r}")


def sorted_set(values: Any) -> list[int | bytes]:
    """A set's elements in set order: ints ascending, then bytes ascending."""
    ints: list[int | bytes] = sorted([x for x in values if type(x) is int])
    if len(ints) == len(values):
        return ints
    strs = sorted([x for x in values if type(x) is bytes])
    if len(ints) + len(strs) != len(values):
        raise UsageError(Reason.BAD_VALUE_TYPE, "set elements must be int or bytes")
    return ints + strs


def _check_int(value: int) -> None:
    if value < INT64_MIN or value > INT64_MAX:
        raise UsageError(Reason.INT_OUT_OF_RANGE, str(value))


def _sorted_keys(data: dict[Any, Any]) -> list[bytes]:
    try:
        keys = sorted(data)
    except TypeError:
        keys = []
    if len(keys) != len(data) or any(type(k) is not bytes for k in keys):
        raise UsageError(Reason.BAD_VALUE_TYPE, "dict keys must be bytes")
    return keys


def to_bt(data: Data) -> BtData:
    """Editable data in bt form: sets as ordered lists, empty containers pruned, a fresh copy.

    Types and ranges are checked depth-first in key order, so the first bad value is reported.
    """
    out: BtData = {}
    for key in _sorted_keys(data):
        value = data[key]
        t = type(value)
        if t is bytes:
            out[key] = value
        elif t is int:
            _check_int(value)
            out[key] = value
        elif t is set:
            if value:
                items = sorted_set(value)
                for item in items:
                    if type(item) is not int:
                        break
                    _check_int(item)
                out[key] = items
        elif t is dict:
            sub = to_bt(value)
            if sub:
                out[key] = sub
        else:
            raise UsageError(Reason.BAD_VALUE_TYPE, f"{t.__name__} at key {key!r}")
    return out


def from_bt(data: BtData) -> Data:
    """Data in bt form as editable data: a fresh copy with every list turned into a set."""
    out: Data = {}
    for key, value in data.items():
        t = type(value)
        if t is dict:
            out[key] = from_bt(value)
        elif t is list:
            out[key] = set(value)
        else:
            out[key] = value
    return out


def encode_data(data: Data) -> bytes:
    """The canonical encoding of editable `data` as written under `&` (empty containers pruned)."""
    return bt.encode_fast(to_bt(data))


def _kind(value: Any) -> type:
    t = type(value)
    return int if t is bytes else t


def _added(value: Any) -> Any:
    t = type(value)
    if t is dict:
        return {k: _added(v) for k, v in value.items()}
    if t is list:
        return [list(value), []]
    return b""


def _removed(value: Any) -> Any:
    t = type(value)
    if t is dict:
        return {k: _removed(v) for k, v in value.items()}
    if t is list:
        return [[], list(value)]
    return b"-"


def make_diff(old: BtData, new: BtData) -> Diff:
    """The D12 diff from `old` to `new`, both in bt form."""
    out: Diff = {}
    for key in sorted(old.keys() | new.keys()):
        if key not in new:
            out[key] = _removed(old[key])
            continue
        n = new[key]
        if key not in old:
            out[key] = _added(n)
            continue
        o = old[key]
        if o == n and type(o) is type(n):
            continue  # compared at C speed, unchanged subtrees cost nothing more
        kind = _kind(n)
        if kind is not _kind(o):
            out[key] = _added(n)
        elif kind is dict:
            sub = make_diff(o, n)
            if sub:
                out[key] = sub
        elif kind is list:
            now, before = set(n), set(o)
            out[key] = [sorted_set(now - before), sorted_set(before - now)]
        else:
            out[key] = b""
    return out


def check_writer_limits(diff: Diff, data: Data) -> None:
    """D11 writer limits on what `diff` marks as added or assigned in `data`."""
    for key, mark in diff.items():
        t = type(mark)
        if t is bytes:
            if mark == b"-":
                continue
            _check_key(key)
            value = data[key]
            if type(value) is bytes and len(value) > MAX_STRING_LENGTH:
                raise UsageError(Reason.STRING_TOO_LONG, f"at key {key!r}")
        elif t is dict:
            if _adds_anything(mark):
                _check_key(key)
            check_writer_limits(mark, data[key] if type(data.get(key)) is dict else {})
        elif mark[0]:
            _check_key(key)
            for item in mark[0]:
                if type(item) is bytes and len(item) > MAX_STRING_LENGTH:
                    raise UsageError(Reason.STRING_TOO_LONG, f"in set {key!r}")


def _adds_anything(diff: Diff) -> bool:
    for mark in diff.values():
        t = type(mark)
        if (t is bytes and mark == b"") or (t is dict and _adds_anything(mark)):
            return True
        if t is list and mark[0]:
            return True
    return False


def _check_key(key: bytes) -> None:
    if len(key) > MAX_KEY_LENGTH:
        raise UsageError(Reason.KEY_TOO_LONG, f"{len(key)} bytes")


_NOTHING: BtData = {}  # an absent dict, never written: the first change copies it


def apply_diff(cur: BtData, diff: Diff, src: BtData, owned: dict[int, BtData]) -> BtData:
    """Replay one diff onto `cur` taking values from `src` (D15), in bt form; return the result.

    Dicts not listed in `owned` are shared with parsed messages: one is copied (and listed) at
    its first change, and returned unchanged when the diff changes nothing in it, which is the
    usual case for a diff replayed onto the data it was taken from. A replay thus costs what its
    diffs change. Lists (sets) are never changed in place: a changed set is a new list.
    """
    out = cur
    for key, mark in diff.items():
        s = src.get(key)
        old = out.get(key)
        t = type(mark)
        new: Any
        if t is bytes:
            ts = type(s)
            new = s if mark == b"" and (ts is int or ts is bytes) else None
            if new is not None and type(old) is ts and old == new:
                continue  # the same scalar, from another message
        elif t is list:
            if type(s) is not list:
                new = None
            elif type(old) is list:
                items = set(old)
                items.update(mark[0])
                items.difference_update(mark[1])
                if len(items) == len(old) and items.issuperset(old):
                    continue
                new = sorted_set(items) if items else None
            else:
                items = set(mark[0])
                items.difference_update(mark[1])
                new = sorted_set(items) if items else None
        elif type(s) is not dict:
            new = None
        else:
            new = apply_diff(old if type(old) is dict else _NOTHING, mark, s, owned) or None
        if new is old:
            continue
        if id(out) not in owned:
            out = dict(out)
            owned[id(out)] = out
        if new is None:
            del out[key]
        else:
            out[key] = new
    return out
