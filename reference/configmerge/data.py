"""Config data and diffs as plain dicts, sets and lists: validation, encoding, diffing, replay.

Data values are `int`, `bytes`, `set[int | bytes]` and `dict[bytes, Value]` (D11). A diff maps
keys to `b""`, `b"-"`, a nested diff or `[added, removed]` (D12).
"""

from __future__ import annotations

from typing import Any

from swarmconf.spec.configmerge.reasons import ConfigError, Reason, UsageError

from . import bt
from .bt import INT64_MAX, INT64_MIN, MAX_DEPTH

try:  # The compiled encoder that goes with the compiled decoder in `bt`.
    from bencode2 import bencode as _accelerated_encode
except ImportError:  # pragma: no cover - the pure encoder is the fallback
    _accelerated_encode = None  # type: ignore[assignment]

Data = dict[bytes, Any]
Diff = dict[bytes, Any]

MAX_KEY_LENGTH = 128
MAX_STRING_LENGTH = 4096


def _scalar_run_error(items: list[Any]) -> Reason | None:
    """Why `items` is not strictly ordered as sets are (ints first, then bytes), if it is not."""
    prev: Any = None
    for item in items:
        t = type(item)
        if t is int:
            if prev is not None and (type(prev) is bytes or item <= prev):
                return Reason.DATA_SET_UNSORTED
            if item < INT64_MIN or item > INT64_MAX:
                return Reason.BT_INTEGER_RANGE
        elif t is bytes:
            if type(prev) is bytes and item <= prev:
                return Reason.DATA_SET_UNSORTED
        else:
            return Reason.DATA_SET_NOT_SCALAR
        prev = item
    return None


def check_data(data: Data, depth: int = 2) -> None:
    """Validate decoded data in place (D11), depth-first in key order; lists become sets.

    `depth` is the nesting level of `data` in the message (`&` is at 2). Integer ranges and
    nesting are checked too, for input that did not come through the strict decoder.
    """
    if depth > MAX_DEPTH:
        raise ConfigError(Reason.BT_TOO_DEEP)
    if depth > 2 and not data:
        raise ConfigError(Reason.DATA_EMPTY_DICT)
    for key, value in data.items():
        t = type(value)
        if t is int:
            if value < INT64_MIN or value > INT64_MAX:
                raise ConfigError(Reason.BT_INTEGER_RANGE)
        elif t is list:
            if depth >= MAX_DEPTH:
                raise ConfigError(Reason.BT_TOO_DEEP)
            reason = _scalar_run_error(value)
            if reason is not None:
                raise ConfigError(reason, f"set {key!r}")
            if not value:
                raise ConfigError(Reason.DATA_EMPTY_SET, f"set {key!r}")
            data[key] = set(value)
        elif t is dict:
            check_data(value, depth + 1)


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


def check_diff(diff: Any) -> None:
    """Validate a decoded diff (D12, X3): markers, no integers, well-formed ordered set diffs."""
    if type(diff) is not dict:
        raise ConfigError(Reason.DIFF_NOT_DICT)
    for key, value in diff.items():
        t = type(value)
        if t is bytes:
            if value != b"" and value != b"-":
                raise ConfigError(Reason.DIFF_BAD_MARKER, f"key {key!r}")
        elif t is dict:
            check_diff(value)
        elif t is int:
            raise ConfigError(Reason.DIFF_INTEGER, f"key {key!r}")
        else:
            _check_set_diff(key, value)


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
    ints = sorted(x for x in values if type(x) is int)
    strs = sorted(x for x in values if type(x) is bytes)
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


def encode_data_into(data: Data, out: list[bytes]) -> None:
    """Append the entries (no `d`/`e`) of `data`: types checked, empty containers pruned."""
    for key in _sorted_keys(data):
        value = data[key]
        t = type(value)
        if t is bytes:
            out += (b"%d:" % len(key), key, b"%d:" % len(value), value)
        elif t is int:
            _check_int(value)
            out += (b"%d:" % len(key), key, b"i%de" % value)
        elif t is set:
            if value:
                out += (b"%d:" % len(key), key, b"l")
                for item in sorted_set(value):
                    if isinstance(item, int):
                        _check_int(item)
                        out.append(b"i%de" % item)
                    else:
                        out.append(b"%d:" % len(item))
                        out.append(item)
                out.append(b"e")
        elif t is dict:
            mark = len(out)
            out += (b"%d:" % len(key), key, b"d")
            encode_data_into(value, out)
            if len(out) == mark + 3:
                del out[mark:]
            else:
                out.append(b"e")
        else:
            raise UsageError(Reason.BAD_VALUE_TYPE, f"{t.__name__} at key {key!r}")


def encode_data(data: Data) -> bytes:
    """The canonical encoding of `data` as written under `&` (empty containers pruned)."""
    if bt.ACCELERATED and _accelerated_encode is not None:
        try:
            return _accelerated_encode(_to_bt(data))
        except UsageError:
            pass  # the pure encoder below reports the first bad value in key order
    out = [b"d"]
    encode_data_into(data, out)
    out.append(b"e")
    return b"".join(out)


def _to_bt(data: Data) -> dict[bytes, Any]:
    """`data` as bt values for the compiled encoder: sets as ordered lists, empties pruned.

    It checks what the compiled encoder would let through (bools, str keys, int range).
    """
    out: dict[bytes, Any] = {}
    for key, value in data.items():
        if type(key) is not bytes:
            raise UsageError(Reason.BAD_VALUE_TYPE)
        t = type(value)
        if t is bytes:
            out[key] = value
        elif t is int:
            if value < INT64_MIN or value > INT64_MAX:
                raise UsageError(Reason.INT_OUT_OF_RANGE)
            out[key] = value
        elif t is set:
            if value:
                items = sorted_set(value)
                for item in items:
                    if type(item) is not int:
                        break
                    if item < INT64_MIN or item > INT64_MAX:
                        raise UsageError(Reason.INT_OUT_OF_RANGE)
                out[key] = items
        elif t is dict:
            sub = _to_bt(value)
            if sub:
                out[key] = sub
        else:
            raise UsageError(Reason.BAD_VALUE_TYPE)
    return out


def encode_diff(diff: Diff) -> bytes:
    """The encoding of a diff (or any bt value known to be well typed)."""
    if bt.ACCELERATED and _accelerated_encode is not None:
        return bytes(_accelerated_encode(diff))
    return bt.encode(diff)


def pruned_copy(data: Data) -> Data:
    """A deep copy of `data` without empty sets and dicts (types are assumed checked)."""
    out: Data = {}
    for key, value in data.items():
        t = type(value)
        if t is dict:
            value = pruned_copy(value)
        elif t is set:
            value = set(value)
        else:
            out[key] = value
            continue
        if value:
            out[key] = value
    return out


def _kind(value: Any) -> type:
    t = type(value)
    return int if t is bytes else t


def _added(value: Any) -> Any:
    t = type(value)
    if t is dict:
        return {k: _added(value[k]) for k in sorted(value)}
    if t is set:
        return [sorted_set(value), []]
    return b""


def _removed(value: Any) -> Any:
    t = type(value)
    if t is dict:
        return {k: _removed(value[k]) for k in sorted(value)}
    if t is set:
        return [[], sorted_set(value)]
    return b"-"


def make_diff(old: Data, new: Data) -> Diff:
    """The D12 diff from `old` to `new` (both pruned)."""
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
        elif kind is set:
            if o != n:
                out[key] = [sorted_set(n - o), sorted_set(o - n)]
        elif type(o) is not type(n) or o != n:
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


def apply_diff(cur: Data, diff: Diff, src: Any, owned: dict[int, Any]) -> None:
    """Replay one diff onto `cur` (owned, writable) taking values from `src` (D15).

    Containers of `cur` not listed in `owned` are shared with a parsed message: they are
    copied before their first change (copy on write), so a replay costs what its diffs name.
    """
    for key, mark in diff.items():
        s = src.get(key) if type(src) is dict else None
        t = type(mark)
        if t is bytes:
            ts = type(s)
            if mark == b"" and (ts is int or ts is bytes):
                cur[key] = s
            else:
                cur.pop(key, None)
        elif t is list:
            if type(s) is not set:
                cur.pop(key, None)
                continue
            c = cur.get(key)
            if type(c) is not set:
                c = set()
                owned[id(c)] = c
            elif id(c) not in owned:
                c = set(c)
                owned[id(c)] = c
            c.update(mark[0])
            c.difference_update(mark[1])
            if c:
                cur[key] = c
            else:
                cur.pop(key, None)
        else:
            if type(s) is not dict:
                cur.pop(key, None)
                continue
            d = cur.get(key)
            if type(d) is not dict:
                d = {}
                owned[id(d)] = d
            elif id(d) not in owned:
                d = dict(d)
                owned[id(d)] = d
            apply_diff(d, mark, s, owned)
            if d:
                cur[key] = d
            else:
                cur.pop(key, None)
