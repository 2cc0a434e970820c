"""Hypothesis strategies for config data, diffs and bt values, shared by the test suites."""

from __future__ import annotations

from hypothesis import strategies as st

from swarmconf.spec.configmerge.bt import INT64_MAX, INT64_MIN, BtValue
from swarmconf.spec.configmerge.data import Data, Scalar, Value

# Small alphabets make collisions, shared prefixes and interesting orderings likely.
keys = st.binary(max_size=3).map(lambda b: bytes(b"abc"[x % 3] for x in b)) | st.sampled_from(
    [b"", b"a", b"ab", b"b", b"\xff", b"#"]
)
ints = st.integers(-3, 3) | st.sampled_from([INT64_MIN, INT64_MAX, -1, 0, 256])
strings = st.binary(max_size=4)
scalars: st.SearchStrategy[Scalar] = ints | strings
sets: st.SearchStrategy[set[Scalar]] = st.sets(scalars, min_size=1, max_size=4)


def values(depth: int = 3) -> st.SearchStrategy[Value]:
    """A data value: scalar, non-empty set, or non-empty dict nested up to `depth`."""
    if depth == 0:
        return scalars | sets
    return (
        scalars
        | sets
        | st.dictionaries(keys, st.deferred(lambda: values(depth - 1)), min_size=1, max_size=3)
    )


data: st.SearchStrategy[Data] = st.dictionaries(keys, values(), max_size=5)

bt_values: st.SearchStrategy[BtValue] = st.recursive(
    st.integers(INT64_MIN, INT64_MAX) | st.binary(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.binary(max_size=4), inner, max_size=4)
    ),
    max_leaves=20,
)


@st.composite
def edited(draw: st.DrawFn, base: Data) -> Data:
    """`base` after a few random edits: assignments, removals, set changes, kind changes and
    emptying sets or dicts, at the top level or one dict down."""
    import copy

    result = copy.deepcopy(base)
    for _ in range(draw(st.integers(0, 4))):
        target = result
        nested = [k for k, v in result.items() if isinstance(v, dict)]
        if nested and draw(st.booleans()):
            inner = result[draw(st.sampled_from(sorted(nested)))]
            assert isinstance(inner, dict)
            target = inner
        key = draw(st.sampled_from(sorted(target)) if target and draw(st.booleans()) else keys)
        current = target.get(key)
        operation = draw(st.sampled_from(["assign", "remove", "set-add", "set-remove", "empty"]))
        if operation == "assign":
            target[key] = draw(values(2))
        elif operation == "remove":
            target.pop(key, None)
        elif operation == "set-add":
            target[key] = (current if isinstance(current, set) else set()) | {draw(scalars)}
        elif operation == "set-remove" and isinstance(current, set) and current:
            current.discard(draw(st.sampled_from(sorted(current, key=repr))))
        elif operation == "empty" and isinstance(current, set | dict):
            current.clear()
    return result


@st.composite
def histories(draw: st.DrawFn, lag: int = 5) -> list[bytes]:
    """Published messages of a random history: forks that edit and increment, and merges of
    random subsets of what was published so far, all starting from one first message."""
    from swarmconf.spec.configmerge import ConfigMessage, merge, parse

    first = ConfigMessage.new(draw(st.integers(0, 3)), lag=lag)
    first.data.update(draw(data))
    published = [first.serialize()]
    for _ in range(draw(st.integers(1, 7))):
        if draw(st.booleans()) or len(published) < 2:
            parent = parse(draw(st.sampled_from(published)), lag=lag).increment()
            parent.data = draw(edited(parent.data))
            published.append(parent.serialize())
        else:
            subset = draw(st.lists(st.sampled_from(published), min_size=2, max_size=4))
            result = merge(subset, lag=lag)
            if result.merged:
                result.data = draw(edited(result.data))
            published.append(result.serialize())
    return published
