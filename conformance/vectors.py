"""The vector format of both designs, in Wycheproof's shape: building, writing, reading, checking.

Each design's vectors come in suites, one file per suite: `<suite id>_test.json`, the id being
the design's prefix (which may be empty) and the suite's name. A file holds:

- `schema`: its JSON Schema's file name, under `schemas/`;
- `header`: `schemaVersion`, `design` (the design's registered name), `suite` (its name),
  `description`;
- `source`: where it came from: the generator's `name` and `version` and the `commit` of the
  sources it ran (`swarmconf.conformance.generate.source`);
- `notes`: every flag its cases use, once: `bugType`, `description`, and `effect` (what a client
  that gets the case wrong breaks) or `quirk` (the deployed client's decision X1..X20) if any;
- `numberOfTests`, and `testGroups`: each group's `type` is the adapter protocol's operation,
  its other fields are request fields shared by its `tests` (Wycheproof's hoisted parameters).

A case holds `tcId` (1..n in file order), `name` (unique in the file), `comment`, `flags`,
`rules` (the design's rules it exercises), `input` (the rest of the request), `result` (`valid`,
`invalid` or `acceptable`), `expected` (the result's fields; also on an invalid case whose
refusal leaves a state to compare), `reason` (when invalid) and, on a case flagged with a quirk
of the deployed client, `deployed`: what that client does instead. The request a runner sends
is `{"op": type, **group fields, **input}`.

Files are written with the outer structure indented and one case per line, keys sorted, so the
same suite gives the same bytes and diffs stay readable.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from importlib import metadata, resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from swarmconf import __version__

SCHEMA_VERSION = 2
VECTOR_SUFFIX = "_test.json"

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
    "API_LIMIT",
)
RESULTS = ("valid", "invalid", "acceptable")
DEPLOYED_RESULTS = ("valid", "invalid", "hang", "abort")
NAME_PATTERN = "^[a-z0-9][a-z0-9_.-]*$"
FLAG_PATTERN = "^[A-Z][A-Za-z0-9]*$"
QUIRK_PATTERN = "^X[1-9][0-9]*$"
LIMIT_PATTERN = "^[a-z][a-z0-9-]*$"
REASON_PATTERN = "^[A-Z][A-Z0-9_]*$"
COMMIT_PATTERN = "^([0-9a-f]{40}(-modified)?|unknown)$"

Json = dict[str, Any]
DRAFT = "https://json-schema.org/draft/2020-12/schema"
HEX_TEXT: Json = {"type": "string", "pattern": "^([0-9a-f]{2})*$"}
COUNT: Json = {"type": "integer", "minimum": 0}
REPEAT: Json = {
    "type": "object",
    "properties": {"repeat": HEX_TEXT, "count": COUNT},
    "required": ["repeat", "count"],
    "additionalProperties": False,
}
SEEDED: Json = {
    "type": "object",
    "properties": {"seeded": {"type": "string"}, "size": COUNT},
    "required": ["seeded", "size"],
    "additionalProperties": False,
}
CONCAT: Json = {
    "type": "object",
    "properties": {"concat": {"type": "array", "items": {"anyOf": [HEX_TEXT, REPEAT, SEEDED]}}},
    "required": ["concat"],
    "additionalProperties": False,
}
DIGEST: Json = {
    "type": "object",
    "properties": {"size": COUNT, "blake2b": {"type": "string", "pattern": "^[0-9a-f]{64}$"}},
    "required": ["size", "blake2b"],
    "additionalProperties": False,
}
HEX: Json = {"anyOf": [HEX_TEXT, REPEAT, CONCAT, SEEDED, DIGEST]}
"""A byte string: hex, a recipe (in inputs) or a digest (in expected answers; see `recipes`)."""
HEX32: Json = {"type": "string", "pattern": "^[0-9a-f]{64}$"}


def hexlist() -> Json:
    """Schema of a list of hex strings."""
    return {"type": "array", "items": HEX}


def obj(properties: dict[str, Json], optional: Iterable[str] = ()) -> Json:
    """A closed object schema: every property required except the `optional` ones."""
    left_out = set(optional)
    return {
        "type": "object",
        "additionalProperties": False,
        "required": [name for name in properties if name not in left_out],
        "properties": properties,
    }


@dataclass(frozen=True)
class Flag:
    """A flag's note: why a case exists (Wycheproof's bug types)."""

    bug_type: str
    description: str
    effect: str = ""
    quirk: str = ""
    """For a `DEPLOYED_QUIRK` flag, the decision it cites (X1..X20): a case so flagged says in
    `deployed` what the deployed client does with it."""
    limit: str = ""
    """For an `API_LIMIT` flag, what a typed client's API cannot express, by the name it
    declares in `hello`'s `limits`: a case so flagged is not applicable to such a client."""

    def as_json(self) -> Json:
        note = {"bugType": self.bug_type, "description": self.description}
        if self.effect:
            note["effect"] = self.effect
        if self.quirk:
            note["quirk"] = self.quirk
        if self.limit:
            note["limit"] = self.limit
        return note


@dataclass(frozen=True)
class Source:
    """Where a vector file came from (Wycheproof's `source`): the generator's name and version,
    and the commit of the sources it ran (`unknown` outside a git checkout, `-modified` after
    the hash when those sources had uncommitted changes)."""

    name: str
    version: str
    commit: str

    def as_json(self) -> Json:
        return {"name": self.name, "version": self.version, "commit": self.commit}


@dataclass(frozen=True)
class GroupKind:
    """The schema parts of one operation: the hoisted group fields, the input, the result."""

    params: dict[str, Json]
    input: Json
    expected: Json


@dataclass
class Group:
    """A test group: its operation, the request fields its cases share, and its cases."""

    type: str
    params: Json
    tests: list[Json] = field(default_factory=list)


class Suite:
    """The cases of one vector file, grouped by operation and shared fields, in the order added."""

    def __init__(
        self,
        design: str,
        name: str,
        description: str,
        flags: dict[str, Flag],
        kinds: dict[str, GroupKind],
        *,
        rule_pattern: str,
        reasons: Iterable[str] = (),
        prefix: str = "",
    ) -> None:
        self.design = design
        self.name = name
        self.prefix = prefix
        self.description = description
        self.flags = flags
        self.kinds = kinds
        self.rule_pattern = rule_pattern
        self.reasons = sorted(reasons)
        self.groups: list[Group] = []
        self.names: set[str] = set()

    @property
    def id(self) -> str:
        """The suite's id, its file's stem: its name after its design's prefix."""
        return self.prefix + self.name

    @property
    def cases(self) -> list[Json]:
        return [case for group in self.groups for case in group.tests]

    def group(self, type_: str, **params: Any) -> Group:
        """The group of `type_` with exactly these shared fields, created on first use."""
        if type_ not in self.kinds or set(params) != set(self.kinds[type_].params):
            raise ValueError(f"{self.id}: no group {type_} with fields {sorted(params)}")
        for group in self.groups:
            if group.type == type_ and group.params == params:
                return group
        self.groups.append(Group(type_, params))
        return self.groups[-1]

    def case(
        self,
        group: Group,
        name: str,
        comment: str,
        *,
        flags: Iterable[str],
        rules: Iterable[str],
        input: Json,
        result: str,
        expected: Json | None = None,
        reason: str | None = None,
        deployed: Json | None = None,
    ) -> Json:
        """Add one case: names unique, flags defined, `reason` iff invalid, `expected` iff not."""
        flags, rules = list(flags), list(rules)
        if name in self.names:
            raise ValueError(f"{self.id}: duplicate case name {name}")
        undefined = [flag for flag in flags if flag not in self.flags]
        if undefined:
            raise ValueError(f"{self.id}/{name}: undefined flags {undefined}")
        if (reason is not None) != (result == "invalid"):
            raise ValueError(f"{self.id}/{name}: a reason goes with an invalid result")
        if expected is None and result != "invalid":
            raise ValueError(f"{self.id}/{name}: a {result} case needs `expected`")
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
        if deployed is not None:
            case["deployed"] = deployed
        self.names.add(name)
        group.tests.append(case)
        return case

    def ops(self) -> list[str]:
        return sorted({group.type for group in self.groups})

    def document(self, source: Source) -> Json:
        """The vector document, tcIds numbered 1..n in group order, saying where it came from."""
        groups, tc_id = [], 0
        for group in self.groups:
            tests = []
            for case in group.tests:
                tc_id += 1
                tests.append({"tcId": tc_id, **case})
            groups.append({"type": group.type, **group.params, "tests": tests})
        used = sorted({flag for case in self.cases for flag in case["flags"]})
        return {
            "schema": schema_file_name(self.id),
            "header": {
                "schemaVersion": SCHEMA_VERSION,
                "design": self.design,
                "suite": self.name,
                "description": self.description,
            },
            "source": source.as_json(),
            "notes": {flag: self.flags[flag].as_json() for flag in used},
            "numberOfTests": tc_id,
            "testGroups": groups,
        }

    def schema(self) -> Json:
        """The file's JSON Schema (draft 2020-12, every object closed); only the ops it uses."""
        used_flags = sorted({flag for case in self.cases for flag in case["flags"]})
        reason: Json = {"enum": self.reasons} if self.reasons else {"pattern": REASON_PATTERN}
        reason = {"type": "string", **reason}
        groups = [
            obj(
                {
                    "type": {"const": op},
                    **self.kinds[op].params,
                    "tests": _tests(self.kinds[op], reason, used_flags, self.rule_pattern),
                }
            )
            for op in self.ops()
        ]
        note = obj(
            {
                "bugType": {"enum": list(BUG_TYPES)},
                "description": {"type": "string", "minLength": 1},
                "effect": {"type": "string", "minLength": 1},
                "quirk": {"type": "string", "pattern": QUIRK_PATTERN},
                "limit": {"type": "string", "pattern": LIMIT_PATTERN},
            },
            optional=("effect", "quirk", "limit"),
        )
        return {
            "$schema": DRAFT,
            "$id": schema_file_name(self.id),
            "title": f"swarmconf conformance vectors: {self.id}",
            **obj(
                {
                    "schema": {"const": schema_file_name(self.id)},
                    "header": obj(
                        {
                            "schemaVersion": {"const": SCHEMA_VERSION},
                            "design": {"const": self.design},
                            "suite": {"const": self.name},
                            "description": {"type": "string", "minLength": 1},
                        }
                    ),
                    "source": obj(
                        {
                            "name": {"type": "string", "minLength": 1},
                            "version": {"type": "string", "minLength": 1},
                            "commit": {"type": "string", "pattern": COMMIT_PATTERN},
                        }
                    ),
                    "notes": {
                        "type": "object",
                        "propertyNames": {"enum": used_flags},
                        "additionalProperties": note,
                    },
                    "numberOfTests": {"type": "integer", "minimum": 0},
                    "testGroups": {"type": "array", "items": {"oneOf": groups}},
                }
            ),
        }


def _tests(kind: GroupKind, reason: Json, flags: list[str], rule_pattern: str) -> Json:
    """The schema of a group's `tests`: flags from `flags`, rules matching `rule_pattern`."""
    case = obj(
        {
            "tcId": {"type": "integer", "minimum": 1},
            "name": {"type": "string", "pattern": NAME_PATTERN},
            "comment": {"type": "string", "minLength": 1},
            "flags": {"type": "array", "items": {"enum": flags}},
            "rules": {"type": "array", "items": {"type": "string", "pattern": rule_pattern}},
            "input": kind.input,
            "result": {"enum": list(RESULTS)},
            "expected": kind.expected,
            "reason": reason,
            "deployed": _deployed_schema(kind.expected, reason),
        },
        optional=("expected", "reason", "deployed"),
    )
    case["allOf"] = [
        {
            "if": {"properties": {"result": {"const": "invalid"}}},
            "then": {"required": ["reason"]},
            "else": {"required": ["expected"], "not": {"required": ["reason"]}},
        }
    ]
    return {"type": "array", "items": case}


def _deployed_schema(expected: Json, reason: Json) -> Json:
    """What the deployed client does on a case flagged with one of its quirks."""
    deployed = obj(
        {"result": {"enum": list(DEPLOYED_RESULTS)}, "expected": expected, "reason": reason},
        optional=("expected", "reason"),
    )
    deployed["allOf"] = [
        {
            "if": {"properties": {"result": {"const": "valid"}}},
            "then": {"required": ["expected"], "not": {"required": ["reason"]}},
            "else": {"not": {"required": ["expected"]}},
        }
    ]
    return deployed


def schema_file_name(suite: str) -> str:
    return f"{suite}_schema_v{SCHEMA_VERSION}.json"


def vector_file_name(suite: str) -> str:
    return suite + VECTOR_SUFFIX


def dump(document: Json) -> str:
    """The file's text: indented outer structure, one case per line, sorted keys, final newline."""
    groups = document["testGroups"]
    outer = {key: value for key, value in document.items() if key != "testGroups"}
    head = json.dumps(outer, indent=2, sort_keys=True, ensure_ascii=False)
    texts = []
    for group in groups:
        fields = {key: value for key, value in group.items() if key != "tests"}
        lines = ",\n        ".join(
            json.dumps(case, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
            for case in group["tests"]
        )
        fields_text = json.dumps(fields, sort_keys=True, ensure_ascii=False)[1:-1]
        texts.append("{" + fields_text + ', "tests": [\n        ' + lines + "\n      ]}")
    body = (
        '"testGroups": [\n    ' + ",\n    ".join(texts) + "\n  ]" if texts else '"testGroups": []'
    )
    return head[:-2] + ",\n  " + body + "\n}\n"


def dump_schema(schema: Json) -> str:
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


# Reading.


@dataclass(frozen=True)
class Case:
    """One test case as a runner sees it: the request to send and what to judge the answer by."""

    suite: str
    """The id of the case's suite (its file's stem)."""
    design: str
    tc_id: int
    name: str
    comment: str
    flags: tuple[str, ...]
    rules: tuple[str, ...]
    op: str
    request: Json
    result: str
    expected: Json | None
    reason: str | None
    deployed: Json | None = None
    """What the deployed client does, on a case flagged with one of its quirks."""
    quirks: tuple[str, ...] = ()
    """The deployed client's quirks (X1..X20) the case's flags name."""
    limits: tuple[str, ...] = ()
    """What a typed API must express to take the case: the limits its flags name."""

    @property
    def label(self) -> str:
        return f"{self.suite}#{self.tc_id} {self.name}"


def suite_of(path: Path | Traversable) -> str:
    """The id of the suite a vector file holds."""
    return path.name.removesuffix(VECTOR_SUFFIX)


def read_document(path: Path | Traversable) -> Json:
    document: Json = json.loads(path.read_text(encoding="utf-8"))
    return document


def cases_of(document: Json, suite: str) -> Iterator[Case]:
    """The document's cases, each with its full request."""
    design = document["header"]["design"]
    quirk_of = {name: note.get("quirk", "") for name, note in document["notes"].items()}
    limit_of = {name: note.get("limit", "") for name, note in document["notes"].items()}
    for group in document["testGroups"]:
        shared = {key: value for key, value in group.items() if key not in ("type", "tests")}
        for raw in group["tests"]:
            yield Case(
                suite=suite,
                design=design,
                tc_id=raw["tcId"],
                name=raw["name"],
                comment=raw["comment"],
                flags=tuple(raw["flags"]),
                rules=tuple(raw["rules"]),
                op=group["type"],
                request={"op": group["type"], **shared, **raw["input"]},
                result=raw["result"],
                expected=raw.get("expected"),
                reason=raw.get("reason"),
                deployed=raw.get("deployed"),
                quirks=tuple(quirk_of[flag] for flag in raw["flags"] if quirk_of.get(flag)),
                limits=tuple(limit_of[flag] for flag in raw["flags"] if limit_of.get(flag)),
            )


VECTORS_DISTRIBUTION = "swarmconf-vectors"
"""The distribution the vectors ship in, apart from swarmconf, with swarmconf's version."""
VECTORS_PACKAGE = "swarmconf_vectors"
"""Its package; the vector files are under its folder `v1/`."""


class VectorsNotInstalled(FileNotFoundError):
    """No vector directory was given, and swarmconf-vectors is not installed."""

    def __init__(self) -> None:
        super().__init__(
            f"the conformance vectors are not installed: pip install"
            f" {VECTORS_DISTRIBUTION}=={__version__}, or give --vectors DIR"
        )


def bundled_vectors() -> Traversable:
    """The vectors of the installed distribution swarmconf-vectors (`swarmconf_vectors/v1`);
    `VectorsNotInstalled` when it is not installed."""
    try:
        return resources.files(VECTORS_PACKAGE) / "v1"
    except ModuleNotFoundError:
        raise VectorsNotInstalled() from None


def vectors_version_mismatch() -> str | None:
    """What to tell the user when the installed swarmconf-vectors is not swarmconf's version
    (its cases may then disagree with this runner); None when they match or it is missing."""
    try:
        installed = metadata.version(VECTORS_DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return None
    if installed == __version__:
        return None
    return (
        f"the installed {VECTORS_DISTRIBUTION} is {installed}, not swarmconf's {__version__}:"
        f" pip install {VECTORS_DISTRIBUTION}=={__version__}"
    )


def vector_files(root: Path | Traversable) -> list[Path | Traversable]:
    """Every vector file directly under `root`, by name."""
    if not root.is_dir():
        return []
    files = (path for path in root.iterdir() if path.name.endswith(VECTOR_SUFFIX))
    return sorted(files, key=lambda path: path.name)


def load_cases(
    root: Path | Traversable, suites: Iterable[str] = (), designs: Iterable[str] = ()
) -> list[Case]:
    """The cases under `root`: all, or those of the named suites (ids) and designs."""
    files = {suite_of(path): path for path in vector_files(root)}
    if not files:
        raise ValueError(f"no vector files in {root} (use --vectors DIR)")
    wanted = list(suites) or list(files)
    unknown = sorted(set(wanted) - set(files))
    if unknown:
        raise ValueError(f"no vector file for suites {unknown} in {root}")
    documents = {name: read_document(files[name]) for name in wanted}
    wanted_designs = set(designs)
    if wanted_designs:
        found = {document["header"]["design"] for document in documents.values()}
        unknown = sorted(wanted_designs - found)
        if unknown:
            raise ValueError(f"no vector file of designs {unknown} in {root}")
        wanted = [name for name in wanted if documents[name]["header"]["design"] in wanted_designs]
    return [case for name in wanted for case in cases_of(documents[name], name)]


def check_document(document: Json) -> list[str]:
    """Problems the JSON Schema cannot state; an empty list when the file is consistent."""
    problems = []
    cases = [case for group in document["testGroups"] for case in group["tests"]]
    if document["numberOfTests"] != len(cases):
        problems.append(f"numberOfTests {document['numberOfTests']} != {len(cases)} cases")
    if [case["tcId"] for case in cases] != list(range(1, len(cases) + 1)):
        problems.append("tcIds are not 1..n in order")
    names = [case["name"] for case in cases]
    if len(set(names)) != len(names):
        problems.append("case names are not unique")
    defined = set(document["notes"])
    used = {flag for case in cases for flag in case["flags"]}
    if used - defined:
        problems.append(f"flags used but not defined: {sorted(used - defined)}")
    if defined - used:
        problems.append(f"flags defined but not used: {sorted(defined - used)}")
    quirk_flags = {name for name, note in document["notes"].items() if "quirk" in note}
    unexplained = [
        case["name"]
        for case in cases
        if bool(quirk_flags & set(case["flags"])) != ("deployed" in case)
    ]
    if unexplained:
        problems.append(f"quirk flags without `deployed`, or the reverse: {unexplained[:5]}")
    return problems
