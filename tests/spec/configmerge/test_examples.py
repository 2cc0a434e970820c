"""Every fact of examples.md, asserted byte for byte."""

from __future__ import annotations

import hashlib
import itertools

import pytest

from swarmconf.spec.configmerge import LaggedEntry, merge, parse
from swarmconf.spec.configmerge.examples import (
    chain_to,
    m120b,
    m123,
    m124,
    m124a,
    m125a,
    m125b,
    m126a,
    m126b,
    m127,
)


def blake(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=32).hexdigest()


CHAIN_HASHES = {
    119: "43094f68c1faa37eff79e1c2f3973ffd5f9d6423b00ccda306fc6e7dac5f0c44",
    120: "e3a237f91014d31e4d30569c4a8bfcd72157804f99b8732c611c48bf126432b5",
    121: "1a7f602055124deaf21175ef3f32983dee7c9de570e5d9c9a0bbc2db71dcb97f",
    122: "46560604fe352101bb869435260d7100ccfe007be5f741c7e96303f02f394e8a",
}
H123 = "d9398c597b058ac7e28e3febb76ed68eb8c5b6c369610562ab5f2b596775d73c"
H124_UNCHANGED = "3ea36410cf7086ce816eb193b0c94e88632abfb75771d82f8ddb3a909124c580"
H124 = "8b73f316178765b9b3b37168e865c84bb5a78610cbb59b84d0fa4d3b4b3c102b"
H125A = "80f229c3667de6d0fa6f96b53118e097fbda82db3ca1aea221a3db91ea9c45fb"
H125B = "ab12f0efe9a9ed00db6b17b44ae0ff36b9f49094077fb114f415522f2a0e98de"
H126A = "4880a507551dc04b578482b1f4d0872f022c96d04b9cd5f711d5616261e3f649"
H126B = "6de3eb60b334acb357525709d10f3bc2616be98bcd6bc8c3d77a8a30f23173e1"
H127_BEFORE_EDIT = "f1c31c8a7ceb83b6061a13849b6716b637e187cffe74402f8606a6b44f07ac0f"
H127 = "f589694ca0acf72923c3bcd84c1c415809227044fc194ed44c6b06109472aaf8"

DATA_126A = {
    b"dictA": {b"goodbye": {123, 456}, b"hello": 123},
    b"dictB": {b"added": 9999, b"changed": 1, b"nested": {b"a": 1}},
    b"good": {99, 123, b"Foo", b"bar"},
    b"int1": 5,
    b"int2": 2,
    b"string2": b"hello",
    b"string3": b"omg",
}
DIFF_123 = {b"int0": b"-", b"int1": b"", b"int2": b""}
DIFF_124 = {
    b"dictA": {b"goodbye": [[123, 456], []], b"hello": b""},
    b"dictB": {
        b"added": b"",
        b"changed": b"",
        b"nested": {b"a": b""},
        b"removed": b"-",
        b"removed2": b"-",
    },
    b"dictC": {b"x": {b"y": b"-"}},
    b"good": [[123, b"Foo"], [456]],
    b"great": [[], [-42, b"omg"]],
    b"int1": b"",
    b"string1": b"-",
    b"string2": b"",
    b"string3": b"",
}


@pytest.mark.parametrize("seqno", sorted(CHAIN_HASHES))
def test_unchanged_increments_hash_as_deployed(seqno: int) -> None:
    assert blake(chain_to(seqno)) == CHAIN_HASHES[seqno]


def test_m118_diff_marks_every_scalar_and_set() -> None:
    m118 = parse(chain_to(118))
    assert m118.lagged == []
    assert m118.diff == {
        b"dictB": {b"changed": b"", b"foo": b"", b"removed": b"", b"removed2": b""},
        b"dictC": {b"x": {b"y": b""}},
        b"good": [[99, 456, b"bar"], []],
        b"great": [[-42, b"omg"], []],
        b"int0": b"",
        b"int1": b"",
        b"string1": b"",
        b"string2": b"",
    }


def test_m123() -> None:
    message = parse(m123())
    assert blake(m123()) == H123
    assert message.lagged == [
        LaggedEntry(seqno, bytes.fromhex(CHAIN_HASHES[seqno]), {}) for seqno in range(119, 123)
    ]
    assert message.diff == DIFF_123


def test_increment_without_change_of_m123() -> None:
    message = parse(m123()).increment()
    assert message.seqno == 124
    assert message.hash.hex() == H124_UNCHANGED
    assert [entry.seqno for entry in message.lagged] == [120, 121, 122, 123]
    assert message.lagged[-1] == LaggedEntry(123, bytes.fromhex(H123), DIFF_123)
    assert message.diff == {}


def test_m124() -> None:
    assert blake(m124()) == H124
    assert parse(m124()).diff == DIFF_124


def test_m125_hashes_and_order() -> None:
    assert (blake(m125a()), blake(m125b())) == (H125A, H125B)
    assert parse(m125a()).diff == {b"dictB": {b"foo": b"-"}}
    assert parse(m125b()).diff == {b"int1": b""}


@pytest.mark.parametrize(
    "extra",
    [[], [m124()], [m120b()], [m124(), m120b(), m123()]],
    ids=["plain", "m124", "120b", "all"],
)
def test_m126_from_any_order(extra: list[bytes]) -> None:
    inputs = [m125a(), m125b(), *extra]
    for order in itertools.permutations(inputs):
        merged = merge(list(order))
        assert merged.merged
        assert merged.hash.hex() == H126A
    message = parse(m126a())
    assert message.seqno == 126
    assert message.data == DATA_126A
    assert [(e.seqno, e.hash.hex()) for e in message.lagged] == [
        (122, CHAIN_HASHES[122]),
        (123, H123),
        (124, H124),
        (125, H125A),
        (125, H125B),
    ]
    assert [e.diff for e in message.lagged] == [
        {},
        DIFF_123,
        DIFF_124,
        {b"dictB": {b"foo": b"-"}},
        {b"int1": b""},
    ]
    assert message.diff == {}


def test_stale_120b_is_dropped() -> None:
    assert parse(m120b()).seqno == 120
    assert merge([m125a(), m120b()]).hash.hex() == H125A


def test_126a_and_126b() -> None:
    assert blake(m124a()) < blake(m124()) and blake(m126b()) == H126B
    assert blake(m126a()) < blake(m126b())
    assert parse(m124a()).diff == {b"dictB": {b"answer": b"", b"foo": b""}}


def test_merge_of_126a_126b_before_edit() -> None:
    merged = merge([m126b(), m126a()])
    assert merged.seqno == 127 and merged.diff == {}
    assert merged.hash.hex() == H127_BEFORE_EDIT


def test_m127() -> None:
    message = parse(m127())
    assert blake(m127()) == H127
    assert message.data == {
        **DATA_126A,
        b"dictA": {b"goodbye": {123, 456, 789}, b"hello": 123},
        b"dictB": {b"added": 9999, b"answer": 42, b"changed": 1, b"nested": {b"a": 1}},
    }
    assert [(e.seqno, e.hash.hex(), e.diff) for e in message.lagged] == [
        (123, H123, DIFF_123),
        (124, blake(m124a()), {b"dictB": {b"answer": b"", b"foo": b""}}),
        (124, H124, DIFF_124),
        (125, H125A, {b"dictB": {b"foo": b"-"}}),
        (125, H125B, {b"int1": b""}),
        (126, H126A, {}),
        (126, H126B, {}),
    ]
    assert message.diff == {b"dictA": {b"goodbye": [[789], []]}}


def test_merging_127_with_what_it_includes_returns_127() -> None:
    for order in itertools.permutations([m127(), m125a(), m126b()]):
        result = merge(list(order))
        assert not result.merged
        assert result.hash.hex() == H127
        assert result.serialize() == m127()
