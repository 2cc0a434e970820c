"""Vector files: reading them into cases, and writing them compactly and deterministically.

A file `vectors/v1/<category>_test.json` holds `schema`, `header` (schema version, category,
default lag and profile, the flags used with their bug types), `numberOfTests` and `testCases`.
It is written with the header indented and one case per line, so files stay small and diffs
stay readable.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from swarmconf.conformance.protocol import HEADER_DEFAULTS, OPS

SCHEMA_VERSION = 1
VECTOR_SUFFIX = "_test.json"
# K/V Gossip vectors share the directory but not this protocol; their own runner reads them.
FOREIGN_PREFIX = "kvgossip_"


@dataclass(frozen=True)
class Case:
    """One test case as the runner sees it."""

    category: str
    tc_id: int
    name: str
    comment: str
    flags: tuple[str, ...]
    rules: tuple[str, ...]
    op: str
    request: dict[str, Any]
    expected: dict[str, Any] | None
    result: str
    reason: str | None
    deployed: dict[str, Any] | None = None
    """What the deployed client does, on a case flagged with one of its quirks."""

    @property
    def label(self) -> str:
        return f"{self.category}#{self.tc_id} {self.name}"


def read_vector_file(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return document


def cases_of(document: dict[str, Any]) -> list[Case]:
    """The file's cases, each request completed with the header's lag and profile."""
    header = document["header"]
    cases = []
    for raw in document["testCases"]:
        op = OPS[raw["op"]]
        request = {"op": raw["op"]}
        for name in HEADER_DEFAULTS:
            if name in op.request_kinds() and header.get(name) is not None:
                request[name] = header[name]
        request.update(raw["input"])
        cases.append(
            Case(
                category=header["category"],
                tc_id=raw["tcId"],
                name=raw["name"],
                comment=raw["comment"],
                flags=tuple(raw["flags"]),
                rules=tuple(raw["rules"]),
                op=raw["op"],
                request=request,
                expected=raw.get("expected"),
                result=raw["result"],
                reason=raw.get("reason"),
                deployed=raw.get("deployed"),
            )
        )
    return cases


def vector_files(root: Path) -> list[Path]:
    """The config-merge vector files under `root`."""
    paths = root.glob("*" + VECTOR_SUFFIX)
    return sorted(path for path in paths if not path.name.startswith(FOREIGN_PREFIX))


def category_of(path: Path) -> str:
    return path.name.removesuffix(VECTOR_SUFFIX)


def load_cases(root: Path, categories: Iterable[str] = ()) -> list[Case]:
    """All cases under `root`, or only those of the named categories (unknown names refused)."""
    files = {category_of(path): path for path in vector_files(root)}
    if not files:
        raise ValueError(f"no vector files in {root} (use --vectors DIR)")
    wanted = list(categories) or list(files)
    unknown = sorted(set(wanted) - set(files))
    if unknown:
        raise ValueError(f"no vector file for categories {unknown} in {root}")
    return [case for name in wanted for case in cases_of(read_vector_file(files[name]))]


def dump_vector_file(document: dict[str, Any]) -> str:
    """The file's text: indented outer structure, one case per line, sorted keys, final newline."""
    cases = document["testCases"]
    outer = {key: value for key, value in document.items() if key != "testCases"}
    head = json.dumps(outer, indent=2, sort_keys=True, ensure_ascii=False)
    lines = [
        json.dumps(case, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        for case in cases
    ]
    body = ",\n    ".join(lines)
    cases_text = '"testCases": [\n    ' + body + "\n  ]" if lines else '"testCases": []'
    return head[:-2] + ",\n  " + cases_text + "\n}\n"
