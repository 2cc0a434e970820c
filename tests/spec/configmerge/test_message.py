"""The outer message: parse checks and their reason codes (D7, D8, D9, D11, D12), serialization
round trips, increments (D13) and the writer limits (D11)."""

from __future__ import annotations

import pytest
from config_strategies import data, edited
from hypothesis import given
from hypothesis import strategies as st

from swarmconf.spec.configmerge import (
    ConfigError,
    ConfigMessage,
    LaggedEntry,
    Reason,
    UsageError,
    parse,
)
from swarmconf.spec.configmerge.bt import encode
from swarmconf.spec.configmerge.data import Data, pruned
from swarmconf.spec.configmerge.message import DEFAULT_LAG

HASH = bytes(range(32))


def message(**fields: object) -> bytes:
    """A bt-encoded top-level dict with defaults for the required keys."""
    top: dict[bytes, object] = {b"#": 10, b"&": {}, b"=": {}}
    top.update({key.encode(): value for key, value in fields.items()})
    return encode({k: v for k, v in top.items() if v is not None})  # type: ignore[misc]


def lagged(*entries: object) -> bytes:
    return message(**{"<": list(entries)})


def test_minimal_messages_from_d8() -> None:
    assert parse(b"d1:#i0e1:&de1:=dee").seqno == 0
    with pytest.raises(ConfigError) as caught:
        parse(b"d1:#i0e1:&de1:<lee")
    assert caught.value.reason == Reason.MSG_ENDS_BEFORE_DIFF


INVALID = [
    ("list", b"le", Reason.MSG_NOT_DICT),
    ("int", b"i1e", Reason.MSG_NOT_DICT),
    ("string", b"1:d", Reason.MSG_NOT_DICT),
    ("empty-dict", b"de", Reason.MSG_MISSING_SEQNO),
    ("version-break", b"d1:!i1e1:#i1e1:&de1:=dee", Reason.MSG_VERSION_BREAK),
    ("version-break-empty-key", b"d0:i0e1:#i1e1:&de1:=dee", Reason.MSG_VERSION_BREAK),
    ("no-seqno", b"d1:&de1:=dee", Reason.MSG_MISSING_SEQNO),
    ("seqno-string", message(**{"#": b"1"}), Reason.MSG_BAD_SEQNO),
    ("seqno-list", message(**{"#": [1]}), Reason.MSG_BAD_SEQNO),
    ("no-data", message(**{"&": None}), Reason.MSG_MISSING_DATA),
    ("data-list", message(**{"&": [1]}), Reason.MSG_BAD_DATA),
    ("data-int", message(**{"&": 3}), Reason.MSG_BAD_DATA),
    ("key-after-signature", message(**{"\x7f": 1}), Reason.MSG_KEY_AFTER_SIGNATURE),
    ("only-lagged", message(**{"=": None, "<": []}), Reason.MSG_ENDS_BEFORE_DIFF),
    ("only-data", message(**{"=": None}), Reason.MSG_ENDS_BEFORE_DIFF),
    ("empty-set", message(**{"&": {b"a": []}}), Reason.DATA_EMPTY_SET),
    ("set-of-sets", message(**{"&": {b"a": [[1]]}}), Reason.DATA_SET_NOT_SCALAR),
    ("set-of-dicts", message(**{"&": {b"a": [{}]}}), Reason.DATA_SET_NOT_SCALAR),
    ("set-unsorted", message(**{"&": {b"a": [2, 1]}}), Reason.DATA_SET_UNSORTED),
    ("set-duplicate", message(**{"&": {b"a": [b"x", b"x"]}}), Reason.DATA_SET_UNSORTED),
    ("set-string-first", message(**{"&": {b"a": [b"x", 1]}}), Reason.DATA_SET_UNSORTED),
    ("empty-subdict", message(**{"&": {b"a": {}}}), Reason.DATA_EMPTY_DICT),
    ("nested-empty-set", message(**{"&": {b"a": {b"b": []}}}), Reason.DATA_EMPTY_SET),
    ("lagged-dict", message(**{"<": {}}), Reason.LAGGED_NOT_LIST),
    ("lagged-int-entry", lagged(9), Reason.LAGGED_BAD_ENTRY),
    ("lagged-empty-entry", lagged([]), Reason.LAGGED_BAD_ENTRY),
    ("lagged-string-seqno", lagged([b"9", HASH, {}]), Reason.LAGGED_BAD_ENTRY),
    ("lagged-short-entry", lagged([9, HASH]), Reason.LAGGED_BAD_ENTRY),
    ("lagged-long-entry", lagged([9, HASH, {}, 1]), Reason.LAGGED_BAD_ENTRY),
    ("lagged-diff-list", lagged([9, HASH, []]), Reason.LAGGED_BAD_ENTRY),
    ("lagged-short-hash", lagged([9, HASH[:31], {}]), Reason.LAGGED_BAD_HASH),
    ("lagged-same-seqno", lagged([10, HASH, {}]), Reason.LAGGED_SEQNO_TOO_HIGH),
    ("lagged-future", lagged([11, HASH, {}]), Reason.LAGGED_SEQNO_TOO_HIGH),
    ("lagged-unsorted", lagged([9, HASH, {}], [8, HASH, {}]), Reason.LAGGED_UNSORTED),
    ("lagged-duplicate", lagged([9, HASH, {}], [9, HASH, {}]), Reason.LAGGED_UNSORTED),
    ("lagged-bad-diff", lagged([9, HASH, {b"a": 1}]), Reason.DIFF_INTEGER),
    ("diff-list", message(**{"=": []}), Reason.DIFF_NOT_DICT),
    ("diff-marker", message(**{"=": {b"a": b"+"}}), Reason.DIFF_BAD_MARKER),
    ("diff-integer", message(**{"=": {b"a": 0}}), Reason.DIFF_INTEGER),
    ("diff-nested-integer", message(**{"=": {b"a": {b"b": 1}}}), Reason.DIFF_INTEGER),
    ("diff-set-one-list", message(**{"=": {b"a": [[1]]}}), Reason.DIFF_BAD_SET),
    ("diff-set-non-scalar", message(**{"=": {b"a": [[[1]], []]}}), Reason.DIFF_BAD_SET),
    ("diff-set-not-lists", message(**{"=": {b"a": [1, 2]}}), Reason.DIFF_BAD_SET),
    ("diff-set-unsorted", message(**{"=": {b"a": [[2, 1], []]}}), Reason.DIFF_SET_UNSORTED),
    ("diff-set-duplicate", message(**{"=": {b"a": [[], [1, 1]]}}), Reason.DIFF_SET_UNSORTED),
    ("signature-short", message(**{"~": b"x" * 63}), Reason.SIG_MALFORMED),
    ("signature-int", message(**{"~": 5}), Reason.SIG_MALFORMED),
    ("bt-first", b"d1:#i01ee", Reason.BT_LEADING_ZERO),
]


@pytest.mark.parametrize(
    ("encoded", "reason"), [c[1:] for c in INVALID], ids=[c[0] for c in INVALID]
)
def test_invalid_messages_have_their_reason(encoded: bytes, reason: Reason) -> None:
    with pytest.raises(ConfigError) as caught:
        parse(encoded)
    assert caught.value.reason == reason


def test_every_seqno_in_int64_is_valid() -> None:
    for seqno in (-(2**63), -1, 0, 2**63 - 1):
        assert parse(message(**{"#": seqno})).seqno == seqno


def test_old_lagged_entries_are_dropped_as_soon_as_their_seqno_is_read() -> None:
    # seqno 10, lag 5: entries at 5 or below are dropped unchecked, 6..9 are kept (D7)
    encoded = lagged([4, b"junk"], [5, HASH, {b"x": 1}], [6, HASH, {}], [9, HASH, {}])
    parsed = parse(encoded)
    assert [entry.seqno for entry in parsed.lagged] == [6, 9]
    assert [entry.seqno for entry in parse(encoded, lag=1).lagged] == []
    with pytest.raises(ConfigError) as caught:
        parse(encoded, lag=7)
    assert caught.value.reason == Reason.LAGGED_BAD_ENTRY


def test_dropped_entries_still_count_for_order_only_when_kept() -> None:
    assert [e.seqno for e in parse(lagged([9, HASH, {}], [2, HASH, {}])).lagged] == [9]


def test_unknown_top_level_keys_are_kept_in_place() -> None:  # D9
    encoded = message(**{"$": [18446744073709551615, {b"k": b"v"}], "<": [], "?": b"opaque"})
    parsed = parse(encoded)
    assert parsed.extra == {b"$": b"li18446744073709551615ed1:k1:vee", b"?": b"6:opaque"}
    assert parsed.serialize() == encoded
    following = parsed.increment()
    assert following.serialize().startswith(b"d1:#i11e1:$li18446744073709551615e")
    assert parse(following.serialize()).extra == parsed.extra


def test_serialize_always_writes_lagged_and_diff() -> None:
    assert parse(b"d1:#i0e1:&de1:=dee").serialize() == b"d1:#i0e1:&de1:<le1:=dee"
    assert ConfigMessage.new(3).serialize() == b"d1:#i3e1:&de1:<le1:=dee"


@given(data, st.integers(-(2**63), 2**63 - 2), st.integers(1, 8))
def test_parse_inverts_serialize(contents: Data, seqno: int, lag: int) -> None:
    built = ConfigMessage.new(seqno, lag=lag)
    built.data.update(contents)
    encoded = built.serialize()
    parsed = parse(encoded, lag=lag)
    assert parsed.serialize() == encoded
    assert parsed.data == built.data and parsed.diff == built.diff
    assert parsed.hash == built.hash
    following = parsed.increment()
    assert following.lagged == [LaggedEntry(seqno, parsed.hash, parsed.diff)][: 1 if lag > 1 else 0]


@given(data, st.data())
def test_diff_follows_edits(start: Data, draws: st.DataObject) -> None:
    first = ConfigMessage.new(1)
    first.data.update(start)
    second = parse(first.serialize()).increment()
    second.data = draws.draw(edited(parse(first.serialize()).data))
    reparsed = parse(second.serialize())
    assert reparsed.diff == second.diff
    assert reparsed.data == pruned(second.data)


def test_increment_keeps_lagged_within_the_window() -> None:
    current = ConfigMessage.new(1, lag=3)
    hashes = []
    for _ in range(5):
        hashes.append(current.hash)
        current = parse(current.serialize(), lag=3).increment()
    assert current.seqno == 6
    assert [(e.seqno, e.hash) for e in current.lagged] == [(4, hashes[3]), (5, hashes[4])]


def test_empty_sets_and_dicts_are_pruned_when_writing() -> None:
    built = ConfigMessage.new(1)
    built.data[b"s"] = set()
    built.data[b"d"] = {b"inner": {b"deeper": set()}}
    built.data[b"x"] = 1
    assert parse(built.serialize()).data == {b"x": 1}
    assert built.diff == {b"x": b""}


def test_writer_limits_bind_new_values_only() -> None:
    built = ConfigMessage.new(1)
    built.data[b"k" * 129] = 1
    with pytest.raises(UsageError) as caught:
        built.serialize()
    assert caught.value.reason == Reason.KEY_TOO_LONG
    built = ConfigMessage.new(1)
    built.data[b"k" * 128] = b"v" * 4096
    built.data[b"set"] = {b"v" * 4096}
    received = built.serialize()
    built.data[b"long"] = b"v" * 4097
    with pytest.raises(UsageError) as caught:
        built.serialize()
    assert caught.value.reason == Reason.STRING_TOO_LONG
    built = ConfigMessage.new(1)
    built.data[b"set"] = {b"v" * 4097}
    with pytest.raises(UsageError) as caught:
        built.serialize()
    assert caught.value.reason == Reason.STRING_TOO_LONG
    # Over-limit data received from another client is accepted and carried along (D11)
    over = message(**{"&": {b"k" * 200: b"v" * 5000}})
    following = parse(over).increment()
    following.data[b"other"] = 1
    assert parse(following.serialize()).data[b"k" * 200] == b"v" * 5000
    assert parse(received).data[b"k" * 128] == b"v" * 4096


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (1.5, Reason.BAD_VALUE_TYPE),
        ("text", Reason.BAD_VALUE_TYPE),
        (True, Reason.BAD_VALUE_TYPE),
        ([1], Reason.BAD_VALUE_TYPE),
        ({1, "x"}, Reason.BAD_VALUE_TYPE),
        ({frozenset()}, Reason.BAD_VALUE_TYPE),
        ({"key": 1}, Reason.BAD_VALUE_TYPE),
        (2**63, Reason.INT_OUT_OF_RANGE),
        ({-(2**63) - 1}, Reason.INT_OUT_OF_RANGE),
    ],
)
def test_writers_refuse_values_outside_the_data_model(value: object, reason: Reason) -> None:
    built = ConfigMessage.new(1)
    built.data[b"k"] = value  # type: ignore[assignment]
    with pytest.raises(UsageError) as caught:
        built.serialize()
    assert caught.value.reason == reason


@pytest.mark.parametrize("lag", [0, -1, True, 1.0, "5"])
def test_lag_below_one_is_a_usage_error(lag: object) -> None:  # D16, X4
    with pytest.raises(UsageError) as caught:
        parse(b"d1:#i0e1:&de1:=dee", lag=lag)  # type: ignore[arg-type]
    assert caught.value.reason == Reason.BAD_LAG


def test_increment_refuses_to_overflow_the_seqno() -> None:
    with pytest.raises(UsageError) as caught:
        ConfigMessage.new(2**63 - 1).increment()
    assert caught.value.reason == Reason.SEQNO_OVERFLOW


def test_removals_under_an_over_limit_key_are_not_writes() -> None:
    long_key = b"k" * 129
    received = message(**{"&": {long_key: {b"a": 1, b"b": 2}, b"s": {long_key: [1, 2]}}})
    following = parse(received).increment()
    inner = following.data[long_key]
    assert isinstance(inner, dict)
    del inner[b"a"]
    nested = following.data[b"s"]
    assert isinstance(nested, dict)
    elements = nested[long_key]
    assert isinstance(elements, set)
    elements.discard(1)
    encoded = following.serialize()
    assert parse(encoded).diff == {long_key: {b"a": b"-"}, b"s": {long_key: [[], [1]]}}
    inner[b"c"] = 3
    with pytest.raises(UsageError) as caught:
        following.serialize()
    assert caught.value.reason == Reason.KEY_TOO_LONG


def test_the_reported_writer_error_does_not_depend_on_order() -> None:
    for elements in ({"text", 2**63}, {2**63, "text"}, {2**63, b"x", 1.5}):
        built = ConfigMessage.new(1)
        built.data[b"z"] = 2**64
        built.data[b"a"] = elements  # type: ignore[assignment]
        with pytest.raises(UsageError) as caught:
            built.serialize()
        assert caught.value.reason == Reason.BAD_VALUE_TYPE


def test_the_default_lag_is_5() -> None:
    """D16: lag 5 unless told otherwise; an entry 5 behind is dropped, 4 behind kept."""
    assert DEFAULT_LAG == 5
    entry = [[5, bytes(32), {}], [6, bytes(range(32)), {}]]
    raw = encode({b"#": 10, b"&": {}, b"<": entry, b"=": {}})
    assert [e.seqno for e in parse(raw).lagged] == [6]
    assert ConfigMessage.new(1).lag == 5


@pytest.mark.parametrize("seqno", [True, False, 1.0, "1", None])
def test_new_refuses_a_seqno_that_is_not_an_integer(seqno: object) -> None:
    with pytest.raises(UsageError) as caught:
        ConfigMessage.new(seqno)  # type: ignore[arg-type]
    assert caught.value.reason == Reason.BAD_VALUE_TYPE


@pytest.mark.parametrize("data", [bytearray(b"d1:#i1e1:&de1:=dee"), "d1:#i1e1:&de1:=dee", None])
def test_parse_refuses_what_is_not_bytes(data: object) -> None:
    with pytest.raises(UsageError) as caught:
        parse(data)  # type: ignore[arg-type]
    assert caught.value.reason == Reason.BAD_VALUE_TYPE
