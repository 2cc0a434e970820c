"""The K/V Gossip vector file format: Wycheproof-like documents and their JSON Schemas.

A file `vectors/v1/kvgossip_<suite>_test.json` holds `schema`, `header` (`schemaVersion`,
`suite`, description lines), `notes` (every flag with its bug type, description and effect),
`numberOfTests` and `testGroups`; each group has a `type`, its shared parameters and `tests`.
A case has `tcId`, `name`, `comment`, `flags`, `rules` (sections of kv-gossip.md and the notes,
and the sync decisions `sync:K<n>`),
`input`, `expected` (required when valid), `result` and, when invalid, `reason`. Bytes are
lowercase hex. Only the generator assigns ids.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from .runner import run

SCHEMA_VERSION = 1
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
)
RESULTS = ("valid", "invalid", "acceptable")
RULE_PATTERN = (
    r"^(design:[a-z-]+|notes:[1-7](\.[1-9])?|row:[1-9][0-9]?|attack:[1-9][0-9]?|sync:K[1-9][0-9]?)$"
)
NAME_PATTERN = r"^[a-z0-9][a-z0-9-]*$"
FLAG_PATTERN = r"^[A-Z][A-Za-z0-9]*$"

Json = dict[str, Any]
HEX: Json = {"type": "string", "pattern": "^([0-9a-f]{2})*$"}
HEX32: Json = {"type": "string", "pattern": "^[0-9a-f]{64}$"}


def hexlist() -> Json:
    """Schema of a list of hex strings."""
    return {"type": "array", "items": HEX}


def obj(properties: dict[str, Json], optional: tuple[str, ...] = ()) -> Json:
    """A closed object schema: every property required except `optional`."""
    return {
        "type": "object",
        "additionalProperties": False,
        "required": [name for name in properties if name not in optional],
        "properties": properties,
    }


@dataclass(frozen=True)
class Flag:
    """A flag's definition in `notes`."""

    bug_type: str
    description: str
    effect: str


@dataclass
class Group:
    """A test group: its type, shared parameters and cases."""

    type: str
    params: Json
    tests: list[Json] = field(default_factory=list)


@dataclass(frozen=True)
class GroupKind:
    """The schema parts of one group type."""

    params: dict[str, Json]
    input: Json
    expected: Json


class Suite:
    """Collects a suite's cases and renders the document and its schema."""

    def __init__(
        self, name: str, header: list[str], flags: dict[str, Flag], kinds: dict[str, GroupKind]
    ) -> None:
        self.name = name
        self.header = header
        self.flags = flags
        self.kinds = kinds
        self.groups: dict[str, Group] = {}
        self._names: set[str] = set()

    def group(self, type_: str, **params: Any) -> Group:
        """The group of `type_` (one per type), created with `params` on first use."""
        if type_ not in self.groups:
            self.groups[type_] = Group(type_, params)
        return self.groups[type_]

    def case(
        self,
        group: Group,
        name: str,
        comment: str,
        *,
        flags: list[str],
        rules: list[str],
        input: Json,
        expected: Json | None,
        result: str,
        reason: str | None = None,
    ) -> None:
        """Add one case; names are unique, flags defined, `reason` present iff invalid."""
        assert name not in self._names, f"duplicate case name {name}"
        assert all(f in self.flags for f in flags), f"undefined flag in {flags}"
        assert (reason is not None) == (result == "invalid"), name
        assert expected is not None or result != "valid", name
        self._names.add(name)
        case: Json = {
            "name": name,
            "comment": comment,
            "flags": flags,
            "rules": rules,
            "input": input,
            "result": result,
        }
        if expected is not None:
            case["expected"] = expected
        if reason is not None:
            case["reason"] = reason
        group.tests.append(case)

    def document(self) -> Json:
        """The vector document, tcIds numbered 1..n in group order."""
        tc_id = 0
        groups = []
        for group in self.groups.values():
            tests = []
            for case in group.tests:
                tc_id += 1
                tests.append({"tcId": tc_id, **case})
            groups.append({"type": group.type, **group.params, "tests": tests})
        used = sorted({f for g in self.groups.values() for c in g.tests for f in c["flags"]})
        return {
            "schema": schema_file(self.name),
            "header": {"schemaVersion": SCHEMA_VERSION, "suite": self.name, "notes": self.header},
            "notes": {
                name: {
                    "bugType": self.flags[name].bug_type,
                    "description": self.flags[name].description,
                    "effect": self.flags[name].effect,
                }
                for name in used
            },
            "numberOfTests": tc_id,
            "testGroups": groups,
        }

    def schema(self) -> Json:
        """The suite's JSON Schema (draft 2020-12, every object closed)."""
        group_schemas = []
        for type_, kind in self.kinds.items():
            case = obj(
                {
                    "tcId": {"type": "integer", "minimum": 1},
                    "name": {"type": "string", "pattern": NAME_PATTERN},
                    "comment": {"type": "string", "minLength": 1},
                    "flags": {"type": "array", "items": {"enum": sorted(self.flags)}},
                    "rules": {
                        "type": "array",
                        "items": {"type": "string", "pattern": RULE_PATTERN},
                    },
                    "input": kind.input,
                    "expected": kind.expected,
                    "result": {"enum": list(RESULTS)},
                    "reason": {"type": "string", "pattern": "^[A-Z][A-Z_]*$"},
                },
                optional=("expected", "reason"),
            )
            group_schemas.append(
                obj(
                    {
                        "type": {"const": type_},
                        **kind.params,
                        "tests": {"type": "array", "items": case},
                    }
                )
            )
        flag_note = obj(
            {
                "bugType": {"enum": list(BUG_TYPES)},
                "description": {"type": "string", "minLength": 1},
                "effect": {"type": "string", "minLength": 1},
            }
        )
        return {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": schema_file(self.name),
            "title": f"K/V Gossip {self.name} vectors, schema v{SCHEMA_VERSION}",
            **obj(
                {
                    "schema": {"const": schema_file(self.name)},
                    "header": obj(
                        {
                            "schemaVersion": {"const": SCHEMA_VERSION},
                            "suite": {"const": self.name},
                            "notes": {"type": "array", "items": {"type": "string"}},
                        }
                    ),
                    "notes": {
                        "type": "object",
                        "propertyNames": {"enum": sorted(self.flags)},
                        "additionalProperties": flag_note,
                    },
                    "numberOfTests": {"type": "integer", "minimum": 1},
                    "testGroups": {"type": "array", "items": {"oneOf": group_schemas}},
                }
            ),
        }


def vector_file(suite: str) -> str:
    """The file name of a suite's vectors."""
    return f"kvgossip_{suite}_test.json"


def schema_file(suite: str) -> str:
    """The file name of a suite's schema."""
    return f"kvgossip_{suite}_schema_v{SCHEMA_VERSION}.json"


def dump(document: Json) -> str:
    """Deterministic JSON text: sorted keys, two-space indent, final newline."""
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


class Mismatch(AssertionError):
    """The spec's verdict on a generated case differs from what the case was written to show."""


def add(
    suite: Suite,
    group: Group,
    name: str,
    comment: str,
    *,
    flags: list[str],
    rules: list[str],
    input: Json,
    want: str,
    reason: str | None = None,
    strict: bool = True,
) -> None:
    """Run `input` through the spec and record the case; in strict mode check the intent.

    `want` and `reason` are what the case was written to show. Strict generation refuses any
    difference; non-strict generation (used to regenerate under a mutant) records the spec's
    verdict as it is.
    """
    got = run(group.type, group.params, input)
    if strict and (got.result, got.reason) != (want, reason):
        raise Mismatch(f"{suite.name}/{name}: spec says {got.result} {got.reason}")
    suite.case(
        group,
        name,
        comment,
        flags=flags,
        rules=rules,
        input=input,
        expected=got.expected,
        result=got.result,
        reason=got.reason,
    )
