import random

from swarmconf.fuzz.configmerge.edits import (
    Edit,
    apply_edit,
    edit_from_json,
    edit_to_json,
    random_batch,
    random_data,
    value_from_json,
    value_to_json,
)


def test_json_forms_round_trip() -> None:
    rng = random.Random(4)
    for _ in range(300):
        data = random_data(rng)
        assert value_from_json(value_to_json(data)) == data
        for edit in random_batch(rng):
            assert edit_from_json(edit_to_json(edit)) == edit


def test_ints_and_byte_strings_stay_apart_in_json() -> None:
    assert value_from_json(value_to_json({b"k": {1, b"1"}})) == {b"k": {1, b"1"}}


def test_assign_changes_the_kind_and_creates_parents() -> None:
    data: dict = {b"a": 5}
    apply_edit(data, Edit("assign", (b"a", b"b"), value={1, 2}))
    assert data == {b"a": {b"b": {1, 2}}}


def test_add_to_a_scalar_replaces_it_with_a_set() -> None:
    data: dict = {b"a": b"x"}
    apply_edit(data, Edit("add", (b"a",), elements=(3,)))
    assert data == {b"a": {3}}


def test_clear_empties_sets_and_dicts_and_ignores_scalars() -> None:
    data: dict = {b"s": {1}, b"d": {b"x": 1}, b"i": 4}
    for key in (b"s", b"d", b"i"):
        apply_edit(data, Edit("clear", (key,)))
    assert data == {b"s": set(), b"d": {}, b"i": 4}


def test_remove_and_discard_of_missing_paths_change_nothing() -> None:
    data: dict = {b"a": {b"b": 1}}
    apply_edit(data, Edit("remove", (b"x", b"y")))
    apply_edit(data, Edit("discard", (b"a", b"b"), elements=(1,)))
    assert data == {b"a": {b"b": 1}}
