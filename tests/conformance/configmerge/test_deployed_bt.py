"""The deployed client's bt decoding reads each input as its byte-by-byte lenient reading does,
whether the strict decoder settles it or not."""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterator

import pytest

from swarmconf.conformance.configmerge.deployed import FRAMES
from swarmconf.conformance.configmerge.deployed_bt import (
    REFUSED_ALIKE,
    Decoded,
    LenientDecodeError,
    decode_message,
    read_leniently,
)
from swarmconf.fuzz.configmerge.hostile import HostileTask, hostile_inputs


@pytest.fixture(autouse=True)
def deep_reading() -> Iterator[None]:
    """Frames enough for inputs nested thousands deep, as the emulation allows itself."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, FRAMES))
    yield
    sys.setrecursionlimit(limit)


def reading(read: object, data: bytes) -> Decoded | str:
    try:
        return read(data)  # type: ignore[operator, no-any-return]
    except LenientDecodeError:
        return "refused"


@pytest.mark.parametrize("seed", [3, 11])
def test_decoding_agrees_with_the_lenient_reading_on_hostile_inputs(seed: int) -> None:
    messages = {item.message for item in hostile_inputs(HostileTask(seed, 0, 4000))}
    settled: Counter[str] = Counter()
    for data in messages:
        found = reading(decode_message, data)
        assert found == reading(read_leniently, data), data
        settled["refused" if found == "refused" else "read"] += 1
    assert settled["refused"] > 500 and settled["read"] > 500


@pytest.mark.parametrize(
    ("data", "canonical"),
    [
        (b"d1:#i1e1:&dee", True),
        (b"d1:#i01e1:&dee", False),  # a leading zero (X1)
        (b"d1:#i1e1:&deexyz", False),  # trailing bytes (X1)
        (b"d1:#i1e1:&de1:_d1:bi1e1:ai2eee", False),  # unsorted keys in an unknown value (X1)
    ],
)
def test_what_the_strict_decoder_refuses_a_leniency_may_excuse(
    data: bytes, canonical: bool
) -> None:
    decoded = decode_message(data)
    assert decoded.canonical is canonical and decoded == read_leniently(data)


def test_a_refusal_the_strict_decoder_settles_carries_its_reason() -> None:
    with pytest.raises(LenientDecodeError) as refused:
        decode_message(b"d1:#i1e1:&d")
    assert refused.value.strict is not None
    assert refused.value.strict.reason in REFUSED_ALIKE
