"""The payload suite's cases at the 5,000,000-byte bounds, written by recipe, pass on the spec,
the reference and the deployed client's emulation, and their files stay small."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from unittest.mock import ANY

import pytest

import swarmconf.reference.configmerge as reference
from swarmconf.conformance.client import Client, ProcessClient, make_client
from swarmconf.conformance.configmerge.suites import payload
from swarmconf.conformance.generate import source
from swarmconf.conformance.recipes import is_recipe
from swarmconf.conformance.runner import FAILED, PASSED, SKIPPED, run_cases
from swarmconf.conformance.vectors import Case, cases_of
from swarmconf.spec.configmerge import examples, parts
from swarmconf.spec.configmerge import payload as spec_payload
from swarmconf.spec.configmerge.encryption import encrypt
from swarmconf.spec.configmerge.reasons import PayloadError, PayloadReason

EMULATION = [sys.executable, "-m", "swarmconf.conformance.configmerge.deployed"]
KEY = payload.MAIN_KEY
DOMAIN = payload.DOMAIN


@pytest.fixture(scope="module")
def bounds() -> list[Case]:
    document = payload.build().document(source())
    found = [case for case in cases_of(document, "payload") if "-message-of-" in case.name]
    assert len(json.dumps([case.request for case in found])) < 10_000
    return found


def test_every_bound_is_written_by_recipe(bounds: list[Case]) -> None:
    wraps = [case for case in bounds if case.op == "wrap"]
    assert {case.name for case in wraps} == {
        *(f"wrap-compressible-message-of-{n}-bytes" for n in (5000000, 5000001)),
        *(f"wrap-uncompressed-message-of-{n}-bytes" for n in (4997080, 4997081, 5000000, 5000001)),
    }
    assert all(is_recipe(case.request["message"]) for case in wraps)
    assert [case.reason for case in wraps if case.result == "invalid"] == ["PAYLOAD_TOO_LARGE"] * 4


def test_the_message_bound_has_both_sides_and_the_deployed_push_past_it(
    bounds: list[Case],
) -> None:
    """X13: the deployed client pushes a compressible message one past the bound, and swarmconf's
    reader refuses what that blob inflates to; exactly at the bound both read it."""
    by_name = {case.name: case for case in bounds}
    pushed = by_name["wrap-compressible-message-of-5000001-bytes"]
    assert pushed.quirks == ("X13",) and pushed.deployed is not None
    assert pushed.deployed["result"] == "valid"
    unwraps = [case for case in bounds if case.op == "unwrap"]
    assert [(case.name, case.result, case.reason) for case in unwraps] == [
        ("unwrap-compressed-message-of-5000000-bytes", "valid", None),
        ("unwrap-compressed-message-of-5000001-bytes", "invalid", "ZSTD_TOO_LARGE"),
    ]
    assert unwraps[0].expected == {"msg": {"size": 5_000_000, "blake2b": ANY}}
    assert unwraps[1].quirks == ("X15",)  # the deployed reader inflates it whole


def joined_blobs(size: int) -> list[bytes]:
    """The parts of a padded payload of exactly `size` bytes holding m118, as blobs."""
    message = examples.m118()
    padded = bytes(size - len(message)) + message
    return [
        encrypt(parts.encode_part(part), KEY, profile="libsession", domain=DOMAIN)
        for part in parts.split(padded)
    ]


@pytest.mark.parametrize("unwrap", [spec_payload.unwrap, reference.unwrap])
def test_parts_join_to_at_most_five_million_bytes(unwrap: Callable[..., bytes]) -> None:
    """PAYLOAD_TOO_LARGE on joined parts, which no vector reaches (66 blobs of ciphertext, no
    recipe): exactly 5,000,000 joined bytes are read, one more is refused (D26)."""
    at_limit = joined_blobs(5_000_000)
    assert len(at_limit) == 66
    assert unwrap(at_limit, [KEY], DOMAIN) == examples.m118()
    with pytest.raises(PayloadError) as refused:
        unwrap(joined_blobs(5_000_001), [KEY], DOMAIN)
    assert refused.value.reason == PayloadReason.PAYLOAD_TOO_LARGE


@pytest.mark.parametrize("client", ["builtin:spec", "builtin:reference", "emulation"])
def test_the_bounds_pass(bounds: list[Case], client: str) -> None:
    running: Client = (
        ProcessClient(EMULATION, 60.0) if client == "emulation" else make_client(client, 60.0)
    )
    grades = [outcome.status for outcome in run_cases(running, bounds).outcomes]
    assert FAILED not in grades and SKIPPED not in grades
    if client != "emulation":
        assert grades == [PASSED] * len(bounds)
