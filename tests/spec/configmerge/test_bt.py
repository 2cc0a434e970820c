"""Canonical bt-encoding: round trips and every non-canonical form refused (D10)."""

from __future__ import annotations

import pytest
from config_strategies import bt_values
from hypothesis import given
from hypothesis import strategies as st

from swarmconf.spec.configmerge import bt
from swarmconf.spec.configmerge.reasons import ConfigError, Reason


@given(bt_values)
def test_decode_inverts_encode(value: bt.BtValue) -> None:
    assert bt.decode(bt.encode(value)) == value


@given(bt_values, st.data())
def test_every_accepted_input_is_its_own_encoding(value: bt.BtValue, data: st.DataObject) -> None:
    encoded = bytearray(bt.encode(value))
    position = data.draw(st.integers(0, len(encoded) - 1))
    encoded[position] = data.draw(st.sampled_from(b"0123456789:-iledx"))
    try:
        decoded = bt.decode(bytes(encoded))
    except ConfigError as error:
        assert isinstance(error.reason, Reason)
    else:
        assert bt.encode(decoded) == bytes(encoded)


REFUSED = [
    (b"", Reason.BT_TRUNCATED),
    (b"i1", Reason.BT_TRUNCATED),
    (b"l", Reason.BT_TRUNCATED),
    (b"d1:a", Reason.BT_TRUNCATED),
    (b"5:abc", Reason.BT_TRUNCATED),
    (b"99999999999999999999:x", Reason.BT_TRUNCATED),
    (b"i1ei2e", Reason.BT_TRAILING_BYTES),
    (b"dex", Reason.BT_TRAILING_BYTES),
    (b"x", Reason.BT_UNKNOWN_TYPE),
    (b"lfe", Reason.BT_UNKNOWN_TYPE),
    (b"ie", Reason.BT_BAD_INTEGER),
    (b"i-e", Reason.BT_BAD_INTEGER),
    (b"i1-2e", Reason.BT_BAD_INTEGER),
    (b"i+1e", Reason.BT_BAD_INTEGER),
    (b"i 1e", Reason.BT_BAD_INTEGER),
    (b"i01e", Reason.BT_LEADING_ZERO),
    (b"i-01e", Reason.BT_LEADING_ZERO),
    (b"i00e", Reason.BT_LEADING_ZERO),
    (b"02:hi", Reason.BT_LEADING_ZERO),
    (b"i-0e", Reason.BT_NEGATIVE_ZERO),
    (b"i9223372036854775808e", Reason.BT_INTEGER_RANGE),
    (b"i-9223372036854775809e", Reason.BT_INTEGER_RANGE),
    (b"-1:a", Reason.BT_UNKNOWN_TYPE),
    (b"1-:a", Reason.BT_BAD_STRING_LENGTH),
    (b"1a:a", Reason.BT_BAD_STRING_LENGTH),
    (b"di1ei1ee", Reason.BT_KEY_NOT_STRING),
    (b"dlei1ee", Reason.BT_KEY_NOT_STRING),
    (b"d1:bi1e1:ai2ee", Reason.BT_KEYS_UNSORTED),
    (b"d2:abi1e1:ai2ee", Reason.BT_KEYS_UNSORTED),
    (b"d1:ai1e1:ai2ee", Reason.BT_DUPLICATE_KEY),
]


@pytest.mark.parametrize(("encoded", "reason"), REFUSED, ids=[r[0].decode() for r in REFUSED])
def test_non_canonical_forms_are_refused(encoded: bytes, reason: Reason) -> None:
    with pytest.raises(ConfigError) as caught:
        bt.decode(encoded)
    assert caught.value.reason == reason


def test_first_violation_in_reading_order_wins() -> None:
    with pytest.raises(ConfigError) as caught:
        bt.decode(b"d1:bi01e1:ai-0ee")
    assert caught.value.reason == Reason.BT_LEADING_ZERO


def test_int64_bounds_are_accepted() -> None:
    assert bt.decode(b"i9223372036854775807e") == 2**63 - 1
    assert bt.decode(b"i-9223372036854775808e") == -(2**63)
    assert bt.decode(b"i0e") == 0 and bt.decode(b"0:") == b""


def test_wide_integers_only_under_the_named_top_level_keys() -> None:
    wide = b"d1:?li18446744073709551615eee"
    assert bt.decode(wide, wide_int_keys=lambda key: key == b"?") == {b"?": [2**64 - 1]}
    with pytest.raises(ConfigError) as caught:
        bt.decode(wide)
    assert caught.value.reason == Reason.BT_INTEGER_RANGE
    with pytest.raises(ConfigError):
        bt.decode(b"d1:?i18446744073709551616ee", wide_int_keys=lambda key: True)
    nested = b"d1:?d1:?i18446744073709551615eee"
    assert bt.decode(nested, wide_int_keys=lambda key: key == b"?") == {b"?": {b"?": 2**64 - 1}}
    with pytest.raises(ConfigError):
        bt.decode(b"d1:&d1:?i18446744073709551615eee", wide_int_keys=lambda key: key == b"?")


@pytest.mark.parametrize("opener", [b"l", b"d1:a"])
def test_nesting_limit(opener: bytes) -> None:
    depth = bt.MAX_DEPTH
    inner = b"i0e" if opener == b"l" else b"de"
    closer = b"e"
    deepest_ok = (b"l" * (depth - 1)) + (b"le" if opener == b"l" else b"de") + closer * (depth - 1)
    assert bt.decode(deepest_ok) is not None
    with pytest.raises(ConfigError) as caught:
        bt.decode(opener * (depth + 1) + inner + closer * (depth + 1))
    assert caught.value.reason == Reason.BT_TOO_DEEP


def test_hostile_nesting_is_refused_without_recursion_error() -> None:
    with pytest.raises(ConfigError) as caught:
        bt.decode(b"l" * 1_000_000)
    assert caught.value.reason == Reason.BT_TOO_DEEP


@pytest.mark.parametrize("value", [True, 1.5, "text", (1,), {1: 2}])
def test_encoder_refuses_non_bt_values(value: object) -> None:
    with pytest.raises(TypeError):
        bt.encode(value)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("encoded", "reason"),
    [
        (b"i" + b"1" * 5000 + b"e", Reason.BT_INTEGER_RANGE),
        (b"i-" + b"1" * 5000 + b"e", Reason.BT_INTEGER_RANGE),
        (b"i" + b"1" * 21 + b"e", Reason.BT_INTEGER_RANGE),
        (b"1" * 5000 + b":x", Reason.BT_TRUNCATED),
        (b"d1:#" + b"1" * 21 + b":x", Reason.BT_TRUNCATED),
    ],
)
def test_overlong_numbers_are_refused_with_a_reason(encoded: bytes, reason: Reason) -> None:
    with pytest.raises(ConfigError) as caught:
        bt.decode(encoded, wide_int_keys=lambda key: True)
    assert caught.value.reason == reason
