"""The optional subset lint: sound on random instances, and right on the notes' examples."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swarmconf.spec.kvgossip.keys import matches, pattern_subset

SEGMENTS = st.sampled_from(["a", "b", "ab", "*", "a*", "*b", "a*b", "**"])


def instances(pattern: str, rng: random.Random, count: int = 30) -> list[str]:
    """Random keys the pattern matches: stars and `**` filled with random text."""
    keys = []
    parts = pattern[1:].split("/")
    for _ in range(count):
        out: list[str] = []
        for i, part in enumerate(parts):
            if part == "**":
                low = 1 if i == len(parts) - 1 else 0
                out += [rng.choice(["a", "b", "ab", "x"]) for _ in range(rng.randint(low, 3))]
            else:
                pieces = part.split("*")
                fills = [*(rng.choice(["", "a", "b", "ab", "ba", "x"]) for _ in pieces[1:]), ""]
                out.append("".join(p + f for p, f in zip(pieces, fills, strict=True)))
        keys.append("/" + "/".join(out))
    return [k for k in keys if all(k.split("/")[1:])]


@settings(max_examples=400, deadline=None)
@given(
    st.lists(SEGMENTS, min_size=1, max_size=4),
    st.lists(SEGMENTS, min_size=1, max_size=4),
    st.integers(0, 1000),
)
def test_subset_is_sound(child_parts: list[str], parent_parts: list[str], seed: int) -> None:
    child, parent = "/" + "/".join(child_parts), "/" + "/".join(parent_parts)
    if pattern_subset(child, parent):
        for key in instances(child, random.Random(seed)):
            assert matches(child, key)
            assert matches(parent, key), (child, parent, key)


@pytest.mark.parametrize(
    ("child", "parent", "subset"),
    [
        ("/a/b/**", "/a/**", True),
        ("/a/**", "/a/**", True),
        ("/**", "/a/**", False),  # the notes' escalation example
        ("/a", "/a/**", False),  # a final /** needs a segment
        ("/a/x", "/a/*", True),
        ("/a/x*", "/a/*", True),
        ("/a/tar*.json", "/a/tar*", True),
        ("/a/*", "/a/x*", False),
        ("/r/np1/devices/d/x", "/r/*/devices/*/x", True),
        ("/a/**/b", "/a/**", True),
        ("/a/b", "/a/**/b", True),
        ("/a/**/b", "/a/b", False),
    ],
)
def test_subset_examples(child: str, parent: str, subset: bool) -> None:
    assert pattern_subset(child, parent) is subset
