"""Merging: the inputs of one merge share most of their data and history, and the reference
takes as valid only what equals a part of an input already validated."""

from __future__ import annotations

import pytest

import swarmconf.reference.configmerge as ref
import swarmconf.spec.configmerge as spec

H = b"32:" + bytes(range(32))
VALID = b"d1:#i10e1:&d1:ad1:bli1e1:xeee1:<lli9e" + H + b"d1:a0:eee1:=dee"
# Each like VALID but for one invalid part next to parts equal to VALID's
INVALID_NEXT_TO_EQUAL = [
    b"d1:#i10e1:&d1:ad1:bli1e1:xe1:cd1:sli2ei1eeeee1:<lli9e" + H + b"d1:a0:eee1:=dee",
    b"d1:#i10e1:&d1:ad1:bli1e1:xee1:cdee1:<lli9e" + H + b"d1:a0:eee1:=dee",
    b"d1:#i10e1:&d1:ad1:bli1e1:xeee1:<lli9e" + H + b"d1:a1:xeee1:=dee",
    b"d1:#i10e1:&d1:ad1:bli1e1:xeee1:<lli8e" + H + b"d1:ai1eeeli9e" + H + b"d1:a0:eee1:=dee",
]


@pytest.mark.parametrize(
    "invalid",
    INVALID_NEXT_TO_EQUAL,
    ids=["unsorted-set", "empty-dict", "lagged-bad-marker", "lagged-integer"],
)
def test_an_invalid_input_is_skipped_though_it_shares_parts(invalid: bytes) -> None:
    with pytest.raises(ref.ConfigError):
        ref.parse(invalid)
    merged = ref.merge([VALID, invalid])
    assert merged.serialize() == spec.merge([VALID, invalid]).serialize() == VALID
    # Three inputs: the invalid one is decoded against VALID, sharing its equal entries
    assert ref.merge([VALID, invalid, VALID]).serialize() == VALID


def test_inputs_sharing_parts_merge_as_in_the_spec() -> None:
    other = b"d1:#i10e1:&d1:ad1:bli1e1:xee1:ci5ee1:<lli9e" + H + b"d1:a0:eee1:=d1:c0:ee"
    for inputs in ([VALID, other], [other, VALID]):
        merged, oracle = ref.merge(inputs), spec.merge(inputs)
        assert merged.merged and oracle.merged
        assert merged.serialize() == oracle.serialize()
        assert merged.data == oracle.data and b"c" in merged.data


def test_editing_a_merge_of_parsed_messages_leaves_the_inputs_alone() -> None:
    other = b"d1:#i10e1:&d1:ad1:bli1e1:xee1:ci5ee1:<lli9e" + H + b"d1:a0:eee1:=d1:c0:ee"
    inputs = [ref.parse(VALID), ref.parse(other)]
    first = ref.merge_parsed(inputs).serialize()
    merged = ref.merge_parsed(inputs)
    merged.data[b"c"] = 6
    merged.data.setdefault(b"a", {b"b": {1}})[b"b"].add(b"y")
    edited = merged.serialize()
    assert ref.merge_parsed(inputs).serialize() == first != edited
    assert [m.data for m in inputs] == [ref.parse(VALID).data, ref.parse(other).data]
