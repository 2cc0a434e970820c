"""C1 through an adapter graded as the runner grades a `client_steps` vector."""

from __future__ import annotations

import json
from typing import Any

import pytest

from swarmconf.conformance.vectors import bundled_vectors
from swarmconf.fuzz.configmerge.grading import deployed_quirks


def deployed_cases() -> list[tuple[dict[str, Any], dict[str, Any], list[str]]]:
    """The client_steps vectors where the deployed client answers otherwise: (request, the
    deployed client's answer, the case's rules)."""
    document = json.loads((bundled_vectors() / "client_steps_test.json").read_text())
    found = []
    for group in document["testGroups"]:
        for test in group["tests"]:
            deployed = test.get("deployed") or {}
            if deployed.get("result") == "valid":
                request = {
                    "op": "client",
                    "lag": group["lag"],
                    "profile": group["profile"],
                    **test["input"],
                }
                found.append((request, {"result": deployed["expected"]}, test["rules"]))
    return found


CASES = deployed_cases()


def test_the_vectors_hold_scripts_the_deployed_client_answers_otherwise() -> None:
    assert len(CASES) >= 3


@pytest.mark.parametrize("request_, answer, rules", CASES[:6])
def test_the_deployed_answer_is_explained_by_its_quirks_when_declared(
    request_: dict[str, Any], answer: dict[str, Any], rules: list[str]
) -> None:
    every = [f"X{number}" for number in range(1, 21)]
    quirks = deployed_quirks(request_, answer, every)
    assert quirks and set(quirks) <= {rule for rule in rules if rule.startswith("X")}
    assert deployed_quirks(request_, answer, [q for q in every if q not in quirks]) is None


@pytest.mark.parametrize("request_, answer, rules", CASES[:3])
def test_another_answer_is_not_explained(
    request_: dict[str, Any], answer: dict[str, Any], rules: list[str]
) -> None:
    every = [f"X{number}" for number in range(1, 21)]
    other = {"result": {"answers": answer["result"]["answers"][:-1]}}
    assert deployed_quirks(request_, other, every) is None
