"""The conformance tools' own bt codec: canonical output equal to the spec's, lenient reading."""

from __future__ import annotations

import pytest
from config_strategies import bt_values
from hypothesis import given
from hypothesis import strategies as st

from swarmconf.conformance import btcodec
from swarmconf.spec.configmerge import bt


@given(bt_values)
def test_encodes_as_the_spec_does_and_reads_back(value: bt.BtValue) -> None:
    encoded = btcodec.encode(value)
    assert encoded == bt.encode(value)
    assert btcodec.decode(encoded) == value


@given(st.sets(st.integers(-5, 5) | st.binary(max_size=3), max_size=6))
def test_sets_are_written_ints_first_then_byte_strings(value: set[int | bytes]) -> None:
    ordered = sorted(value, key=lambda item: (isinstance(item, bytes), item))
    assert btcodec.encode(value) == bt.encode(ordered)
    assert btcodec.encode(tuple(ordered)) == btcodec.encode(value)


@pytest.mark.parametrize("value", [True, 1.5, "text", None])
def test_refuses_what_is_not_bt(value: object) -> None:
    with pytest.raises(TypeError):
        btcodec.encode(value)
