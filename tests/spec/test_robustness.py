"""Hostile bytes only ever raise `ConfigError` with a known reason code."""

from __future__ import annotations

from config_strategies import histories
from hypothesis import given, settings
from hypothesis import strategies as st

from swarmconf.spec import ConfigError, Reason, bt, merge, parse
from swarmconf.spec.examples import m127

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
