"""Every rule in the registry has implementing functions that cite it."""

from __future__ import annotations

import inspect
import re

import pytest

from swarmconf.spec.configmerge.rules import PAYLOAD_RULES, RULES, implementation

ALL_RULES = {**RULES, **PAYLOAD_RULES}


def test_every_decision_is_registered() -> None:
    assert set(RULES) == {f"D{n}" for n in range(1, 21)}
    assert set(PAYLOAD_RULES) == {f"D{n}" for n in range(21, 28)}


@pytest.mark.parametrize("rule", sorted(ALL_RULES, key=lambda r: int(r[1:])))
def test_rule_functions_exist_and_cite_the_rule(rule: str) -> None:
    for path in ALL_RULES[rule].functions:
        function = implementation(path)
        docstring = inspect.getdoc(function) or ""
        assert re.search(rf"\b{rule}\b", docstring), f"{path} does not cite {rule}"
