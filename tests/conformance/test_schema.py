"""The vector schema accepts well-formed files and refuses malformed ones."""

from __future__ import annotations

import copy
from typing import Any

import jsonschema
import pytest
from conformance_helpers import document, hash_case

from swarmconf.conformance.schema import check_document, schema_for


def errors(doc: dict[str, Any]) -> list[str]:
    validator = jsonschema.Draft202012Validator(schema_for(doc["header"]["category"], ["hash"]))
    return [error.message for error in validator.iter_errors(doc)]


def good() -> dict[str, Any]:
    return document("basic", [hash_case(1, b"a"), hash_case(2, b"b", valid=False)])


def test_schema_is_valid_json_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(schema_for("basic", ["parse", "merge"]))


def test_well_formed_document_passes() -> None:
    assert errors(good()) == []
    assert check_document(good()) == []


@pytest.mark.parametrize(
    "path, value",
    [
        (("extraTopLevel",), 1),
        (("header", "lag"), 0),
        (("header", "category"), "other"),
        (("testCases", 0, "surprise"), True),
        (("testCases", 0, "input", "verify_key"), "00"),
        (("testCases", 0, "expected", "hash"), "ABCD"),
        (("testCases", 0, "rules"), ["D21"]),
        (("testCases", 0, "result"), "maybe"),
        (("testCases", 0, "reason"), "MSG_NOT_DICT"),
        (("testCases", 1, "reason"), "NOT_A_REASON"),
        (("testCases", 1, "expected"), {"hash": "00"}),
        (("testCases", 0, "op"), "parse"),
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
    del doc["testCases"][1]["reason"]
    assert errors(doc) != []


def test_cross_field_rules() -> None:
    doc = good()
    doc["testCases"][1]["tcId"] = 7
    doc["testCases"][1]["name"] = "case-1"
    doc["testCases"][1]["flags"] = ["Undefined"]
    doc["numberOfTests"] = 3
    assert len(check_document(doc)) == 4
