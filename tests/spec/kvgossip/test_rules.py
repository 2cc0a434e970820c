"""Rules checked against independent restatements of the decisions (hashlib, re, brute force)."""

import hashlib
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swarmconf.spec.kvgossip.encoding import encode
from swarmconf.spec.kvgossip.fixtures import ALICE, ROOT
from swarmconf.spec.kvgossip.grants import decode_grant, issue_grant
from swarmconf.spec.kvgossip.keys import matches
from swarmconf.spec.kvgossip.reasons import KvError, KvReason
from swarmconf.spec.kvgossip.records import decode_record, make_record
from swarmconf.spec.kvgossip.treehash import (
    SUM_MODULUS,
    entry_sum,
    revset_hash,
    tree_hash,
    tree_hash_of,
)

SEGMENTS = st.sampled_from(["a", "b", "ab", "x.y", "a-b"])
PATTERN_SEGMENTS = st.sampled_from(["a", "b", "*", "a*", "*b", "a*b", "**"])


def regex_of(pattern: str) -> re.Pattern[str]:
    """The notes 2.2 pattern semantics restated as one regular expression."""
    parts = pattern[1:].split("/")
    out = ""
    for i, part in enumerate(parts):
        if part == "**":
            out += "(/[^/]+)+" if i == len(parts) - 1 else "(/[^/]+)*"
        else:
            out += "/" + "[^/]*".join(re.escape(p) for p in part.split("*"))
    return re.compile(out)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(PATTERN_SEGMENTS, min_size=1, max_size=5), st.lists(SEGMENTS, min_size=1, max_size=6)
)
def test_matcher_equals_regex_restatement(pattern_parts: list[str], key_parts: list[str]) -> None:
    pattern, key = "/" + "/".join(pattern_parts), "/" + "/".join(key_parts)
    assert matches(pattern, key) == bool(regex_of(pattern).fullmatch(key))


def test_tree_hash_restated_with_hashlib() -> None:
    e1, e2 = b"\xff" * 32, b"\x02" + b"\x00" * 31
    # 0xff..ff + 2 wraps modulo 2^256 to 1, as a little-endian 32-byte word.
    manual = hashlib.sha256(b"kvg/tree/2" + b"\x01" + b"\x00" * 31 + (2).to_bytes(8, "big"))
    assert tree_hash(entry_sum([e2, e1]), 2) == manual.digest()
    empty = hashlib.sha256(b"kvg/tree/2" + b"\x00" * 40).digest()
    assert tree_hash(0, 0) == tree_hash_of([]) == empty


def test_tree_hash_changes_by_one_entry_in_constant_time() -> None:
    records = [make_record(ROOT.seed, f"/k{i}", i, b"v") for i in range(3)]
    total = entry_sum(r.entry_hash for r in records[:2])
    added = (total + int.from_bytes(records[2].entry_hash, "little")) % SUM_MODULUS
    assert tree_hash(added, 3) == tree_hash_of(records)


def test_revset_hash_restated_with_hashlib() -> None:
    ids = [b"\x02" * 32, b"\x01" * 32]
    assert revset_hash(ids) == hashlib.sha256(b"kvg/revset/1" + ids[1] + ids[0]).digest()


def test_grant_id_and_entry_hash_are_sha256_of_body() -> None:
    grant = issue_grant(ROOT.seed, ALICE.pk, "/a/**", subgrant=True, issued_at=5)
    assert grant.id == hashlib.sha256(grant.body).digest()
    assert grant.body[:13] == b"\x97\xabkvg/grant/1"
    record = make_record(ALICE.seed, "/a/x", 7, b"v", [grant])
    assert record.entry_hash == hashlib.sha256(record.body).digest()
    assert record.body[:14] == b"\x96\xackvg/record/1"


def test_a_decoded_grant_is_reused_and_a_forged_one_refused_every_time() -> None:
    grant = issue_grant(ROOT.seed, ALICE.pk, "/cached/**", subgrant=False, issued_at=3)
    assert decode_grant(grant.encode()) is decode_grant(grant.encode()) == grant
    forged = encode([grant.body, bytes(64)])
    for _ in range(2):
        with pytest.raises(KvError) as refused:
            decode_grant(forged)
        assert refused.value.reason is KvReason.BAD_SIGNATURE


def test_a_body_tagged_by_an_array_nested_a_thousand_deep_has_the_wrong_domain_tag() -> None:
    tag: list[object] = []
    for _ in range(1000):
        tag = [tag]
    body = encode([tag, "/a", 1, False, bytes(32), ALICE.pk])
    with pytest.raises(KvError) as refused:
        decode_record(encode([body, bytes(64), b"", []]))
    assert refused.value.reason == KvReason.WRONG_DOMAIN_TAG
