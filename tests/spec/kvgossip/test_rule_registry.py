"""Every K/V rule in the registry resolves to its implementing functions and is cited by at
least one vector; every rule a vector cites is in the registry."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from swarmconf.spec.kvgossip.rules import RULES, implementation

VECTORS = Path(__file__).resolve().parents[3] / "vectors" / "v1"


def cited_rules() -> Counter[str]:
    cited: Counter[str] = Counter()
    for path in VECTORS.glob("*_test.json"):
        document = json.loads(path.read_text(encoding="utf-8"))
        if document["header"]["design"] != "kvgossip":
            continue
        for group in document["testGroups"]:
            for case in group["tests"]:
                cited.update(case["rules"])
    return cited


@pytest.mark.parametrize("rule", list(RULES))
def test_rule_has_functions_that_exist(rule: str) -> None:
    assert RULES[rule].functions, f"{rule} names no function"
    for path in RULES[rule].functions:
        assert callable(implementation(path)), path


def test_every_rule_has_a_vector_and_every_cited_rule_is_registered() -> None:
    cited = cited_rules()
    assert [rule for rule in RULES if cited[rule] == 0] == []
    assert sorted(set(cited) - set(RULES)) == []


def test_an_unknown_function_path_does_not_resolve() -> None:
    with pytest.raises(AttributeError):
        implementation("chain.no_such_function")
