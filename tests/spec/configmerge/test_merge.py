"""Ignore rules (D14) and merges (D15): determinism and the rules' edge cases."""

from __future__ import annotations

import pytest
from config_strategies import histories
from hypothesis import given, settings
from hypothesis import strategies as st

from swarmconf.spec.configmerge import ConfigError, ConfigMessage, Reason, merge, parse
from swarmconf.spec.configmerge.examples import m123, m124, m125a, m125b


@settings(max_examples=60, deadline=None)
@given(histories(), st.randoms(use_true_random=False))
def test_merge_ignores_order_and_duplicates(published: list[bytes], rng: object) -> None:
    expected = merge(published).serialize()
    shuffled = list(published) + published[: len(published) // 2]
    rng.shuffle(shuffled)  # type: ignore[attr-defined]
    assert merge(shuffled).serialize() == expected


@settings(max_examples=40, deadline=None)
@given(histories(lag=2))
def test_merge_with_small_lag_is_deterministic(published: list[bytes]) -> None:
    assert merge(published, lag=2).serialize() == merge(published[::-1], lag=2).serialize()


@settings(max_examples=40, deadline=None)
@given(histories())
def test_merge_result_absorbs_its_inputs(published: list[bytes]) -> None:
    result = merge(published)
    if result.merged:
        encoded = result.serialize()
        assert merge([*published, encoded]).serialize() == encoded


@given(histories())
def test_a_single_message_merges_to_itself(published: list[bytes]) -> None:
    for encoded in published:
        result = merge([encoded, encoded])
        assert not result.merged and result.serialize() == encoded


def test_invalid_inputs_are_skipped() -> None:
    assert merge([b"garbage", m125a(), b"de", b"d1:#i0e1:&de1:<lee"]).serialize() == m125a()


def test_no_valid_input_is_an_error() -> None:
    with pytest.raises(ConfigError) as caught:
        merge([b"", b"le"])
    assert caught.value.reason == Reason.NO_VALID_MESSAGE
    with pytest.raises(ConfigError):
        merge([])


def test_included_messages_are_dropped_even_by_a_too_old_includer() -> None:
    # Judged against every valid message before any is dropped (D14)
    old = ConfigMessage.new(1)
    old_bytes = old.serialize()
    includer = parse(old_bytes).increment().serialize()
    top = ConfigMessage.new(7)
    top.data[b"x"] = 1
    assert merge([old_bytes, includer, top.serialize()], lag=5).serialize() == top.serialize()


def test_merged_lagged_list_stops_at_the_window() -> None:
    merged = merge([m125a(), m125b(), m124(), m123()])
    assert [e.seqno for e in merged.lagged] == [122, 123, 124, 125, 125]
    narrow = merge([m125a(), m125b()], lag=2)
    assert [e.seqno for e in narrow.lagged] == [125, 125]


def test_unknown_keys_do_not_survive_a_merge() -> None:  # D9
    first = ConfigMessage.new(1)
    base = first.serialize()
    forks = []
    for value in (1, 2):
        child = parse(base).increment()
        child.data[b"k"] = value
        forks.append(child.serialize())
    with_extra = [f.replace(b"1:&", b"1:$i7e1:&") for f in forks]
    assert all(parse(f).extra == {b"$": b"i7e"} for f in with_extra)
    result = merge(with_extra)
    assert result.merged and result.extra == {}
    assert b"1:$" not in result.serialize()


def test_merge_at_the_seqno_limit_overflows() -> None:
    forks = []
    for value in (1, 2):
        top = ConfigMessage.new(2**63 - 1)
        top.data[b"k"] = value
        forks.append(top.serialize())
    with pytest.raises(ConfigError) as caught:
        merge(forks)
    assert caught.value.reason == Reason.SEQNO_OVERFLOW
