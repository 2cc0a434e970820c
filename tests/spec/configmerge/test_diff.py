"""Diffs: construction (D12) and replay (D15)."""

from __future__ import annotations

from config_strategies import data, edited
from hypothesis import given
from hypothesis import strategies as st

from swarmconf.spec.configmerge.data import Data, deep_copy, pruned
from swarmconf.spec.configmerge.diff import apply_diff, diff_data, replay


@given(data, data)
def test_applying_the_diff_from_a_to_b_onto_a_gives_b(a: Data, b: Data) -> None:
    a, b = pruned(a), pruned(b)
    current = deep_copy(a)
    apply_diff(current, diff_data(a, b), b)
    assert pruned(current) == b


@given(data, st.data())
def test_applying_an_edit_diff_gives_the_edit(a: Data, draws: st.DataObject) -> None:
    b = pruned(draws.draw(edited(a)))
    a = pruned(a)
    assert replay(a, [(diff_data(a, b), b)]) == b


@given(data)
def test_no_change_records_nothing(a: Data) -> None:
    assert diff_data(pruned(a), pruned(a)) == {}


def test_kind_changes_record_only_the_new_value() -> None:
    old: Data = {b"a": 1, b"b": {b"x": 1, b"y": {1}}, b"c": {1, 2}, b"d": b"s"}
    new: Data = {b"a": {b"n": 2}, b"b": {4}, b"c": 7, b"d": 5}
    assert diff_data(old, new) == {
        b"a": {b"n": b""},
        b"b": [[4], []],
        b"c": b"",
        b"d": b"",
    }


def test_removed_dict_is_the_removal_of_its_contents() -> None:
    assert diff_data({b"a": {b"b": {b"c": 1, b"s": {b"x", 3}}}}, {}) == {
        b"a": {b"b": {b"c": b"-", b"s": [[], [3, b"x"]]}}
    }


def test_replay_takes_values_from_the_source_and_removes_missing_paths() -> None:
    current: Data = {b"a": 1, b"s": {1}, b"d": {b"x": 1}}
    source: Data = {b"a": 2, b"d": 5}
    apply_diff(current, {b"a": b"", b"s": [[2], []], b"d": {b"x": b""}, b"z": b""}, source)
    assert current == {b"a": 2}


def test_set_and_dict_diffs_start_from_empty_over_another_kind() -> None:
    current: Data = {b"s": 5, b"d": {1, 2}}
    source: Data = {b"s": {1, 2, 3}, b"d": {b"k": 1, b"other": 2}}
    apply_diff(current, {b"s": [[1], []], b"d": {b"k": b""}}, source)
    assert current == {b"s": {1}, b"d": {b"k": 1}}


def test_removals_of_absent_paths_are_ignored_and_empties_pruned() -> None:
    start: Data = {b"s": {1}, b"d": {b"k": 1}}
    diffs = [({b"s": [[], [1]], b"d": {b"k": b"-"}, b"gone": b"-"}, start)]
    assert replay(start, diffs) == {}


def _emptied(value: object) -> None:
    """Clear every dict and set inside `value`, innermost first."""
    if isinstance(value, dict):
        for item in value.values():
            _emptied(item)
        value.clear()
    elif isinstance(value, set):
        value.clear()


@given(data)
def test_a_deep_copy_shares_no_container_with_its_original(a: Data) -> None:
    copied = deep_copy(a)
    assert copied == a
    expected = pruned(a)
    _emptied(a)
    assert copied == expected
    assert deep_copy({b"odd": [[1]]}) == {b"odd": [[1]]}  # type: ignore[dict-item]
