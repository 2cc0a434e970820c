"""Decoding a message alike an earlier one gives what a full decoding gives, or nothing."""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import swarmconf.reference.configmerge as ref
from swarmconf.reference.configmerge import bt, splice

SETTINGS = settings(
    max_examples=int(os.environ.get("SWARMCONF_DIFF_EXAMPLES", "200")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    derandomize=True,
)

KEYS = st.binary(max_size=3)
SCALARS = st.one_of(st.integers(-3, 300), st.binary(max_size=6))
VALUES = st.recursive(
    st.one_of(SCALARS, st.sets(SCALARS, max_size=3)),
    lambda inner: st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=5,
)
DATA = st.dictionaries(KEYS, VALUES, max_size=12)
EDITS = st.lists(st.tuples(KEYS, st.one_of(st.none(), VALUES)), max_size=5)
MUTATIONS = st.lists(
    st.tuples(st.integers(0, 10**6), st.binary(min_size=1, max_size=2)), max_size=2
)


@pytest.fixture(autouse=True)
def codec(monkeypatch: pytest.MonkeyPatch) -> None:
    """The matching needs the compiled codec (this file replaces the package-wide fixture)."""
    monkeypatch.setattr(bt, "ACCELERATED", True)


def message(data: dict[bytes, Any], seqno: int, history: int) -> bytes:
    msg = ref.ConfigMessage.new(seqno - history)
    for step in range(history):
        msg = msg.increment()
        msg.data[b"step"] = step
    msg = msg.increment()
    msg.data.clear()
    msg.data.update(data)
    return msg.serialize()


def edited(data: dict[bytes, Any], edits: list[tuple[bytes, Any]]) -> dict[bytes, Any]:
    out = dict(data)
    for key, value in edits:
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out


def layout_of(raw: bytes) -> splice.Layout | None:
    top = bt.decode_fast(raw)
    assert top is not None
    return splice.layout(raw, top[b"&"], top.get(b"<"))


@SETTINGS
@given(DATA, EDITS, st.integers(0, 3), st.integers(0, 3), MUTATIONS)
def test_alike_decoding_is_full_decoding(
    data: dict[bytes, Any],
    edits: list[tuple[bytes, Any]],
    history: int,
    other_history: int,
    mutations: list[tuple[int, bytes]],
) -> None:
    earlier = message(data, 10, history)
    raw = bytearray(message(edited(data, edits), 10 + other_history, history))
    for where, chunk in mutations:
        at = where % (len(raw) + 1)
        raw[at : at + len(chunk)] = chunk
    found = layout_of(earlier)
    assert found is not None
    result = splice.decode_alike(bytes(raw), found)
    full = bt.decode_fast(bytes(raw))
    if result is None:
        return
    top, derived = result
    assert top == full and list(top) == list(full)
    assert derived == splice.layout(bytes(raw), top[b"&"], top[b"<"])


def test_merges_of_large_messages_share_the_entries_in_common() -> None:
    data = {b"k%04d" % i: {b"v": i, b"s": {i, b"x"}} for i in range(2000)}
    base = ref.parse(message(data, 10, 2)).increment()
    forks = []
    for fork in range(3):
        successor = ref.parse(base.serialize()).increment()
        successor.data[b"k%04d" % (fork * 7)][b"v"] = -fork - 1
        successor.data[b"fork%d" % fork] = fork
        forks.append(successor.serialize())
    assert len(forks[0]) >= splice.MIN_SIZE
    found = layout_of(forks[0])
    assert found is not None
    result = splice.decode_alike(forks[1], found)
    assert result is not None
    earlier = dict(found.items)
    assert sum(v is earlier.get(k) for k, v in result[0][b"&"].items()) == len(data) - 2
    merged = ref.merge(forks)
    assert merged.data == ref.merge(list(reversed(forks))).data
    assert all(merged.data[b"fork%d" % fork] == fork for fork in range(3))
