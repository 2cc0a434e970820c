"""Parsing: the contract's order of checks, one reason code per way a message is refused."""

from __future__ import annotations

import pytest

import swarmconf.reference.configmerge as ref
from swarmconf.reference.configmerge import bt
from swarmconf.spec.configmerge.reasons import ConfigError, Reason, UsageError

H = b"32:" + bytes(range(32))
H2 = b"32:" + bytes(range(1, 33))
SET_DIFF = b"llelee"


def nested(levels: int, innermost: bytes) -> bytes:
    """`levels` dicts nested under key `a`, the last holding `innermost` under `a`."""
    return b"1:ad" * levels + b"1:a" + innermost + b"e" * levels


BAD_MESSAGES = [
    # bt-encoding (D10), the first violation in reading order
    (b"", Reason.BT_TRUNCATED),
    (b"d1:#i1e1:&de1:=de", Reason.BT_TRUNCATED),
    (b"d1:#i1e1:&de1:=dee" + b"x", Reason.BT_TRAILING_BYTES),
    (b"d1:#i01e1:&de1:=dee", Reason.BT_LEADING_ZERO),
    (b"d1:#i-0e1:&de1:=dee", Reason.BT_NEGATIVE_ZERO),
    (b"d1:#ie1:&de1:=dee", Reason.BT_BAD_INTEGER),
    (b"d1:#i1x", Reason.BT_BAD_INTEGER),
    (b"d1:#i12", Reason.BT_TRUNCATED),
    (b"d1:#i9223372036854775808e1:&de1:=dee", Reason.BT_INTEGER_RANGE),
    (b"d1:#i" + b"7" * 5000 + b"e1:&de1:=dee", Reason.BT_INTEGER_RANGE),
    (b"d1:#i1e1:&d1:ai-9223372036854775809ee1:=dee", Reason.BT_INTEGER_RANGE),
    (b"d1:#i1e1:&de1:=de1:~i18446744073709551616ee", Reason.BT_INTEGER_RANGE),
    (b"d01:#i1e1:&de1:=dee", Reason.BT_LEADING_ZERO),
    (b"d1x#", Reason.BT_BAD_STRING_LENGTH),
    (b"d1:#i1e1:&d1:a" + b"9" * 5000 + b":xee", Reason.BT_TRUNCATED),
    (b"d1:#i1e1:&d1:a99999999:xee1:=dee", Reason.BT_TRUNCATED),
    (b"di1ei1ee", Reason.BT_KEY_NOT_STRING),
    (b"d1:#i1e1:&d1:bi1e1:ai1eee", Reason.BT_KEYS_UNSORTED),
    (b"d1:#i1e1:&d1:ai1e1:ai1eee", Reason.BT_DUPLICATE_KEY),
    (b"d1:#i1e1:&d1:axee", Reason.BT_UNKNOWN_TYPE),
    (b"l" * 65 + b"e" * 65, Reason.BT_TOO_DEEP),
    (b"d1:#i1e1:&d" + b"1:ad" * 63 + b"1:bi1e" + b"e" * 63 + b"e1:=dee", Reason.BT_TOO_DEEP),
    (b"l" * 1_000_000, Reason.BT_TOO_DEEP),
    # A bt violation anywhere wins over any structural problem before it
    (b"d1:#i1e1:&d1:ali2ei1eee1:=d1:ai01eee", Reason.BT_LEADING_ZERO),
    # Outer structure (D8)
    (b"li1ee", Reason.MSG_NOT_DICT),
    (b"de", Reason.MSG_MISSING_SEQNO),
    (b"d1:!i1e1:#i1e1:&de1:=dee", Reason.MSG_VERSION_BREAK),
    (b"d1:&de1:=dee", Reason.MSG_MISSING_SEQNO),
    (b"d1:#1:x1:&de1:=dee", Reason.MSG_BAD_SEQNO),
    (b"d1:#i1e1:=dee", Reason.MSG_MISSING_DATA),
    (b"d1:#i1e1:&le1:=dee", Reason.MSG_BAD_DATA),
    (b"d1:#i1e1:&de1:=de1:~64:" + bytes(64) + b"1:\x7fi1ee", Reason.MSG_KEY_AFTER_SIGNATURE),
    (b"d1:#i1e1:&de1:<lee", Reason.MSG_ENDS_BEFORE_DIFF),
    # Data (D11)
    (b"d1:#i1e1:&d1:alli1eeee1:=dee", Reason.DATA_SET_NOT_SCALAR),
    (b"d1:#i1e1:&d1:ali2ei1eee1:=dee", Reason.DATA_SET_UNSORTED),
    (b"d1:#i1e1:&d1:al1:bi1eee1:=dee", Reason.DATA_SET_UNSORTED),
    (b"d1:#i1e1:&d1:ali1ei1eee1:=dee", Reason.DATA_SET_UNSORTED),
    (b"d1:#i1e1:&d1:alee1:=dee", Reason.DATA_EMPTY_SET),
    (b"d1:#i1e1:&d1:adee1:=dee", Reason.DATA_EMPTY_DICT),
    # Lagged entries (D7)
    (b"d1:#i10e1:&de1:<de1:=dee", Reason.LAGGED_NOT_LIST),
    (b"d1:#i10e1:&de1:<llee1:=dee", Reason.LAGGED_BAD_ENTRY),
    (b"d1:#i10e1:&de1:<li9ee1:=dee", Reason.LAGGED_BAD_ENTRY),
    (b"d1:#i10e1:&de1:<ll1:xee1:=dee", Reason.LAGGED_BAD_ENTRY),
    (b"d1:#i10e1:&de1:<lli9e" + H + b"ee1:=dee", Reason.LAGGED_BAD_ENTRY),
    (b"d1:#i10e1:&de1:<lli9e" + H + b"dei1eee1:=dee", Reason.LAGGED_BAD_ENTRY),
    (b"d1:#i10e1:&de1:<lli9e1:xdeee1:=dee", Reason.LAGGED_BAD_HASH),
    (b"d1:#i10e1:&de1:<lli10e" + H + b"deee1:=dee", Reason.LAGGED_SEQNO_TOO_HIGH),
    (b"d1:#i10e1:&de1:<lli9e" + H + b"d1:ai1eeee1:=dee", Reason.DIFF_INTEGER),
    (b"d1:#i10e1:&de1:<lli9e" + H2 + b"deeli9e" + H + b"deee1:=dee", Reason.LAGGED_UNSORTED),
    (b"d1:#i10e1:&de1:<lli9e" + H + b"deeli9e" + H + b"deee1:=dee", Reason.LAGGED_UNSORTED),
    (b"d1:#i10e1:&de1:<lli9e" + H + b"deeli8e" + H + b"deee1:=dee", Reason.LAGGED_UNSORTED),
    # Diffs (D12, X3)
    (b"d1:#i1e1:&de1:=lee", Reason.DIFF_NOT_DICT),
    (b"d1:#i1e1:&de1:=d1:a1:xee", Reason.DIFF_BAD_MARKER),
    (b"d1:#i1e1:&de1:=d1:ai0eee", Reason.DIFF_INTEGER),
    (b"d1:#i1e1:&de1:=d1:alleeee", Reason.DIFF_BAD_SET),
    (b"d1:#i1e1:&de1:=d1:alleleleeee", Reason.DIFF_BAD_SET),
    (b"d1:#i1e1:&de1:=d1:allelleeeee", Reason.DIFF_BAD_SET),
    (b"d1:#i1e1:&de1:=d1:alli2ei1eeleeee", Reason.DIFF_SET_UNSORTED),
    (b"d1:#i1e1:&de1:=d1:alleli1e1:ai1eeeee", Reason.DIFF_SET_UNSORTED),
    (b"d1:#i1e1:&de1:=d1:ad1:b1:+eee", Reason.DIFF_BAD_MARKER),
    # Signatures (D17)
    (b"d1:#i1e1:&de1:=de1:~3:abce", Reason.SIG_MALFORMED),
    (b"d1:#i1e1:&de1:=de1:~i1ee", Reason.SIG_MALFORMED),
    # D10's limits where the compiled decoder does not look and the checks must
    (b"d1:#i10e1:&de1:<lli1ei99999999999999999999eee1:=dee", Reason.BT_INTEGER_RANGE),
    (b"d1:#i10e1:&de1:<lli1e" + b"l" * 62 + b"e" * 62 + b"ee1:=dee", Reason.BT_TOO_DEEP),
    (b"d1:#i10e1:&de1:<lli9e" + H + b"d" + nested(61, b"0:") + b"eee1:=dee", Reason.BT_TOO_DEEP),
    (
        b"d1:#i10e1:&de1:<lli9e" + H + b"d" + nested(59, SET_DIFF) + b"eee1:=dee",
        Reason.BT_TOO_DEEP,
    ),
    (b"d1:#i1e1:&de1:=d" + nested(61, SET_DIFF) + b"ee", Reason.BT_TOO_DEEP),
    (
        b"d1:#i-9223372036854775806e1:&de1:<lli-9223372036854775809e" + H + b"deee1:=dee",
        Reason.BT_INTEGER_RANGE,
    ),
    (b"d1:#i1e1:&de1:=d1:ali99999999999999999999eleeee", Reason.BT_INTEGER_RANGE),
]


@pytest.mark.parametrize(("data", "reason"), BAD_MESSAGES, ids=lambda v: str(v)[:40])
def test_bad_message_reason(data: bytes, reason: Reason) -> None:
    with pytest.raises(ConfigError) as info:
        ref.parse(data)
    assert info.value.reason == reason


@pytest.mark.parametrize(
    "data",
    [
        b"d1:#i1e1:&de1:=dee",
        b"d1:#i-9223372036854775808e1:&de1:=dee",
        b"d1:#i1e1:&de1:?i18446744073709551615ee",
        b"d1:#i1e1:$i18446744073709551615e1:&de1:=dee",
        b"d1:#i10e1:&de1:<lli5e1:xi1eee1:=dee",
        b"d1:#i1e1:&d200:" + b"x" * 200 + b"i1ee1:=dee",
        # At the nesting limit (D10): a lagged entry's diff, a set diff's lists, dropped entries
        b"d1:#i10e1:&de1:<lli9e" + H + b"d" + nested(60, b"0:") + b"eee1:=dee",
        b"d1:#i10e1:&de1:<lli9e" + H + b"d" + nested(58, SET_DIFF) + b"eee1:=dee",
        b"d1:#i1e1:&de1:=d" + nested(60, SET_DIFF) + b"ee",
        b"d1:#i10e1:&de1:<lli1e" + b"l" * 61 + b"e" * 61 + b"ee1:=dee",
    ],
)
def test_valid_message_round_trips(data: bytes) -> None:
    msg = ref.parse(data)
    assert msg.hash == bt_hash(data)
    assert ref.parse(msg.serialize()).serialize() == msg.serialize()


def bt_hash(data: bytes) -> bytes:
    import hashlib

    return hashlib.blake2b(data, digest_size=32).digest()


def test_parsed_fields() -> None:
    data = (
        b"d1:#i10e1:$3:abc1:&d1:ali1e1:xe1:bd1:ci-1eee1:<lli5e"
        + H
        + b"deeli9e"
        + H
        + b"d1:a0:eee1:=d1:b1:-e1:?i18446744073709551615ee"
    )
    msg = ref.parse(data)
    assert msg.seqno == 10
    assert msg.data == {b"a": {1, b"x"}, b"b": {b"c": -1}}
    assert msg.lagged == [ref.LaggedEntry(9, bytes(range(32)), {b"a": b""})]
    assert msg.diff == {b"b": b"-"}
    assert msg.extra == {b"$": b"3:abc", b"?": b"i18446744073709551615e"}
    assert not msg.merged and msg.signature is None
    # The dropped lagged entry is not written back; unknown keys keep their sorted place (D9)
    assert msg.serialize() == data.replace(b"li5e" + H + b"dee", b"")


def test_lag_changes_kept_entries() -> None:
    data = b"d1:#i10e1:&de1:<lli7e" + H + b"deeli9e" + H2 + b"deee1:=dee"
    assert [e.seqno for e in ref.parse(data).lagged] == [7, 9]
    assert [e.seqno for e in ref.parse(data, lag=2).lagged] == [9]
    # A dropped entry is not checked beyond canonical bencode (D7)
    assert ref.parse(b"d1:#i10e1:&de1:<lli1ei5eee1:=dee").lagged == []


@pytest.mark.parametrize("lag", [0, -1, True, 1.5, "5"])
def test_bad_lag(lag: object) -> None:
    with pytest.raises(UsageError) as info:
        ref.parse(b"d1:#i1e1:&de1:=dee", lag=lag)  # type: ignore[arg-type]
    assert info.value.reason == Reason.BAD_LAG


@pytest.mark.parametrize("key", [b"", bytes(31), bytes(64), "x" * 32])
def test_bad_verify_key(key: object) -> None:
    with pytest.raises(UsageError) as info:
        ref.parse(b"d1:#i1e1:&de1:=dee", verify_key=key)  # type: ignore[arg-type]
    assert info.value.reason == Reason.BAD_KEY


def test_bt_codec_round_trip() -> None:
    value = {b"a": [1, -2, b"x", [b"", {}]], b"b": {b"c": 0}}
    encoded = bt.encode(value)
    assert encoded == b"d1:ali1ei-2e1:xl0:deee1:bd1:ci0eee"
    assert bt.decode(encoded) == value
    with pytest.raises(ConfigError) as info:
        bt.decode(b"i18446744073709551615e")
    assert info.value.reason == Reason.BT_INTEGER_RANGE


def test_a_million_keys_read_in_one_pass() -> None:
    keys = b"".join(b"7:k%06d0:" % i for i in range(1_000_000))
    with pytest.raises(ConfigError) as info:
        ref.parse(b"d1:#i1e1:&d" + keys + b"ee")
    assert info.value.reason == Reason.MSG_ENDS_BEFORE_DIFF
