"""The reference reproduces every hash of examples.md (the design text's examples, D3..D6)."""

from __future__ import annotations

from typing import Any

import pytest

import swarmconf.reference.configmerge as ref
from swarmconf.reference.configmerge.examples import build_chain
from swarmconf.reference.configmerge.message import blake2b

EXPECTED = {
    "m119": "43094f68c1faa37eff79e1c2f3973ffd5f9d6423b00ccda306fc6e7dac5f0c44",
    "m120": "e3a237f91014d31e4d30569c4a8bfcd72157804f99b8732c611c48bf126432b5",
    "m121": "1a7f602055124deaf21175ef3f32983dee7c9de570e5d9c9a0bbc2db71dcb97f",
    "m122": "46560604fe352101bb869435260d7100ccfe007be5f741c7e96303f02f394e8a",
    "m123": "d9398c597b058ac7e28e3febb76ed68eb8c5b6c369610562ab5f2b596775d73c",
    "m124": "8b73f316178765b9b3b37168e865c84bb5a78610cbb59b84d0fa4d3b4b3c102b",
    "m125a": "80f229c3667de6d0fa6f96b53118e097fbda82db3ca1aea221a3db91ea9c45fb",
    "m125b": "ab12f0efe9a9ed00db6b17b44ae0ff36b9f49094077fb114f415522f2a0e98de",
    "m126a": "4880a507551dc04b578482b1f4d0872f022c96d04b9cd5f711d5616261e3f649",
    "m126b": "6de3eb60b334acb357525709d10f3bc2616be98bcd6bc8c3d77a8a30f23173e1",
    "m127_before_edit": "f1c31c8a7ceb83b6061a13849b6716b637e187cffe74402f8606a6b44f07ac0f",
    "m127": "f589694ca0acf72923c3bcd84c1c415809227044fc194ed44c6b06109472aaf8",
}


@pytest.fixture
def chain() -> dict[str, Any]:
    return build_chain(ref)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_hash(chain: dict[str, Any], name: str) -> None:
    assert blake2b(chain[name]).hex() == EXPECTED[name]


def test_parsed_m123_incremented_without_change(chain: dict[str, Any]) -> None:
    msg = chain["m124_from_parse"]
    assert msg.seqno == 124
    assert msg.hash.hex() == "3ea36410cf7086ce816eb193b0c94e88632abfb75771d82f8ddb3a909124c580"
    assert [e.seqno for e in msg.lagged] == [120, 121, 122, 123]
    assert msg.lagged[-1].diff == {b"int0": b"-", b"int1": b"", b"int2": b""}
    assert msg.diff == {}


def test_m124_diff(chain: dict[str, Any]) -> None:
    assert ref.parse(chain["m124"]).diff == {
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


def test_m127_content(chain: dict[str, Any]) -> None:
    msg = ref.parse(chain["m127"])
    assert msg.data == {
        b"dictA": {b"goodbye": {123, 456, 789}, b"hello": 123},
        b"dictB": {b"added": 9999, b"answer": 42, b"changed": 1, b"nested": {b"a": 1}},
        b"good": {99, 123, b"Foo", b"bar"},
        b"int1": 5,
        b"int2": 2,
        b"string2": b"hello",
        b"string3": b"omg",
    }
    assert msg.diff == {b"dictA": {b"goodbye": [[789], []]}}
    lagged = {(e.seqno, e.hash.hex()[:8]): e.diff for e in msg.lagged}
    assert [e.seqno for e in msg.lagged] == [123, 124, 124, 125, 125, 126, 126]
    assert lagged[(125, EXPECTED["m125a"][:8])] == {b"dictB": {b"foo": b"-"}}
    assert lagged[(125, EXPECTED["m125b"][:8])] == {b"int1": b""}
    assert lagged[(126, EXPECTED["m126a"][:8])] == {}


@pytest.mark.parametrize(
    "names",
    [
        ["m125a", "m125b"],
        ["m125b", "m125a", "m124"],
        ["m120b", "m125a", "m125b"],
        ["m125b", "m124", "m120b", "m125a", "m125a"],
    ],
)
def test_126_from_any_order(chain: dict[str, Any], names: list[str]) -> None:
    merged = ref.merge([chain[n] for n in names])
    assert merged.merged
    assert merged.hash.hex() == EXPECTED["m126a"]


def test_127_absorbs_its_inputs(chain: dict[str, Any]) -> None:
    result = ref.merge([chain["m127"], chain["m125a"], chain["m126b"]])
    assert not result.merged
    assert result.serialize() == chain["m127"]
