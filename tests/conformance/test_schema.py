"""The vector schema accepts well-formed files and refuses malformed ones."""

from __future__ import annotations

import copy
from typing import Any

import jsonschema
import pytest
from conformance_helpers import SOURCE, hash_case, suite

from swarmconf.conformance.vectors import check_document

CASES = [hash_case(1, b"a"), hash_case(2, b"b", valid=False)]


def errors(doc: dict[str, Any]) -> list[str]:
    validator = jsonschema.Draft202012Validator(suite("basic", CASES).schema())
    return [error.message for error in validator.iter_errors(doc)]


def good() -> dict[str, Any]:
    return suite("basic", CASES).document(SOURCE)


def test_schema_is_valid_json_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(suite("basic", CASES).schema())


def test_well_formed_document_passes() -> None:
    assert errors(good()) == []
    assert check_document(good()) == []


@pytest.mark.parametrize(
    "path, value",
    [
        (("extraTopLevel",), 1),
        (("header", "design"), "kvgossip"),
        (("header", "suite"), "other"),
        (("testGroups", 0, "lag"), "5"),
        (("testGroups", 0, "type"), "parse"),
        (("testGroups", 0, "tests", 0, "surprise"), True),
        (("testGroups", 0, "tests", 0, "input", "verify_key"), "00"),
        (("testGroups", 0, "tests", 0, "expected", "hash"), "ABCD"),
        (("testGroups", 0, "tests", 0, "rules"), ["D33"]),
        (("testGroups", 0, "tests", 0, "flags"), ["Undefined"]),
        (("testGroups", 0, "tests", 0, "result"), "maybe"),
        (("testGroups", 0, "tests", 0, "reason"), "MSG_NOT_DICT"),
        (("testGroups", 0, "tests", 1, "reason"), "NOT_A_REASON"),
        (("testGroups", 0, "tests", 0, "deployed"), {"result": "maybe"}),
    ],
)
def test_malformed_document_is_refused(path: tuple[Any, ...], value: Any) -> None:
    doc = copy.deepcopy(good())
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    assert errors(doc) != []


def test_missing_reason_on_invalid_case_is_refused() -> None:
    doc = good()
    del doc["testGroups"][0]["tests"][1]["reason"]
    assert errors(doc) != []


def test_cross_field_rules() -> None:
    doc = good()
    case = doc["testGroups"][0]["tests"][1]
    case["tcId"] = 7
    case["name"] = "case-1"
    case["flags"] = ["Undefined"]
    doc["numberOfTests"] = 3
    assert len(check_document(doc)) == 4
