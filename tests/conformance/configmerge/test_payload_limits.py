"""The payload suite's cases at the 5,000,000-byte bounds, written by recipe, pass on the spec,
the reference and the deployed client's emulation, and their files stay small."""

from __future__ import annotations

import json
import sys

import pytest

from swarmconf.conformance.client import Client, ProcessClient, make_client
from swarmconf.conformance.configmerge.suites import payload
from swarmconf.conformance.generate import source
from swarmconf.conformance.recipes import is_recipe
from swarmconf.conformance.runner import FAILED, PASSED, SKIPPED, run_cases
from swarmconf.conformance.vectors import Case, cases_of

EMULATION = [sys.executable, "-m", "swarmconf.conformance.configmerge.deployed"]


@pytest.fixture(scope="module")
def bounds() -> list[Case]:
    document = payload.build().document(source())
    found = [case for case in cases_of(document, "payload") if "-message-of-" in case.name]
    assert len(json.dumps([case.request for case in found])) < 10_000
    return found


def test_every_bound_is_written_by_recipe(bounds: list[Case]) -> None:
    assert {case.name for case in bounds} == {
        "wrap-compressible-message-of-5000000-bytes",
        *(f"wrap-uncompressed-message-of-{n}-bytes" for n in (4997080, 4997081, 5000000, 5000001)),
    }
    assert all(is_recipe(case.request["message"]) for case in bounds)
    assert [case.reason for case in bounds if case.result == "invalid"] == ["PAYLOAD_TOO_LARGE"] * 3


@pytest.mark.parametrize("client", ["builtin:spec", "builtin:reference", "emulation"])
def test_the_bounds_pass(bounds: list[Case], client: str) -> None:
    running: Client = (
        ProcessClient(EMULATION, 60.0) if client == "emulation" else make_client(client, 60.0)
    )
    grades = [outcome.status for outcome in run_cases(running, bounds).outcomes]
    assert FAILED not in grades and SKIPPED not in grades
    if client != "emulation":
        assert grades == [PASSED] * len(bounds)
