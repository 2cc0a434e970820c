"""Hostile bytes only ever raise `ConfigError` with a known reason code."""

from __future__ import annotations

import pytest
from config_strategies import histories
from hypothesis import given, settings
from hypothesis import strategies as st

from swarmconf.spec.configmerge import ConfigError, Reason, bt, merge, parse
from swarmconf.spec.configmerge.examples import m127

SEED_MESSAGE = m127()


def parse_or_reason(encoded: bytes) -> Reason | None:
    try:
        parse(encoded)
    except ConfigError as error:
        assert isinstance(error.reason, Reason)
        return error.reason
    return None


@st.composite
def mutated(draw: st.DrawFn, original: bytes) -> bytes:
    """A message after flipped bytes, truncation, insertion, deletion or swapped chunks."""
    data = bytearray(original)
    for _ in range(draw(st.integers(1, 3))):
        if not data:
            break
        position = draw(st.integers(0, len(data) - 1))
        kind = draw(st.sampled_from(["flip", "truncate", "insert", "delete", "swap", "retype"]))
        if kind == "flip":
            data[position] ^= 1 << draw(st.integers(0, 7))
        elif kind == "truncate":
            del data[position:]
        elif kind == "insert":
            data[position:position] = draw(st.binary(min_size=1, max_size=4))
        elif kind == "delete":
            del data[position : position + draw(st.integers(1, 8))]
        elif kind == "swap":
            other = draw(st.integers(0, len(data) - 1))
            data[position], data[other] = data[other], data[position]
        else:
            data[position] = draw(st.sampled_from(b"ilde0123456789:-"))
    return bytes(data)


@settings(max_examples=500)
@given(mutated(SEED_MESSAGE))
def test_mutated_messages_parse_or_fail_with_a_reason(encoded: bytes) -> None:
    if parse_or_reason(encoded) is None:
        # Accepted input is canonical, and its serialization is a fixed point
        assert bt.encode(bt.decode(encoded, wide_int_keys=lambda key: True)) == encoded
        serialized = parse(encoded).serialize()
        assert parse(serialized).serialize() == serialized


@settings(max_examples=300)
@given(st.binary(max_size=64))
def test_random_bytes_fail_with_a_reason(encoded: bytes) -> None:
    parse_or_reason(encoded)


@settings(max_examples=50, deadline=None)
@given(histories(), st.data())
def test_merge_skips_mutated_inputs(published: list[bytes], draws: st.DataObject) -> None:
    broken = [draws.draw(mutated(message)) for message in published]
    valid = [m for m in published + broken if parse_or_reason(m) is None]
    if valid:
        assert merge(published + broken).serialize() == merge(valid).serialize()


def encode_raw(items: list[tuple[bytes, bytes]]) -> bytes:
    """A dict from (key, encoded value) pairs in the given order, sorted or not."""
    return b"d" + b"".join(bt.encode(key) + value for key, value in items) + b"e"


def swap_adjacent(items: list[tuple[bytes, bytes]], i: int) -> list[tuple[bytes, bytes]]:
    return [*items[:i], items[i + 1], items[i], *items[i + 2 :]]


def top_items() -> list[tuple[bytes, bytes]]:
    top = bt.decode(SEED_MESSAGE)
    assert isinstance(top, dict)
    return [(key, bt.encode(value)) for key, value in top.items()]


def test_reordered_keys_are_refused_at_every_level() -> None:
    items = top_items()
    for i in range(len(items) - 1):
        assert parse_or_reason(encode_raw(swap_adjacent(items, i))) == Reason.BT_KEYS_UNSORTED
    data = bt.decode(dict(items)[b"&"])
    assert isinstance(data, dict)
    data_items = [(key, bt.encode(value)) for key, value in data.items()]
    for i in range(len(data_items) - 1):
        reordered = [
            (k, encode_raw(swap_adjacent(data_items, i)) if k == b"&" else v) for k, v in items
        ]
        assert parse_or_reason(encode_raw(reordered)) == Reason.BT_KEYS_UNSORTED
    assert parse_or_reason(encode_raw([items[0], *items])) == Reason.BT_DUPLICATE_KEY


@pytest.mark.parametrize(
    ("key", "replacement", "reason"),
    [
        (b"#", b"3:127", Reason.MSG_BAD_SEQNO),
        (b"&", b"li1ee", Reason.MSG_BAD_DATA),
        (b"<", b"de", Reason.LAGGED_NOT_LIST),
        (b"=", b"le", Reason.DIFF_NOT_DICT),
    ],
)
def test_swapped_types_are_refused(key: bytes, replacement: bytes, reason: Reason) -> None:
    swapped = [(k, replacement if k == key else v) for k, v in top_items()]
    assert parse_or_reason(encode_raw(swapped)) == reason
