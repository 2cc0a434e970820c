"""Recipes expand as the vector format says; digest answers are judged by size and hash."""

from __future__ import annotations

import hashlib

import jsonschema
import pytest

from swarmconf.conformance.recipes import (
    DIGEST_THRESHOLD,
    RecipeError,
    compact,
    digest,
    expand,
    expand_fields,
    matches_digest,
)
from swarmconf.conformance.runner import mismatched_fields
from swarmconf.conformance.vectors import HEX


def test_plain_hex_is_its_bytes() -> None:
    assert expand("00ff") == b"\x00\xff"


def test_repeat() -> None:
    assert expand({"repeat": "ab01", "count": 3}) == b"\xab\x01" * 3
    assert expand({"repeat": "ab", "count": 0}) == b""


def test_concat() -> None:
    recipe = {"concat": ["01", {"repeat": "00", "count": 2}, {"seeded": "s", "size": 1}]}
    assert expand(recipe) == b"\x01\x00\x00" + hashlib.shake_256(b"s").digest(1)
    with pytest.raises(RecipeError):
        expand({"concat": [{"concat": ["ff"]}]})


def test_seeded_is_shake256_of_the_label() -> None:
    assert expand({"seeded": "x", "size": 5}) == hashlib.shake_256(b"x").digest(5)
    assert expand({"seeded": "x", "size": 3}) == expand({"seeded": "x", "size": 5})[:3]


@pytest.mark.parametrize(
    "bad",
    [{"repeat": "ab", "count": -1}, {"repeat": "ab", "count": True}, {"seeded": "x"}, {"x": 1}, 3],
)
def test_malformed_recipes_are_refused(bad: object) -> None:
    with pytest.raises(RecipeError):
        expand(bad)


def test_expand_fields_reaches_lists_and_objects() -> None:
    request = {"op": "unwrap", "blobs": [{"repeat": "aa", "count": 2}, "bb"], "n": 1}
    assert expand_fields(request) == {"op": "unwrap", "blobs": ["aaaa", "bb"], "n": 1}


def test_compact_writes_long_hex_as_digest() -> None:
    long = b"\x07" * (DIGEST_THRESHOLD + 1)
    assert compact({"message": long.hex(), "short": "00"}) == {
        "message": digest(long),
        "short": "00",
    }
    assert compact((b"\x07" * DIGEST_THRESHOLD).hex()) == (b"\x07" * DIGEST_THRESHOLD).hex()


def test_a_wrong_byte_fails_a_digest() -> None:
    data = bytes(range(256)) * 300
    expected = digest(data)
    assert matches_digest(expected, data.hex())
    assert matches_digest(expected, data.hex().upper())
    assert not matches_digest(expected, (data[:-1] + b"\x00").hex())
    assert not matches_digest(expected, data[:-1].hex())
    assert not matches_digest(expected, 7)


def test_runner_judges_digest_fields() -> None:
    data = b"\x01" * (DIGEST_THRESHOLD + 5)
    expected = compact({"message": data.hex(), "blobs": [data.hex(), "00"]})
    assert (
        mismatched_fields("unwrap", expected, {"message": data.hex(), "blobs": [data.hex(), "00"]})
        == []
    )
    wrong = (data[:-1] + b"\x02").hex()
    assert mismatched_fields("unwrap", expected, {"message": wrong, "blobs": [wrong, "00"]}) == [
        "message",
        "blobs",
    ]


@pytest.mark.parametrize(
    ("value", "valid"),
    [
        ("00ff", True),
        ({"repeat": "00", "count": 5}, True),
        ({"concat": ["01", {"seeded": "a", "size": 2}]}, True),
        ({"size": 3, "blake2b": "00" * 32}, True),
        ({"repeat": "0", "count": 5}, False),
        ({"repeat": "00", "count": -1}, False),
        ({"concat": [{"concat": []}]}, False),
        ({"size": 3, "blake2b": "00"}, False),
    ],
)
def test_hex_schema_takes_recipes_and_digests(value: object, valid: bool) -> None:
    assert jsonschema.Draft202012Validator(HEX).is_valid(value) is valid
