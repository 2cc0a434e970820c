"""The JSON Schema of vector files, one schema per category, derived from the op table.

`schema_for(category, ops)` allows exactly the ops a category uses; every object is closed
(`additionalProperties: false`). Cross-field rules JSON Schema cannot state (tcIds numbered
1..n, unique names, every flag used defined in the header, `deployed` exactly on the cases a quirk
flag marks) are checked by `check_document`.
"""

from __future__ import annotations

from typing import Any

from swarmconf.conformance.protocol import OPS
from swarmconf.conformance.vectorfile import SCHEMA_VERSION
from swarmconf.spec.configmerge.reasons import Reason

JsonSchema = dict[str, Any]

DRAFT = "https://json-schema.org/draft/2020-12/schema"
HEX = {"type": "string", "pattern": "^([0-9a-f]{2})*$"}
KIND_SCHEMAS: dict[str, JsonSchema] = {
    "int": {"type": "integer"},
    "bool": {"type": "boolean"},
    "str": {"type": "string"},
    "hex": HEX,
    "hex?": {"anyOf": [HEX, {"type": "null"}]},
    "bt": HEX,
    "btlist": {"type": "array", "items": HEX},
}

BUG_TYPES = (
    "BASIC",
    "EDGE_CASE",
    "MALLEABILITY",
    "AUTH_BYPASS",
    "MODIFIED_PARAMETER",
    "FUNCTIONALITY",
    "NONCANONICAL_ENCODING",
    "ORDERING",
    "CONFLICT",
    "STALE",
    "DESIGN_TEXT_EXAMPLE",
    "DEPLOYED_QUIRK",
    "EXHAUSTIVE",
)
QUIRK_PATTERN = "^X(10|[1-9])$"
RULE_PATTERN = "^(D(1[0-9]|20|[1-9])|X(10|[1-9]))$"
FLAG_PATTERN = "^[A-Z][A-Za-z0-9]*$"
NAME_PATTERN = "^[a-z0-9][a-z0-9_.-]*$"
RESULTS = ("valid", "invalid", "acceptable")
DEPLOYED_RESULTS = ("valid", "invalid", "hang", "abort")


def schema_file_name(category: str) -> str:
    return f"{category}_schema_v{SCHEMA_VERSION}.json"


def _object(properties: dict[str, JsonSchema], required: list[str]) -> JsonSchema:
    return {
        "type": "object",
        "additionalProperties": False,
        "required": required,
        "properties": properties,
    }


def _case_schema(op_name: str) -> JsonSchema:
    op = OPS[op_name]
    request = {name: KIND_SCHEMAS[kind] for name, kind in op.request_kinds().items()}
    # lag and profile may come from the header instead.
    required = [name for name in op.required if name not in ("lag", "profile")]
    result = {name: KIND_SCHEMAS[kind] for name, kind in op.result.items()}
    case = _object(
        {
            "tcId": {"type": "integer", "minimum": 1},
            "name": {"type": "string", "pattern": NAME_PATTERN},
            "comment": {"type": "string", "minLength": 1},
            "flags": {"type": "array", "items": {"type": "string", "pattern": FLAG_PATTERN}},
            "rules": {"type": "array", "items": {"type": "string", "pattern": RULE_PATTERN}},
            "op": {"const": op_name},
            "input": _object(request, required),
            "expected": _object(result, list(op.result)),
            "result": {"enum": list(RESULTS)},
            "reason": {"enum": [reason.value for reason in Reason]},
            "deployed": _deployed_schema(result),
        },
        ["tcId", "name", "comment", "flags", "rules", "op", "input", "result"],
    )
    case["allOf"] = [
        {
            "if": {"properties": {"result": {"const": "invalid"}}},
            "then": {"required": ["reason"], "not": {"required": ["expected"]}},
            "else": {"required": ["expected"], "not": {"required": ["reason"]}},
        }
    ]
    return case


def _deployed_schema(result: dict[str, JsonSchema]) -> JsonSchema:
    """What the deployed client does on a case flagged with one of its quirks."""
    deployed = _object(
        {
            "result": {"enum": list(DEPLOYED_RESULTS)},
            "expected": _object(result, list(result)),
            "reason": {"enum": [reason.value for reason in Reason]},
        },
        ["result"],
    )
    deployed["allOf"] = [
        {
            "if": {"properties": {"result": {"const": "valid"}}},
            "then": {"required": ["expected"], "not": {"required": ["reason"]}},
            "else": {"not": {"required": ["expected"]}},
        }
    ]
    return deployed


def schema_for(category: str, ops: list[str]) -> JsonSchema:
    """The schema of `<category>_test.json`, whose cases use the given ops."""
    flag = _object(
        {
            "bugType": {"enum": list(BUG_TYPES)},
            "description": {"type": "string", "minLength": 1},
            "effect": {"type": "string", "minLength": 1},
            "quirk": {"type": "string", "pattern": QUIRK_PATTERN},
        },
        ["bugType", "description"],
    )
    header = _object(
        {
            "schemaVersion": {"const": SCHEMA_VERSION},
            "category": {"const": category},
            "description": {"type": "string", "minLength": 1},
            "lag": {"type": "integer", "minimum": 1},
            "profile": {"enum": ["spec", "libsession", None]},
            "flags": {
                "type": "object",
                "propertyNames": {"pattern": FLAG_PATTERN},
                "additionalProperties": flag,
            },
        },
        ["schemaVersion", "category", "description", "lag", "profile", "flags"],
    )
    return {
        "$schema": DRAFT,
        "$id": schema_file_name(category),
        "title": f"swarmconf conformance vectors: {category}",
        **_object(
            {
                "schema": {"const": schema_file_name(category)},
                "header": header,
                "numberOfTests": {"type": "integer", "minimum": 0},
                "testCases": {
                    "type": "array",
                    "items": {"oneOf": [_case_schema(op) for op in sorted(set(ops))]},
                },
            },
            ["schema", "header", "numberOfTests", "testCases"],
        ),
    }


def check_document(document: dict[str, Any]) -> list[str]:
    """Problems the schema cannot express; an empty list when the file is consistent."""
    problems = []
    cases = document["testCases"]
    if document["numberOfTests"] != len(cases):
        problems.append(f"numberOfTests {document['numberOfTests']} != {len(cases)} cases")
    ids = [case["tcId"] for case in cases]
    if ids != list(range(1, len(cases) + 1)):
        problems.append("tcIds are not 1..n in order")
    names = [case["name"] for case in cases]
    if len(set(names)) != len(names):
        problems.append("case names are not unique")
    defined = set(document["header"]["flags"])
    used = {flag for case in cases for flag in case["flags"]}
    if used - defined:
        problems.append(f"flags used but not defined: {sorted(used - defined)}")
    if defined - used:
        problems.append(f"flags defined but not used: {sorted(defined - used)}")
    quirk_flags = {name for name, flag in document["header"]["flags"].items() if "quirk" in flag}
    unexplained = [
        case["name"]
        for case in cases
        if bool(quirk_flags & set(case["flags"])) != ("deployed" in case)
    ]
    if unexplained:
        problems.append(f"quirk flags without `deployed`, or the reverse: {unexplained[:5]}")
    return problems
