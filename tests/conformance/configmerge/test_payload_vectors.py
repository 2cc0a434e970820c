"""The payload suite's vectors say what D21..D26 say: exact blobs around the split, compressed
payloads behind `z`, and the pinned client's refusals (X11); merge answers carry `obsolete`
(D27), and where the deployed client deletes otherwise the case says so (X12)."""

from __future__ import annotations

from pathlib import Path

import pytest

from swarmconf.conformance.vectors import Case, load_cases
from swarmconf.spec.configmerge import decrypt, parse, unpad
from swarmconf.spec.configmerge.merge import merge

VECTORS = Path(__file__).resolve().parents[3] / "vectors" / "v1"


@pytest.fixture(scope="module")
def payload() -> dict[str, Case]:
    return {case.name: case for case in load_cases(VECTORS, suites=["payload"])}


def _opened(case: Case, blob: str) -> bytes:
    key, domain = bytes.fromhex(case.request["key"]), bytes.fromhex(case.request["domain"])
    return unpad(decrypt(bytes.fromhex(blob), key, profile="libsession", domain=domain))


def test_76760_padded_bytes_are_one_blob_of_76800_and_one_more_byte_two_parts(
    payload: dict[str, Case],
) -> None:
    single = payload["wrap-76760-bytes"]
    assert single.expected is not None
    # a blob over 64 KiB is written as its size and hash
    assert [blob["size"] for blob in single.expected["blobs"]] == [76_800]
    split = payload["wrap-76761-bytes"]
    assert split.expected is not None
    blobs = split.expected["blobs"]
    assert len(blobs) == 2 and all(
        len(blob) // 2 <= 76_800 for blob in blobs if isinstance(blob, str)
    )
    assert all(blob["size"] <= 76_800 for blob in blobs if isinstance(blob, dict))
    assert all(_opened(split, blob).startswith(b"m") for blob in blobs if isinstance(blob, str))
    assert split.deployed == {"result": "invalid", "reason": "PUSH_TOO_LARGE"}
    assert "X11" in split.quirks


def test_level_1_compresses_only_what_gets_shorter(payload: dict[str, Case]) -> None:
    compressible = payload["wrap-compressible-level-1"]
    assert compressible.expected is not None
    assert _opened(compressible, compressible.expected["blobs"][0]).startswith(b"z")
    small = payload["wrap-minimal-level-1"]
    assert small.expected is not None
    assert _opened(small, small.expected["blobs"][0]) == bytes.fromhex(small.request["message"])


def test_the_pinned_client_skips_every_part(payload: dict[str, Case]) -> None:
    parts = [case for case in payload.values() if case.op == "unwrap" and "MultiPart" in case.flags]
    assert len(parts) > 20
    for case in parts:
        assert case.deployed == {"result": "invalid", "reason": "PAYLOAD_MULTIPART_UNSUPPORTED"}


def test_every_merge_answer_says_what_its_push_deletes() -> None:
    merges = [
        case
        for case in load_cases(VECTORS, designs=["configmerge"])
        if case.op == "merge" and case.expected is not None
    ]
    assert len(merges) > 15_000
    assert all("obsolete" in case.expected and "D27" in case.rules for case in merges)  # type: ignore[operator]


def test_an_unparseable_input_before_the_survivor_makes_the_deployed_client_delete_it() -> None:
    cases = {case.name: case for case in load_cases(VECTORS, suites=["ignore_rules"])}
    case = cases["invalid-bad-bt-with-survivor"]
    survivor = merge([bytes.fromhex(text) for text in case.request["msgs"]])
    assert not survivor.merged
    assert case.expected is not None and case.expected["obsolete"] == []
    assert case.deployed is not None
    assert case.deployed["expected"]["obsolete"] == [survivor.hash.hex()]
    assert case.quirks == ("X12",)
    parse(bytes.fromhex(case.request["msgs"][1]))  # the survivor parses; the first does not
