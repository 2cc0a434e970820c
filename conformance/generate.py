"""The deterministic vector generator: `swarmconf vectors generate` / `make vectors`.

Every registered design builds its suites; each suite is written as `<suite id>_test.json`
with its schema under `schemas/`, and `COVERAGE.md` counts the cases of all of them. Running
it twice gives the same bytes; files no suite wrote any more are removed.
"""

from __future__ import annotations

from pathlib import Path

from swarmconf.conformance.coverage import Built, coverage_markdown
from swarmconf.conformance.registry import designs
from swarmconf.conformance.vectors import (
    VECTOR_SUFFIX,
    dump,
    dump_schema,
    schema_file_name,
    vector_file_name,
)

COVERAGE_FILE = "COVERAGE.md"


def build() -> Built:
    """Every design's suites, built with its spec's answers."""
    return {name: (design, design.suites()) for name, design in designs().items()}


def _write(path: Path, text: str) -> None:
    """Write only when the content changes, so unchanged files keep their timestamps."""
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def generate(root: Path) -> Built:
    """Write every vector file, schema and the coverage table under `root` (vectors/v1)."""
    built = build()
    schemas = root / "schemas"
    schemas.mkdir(parents=True, exist_ok=True)
    written: set[Path] = set()
    for _, suites in built.values():
        for suite in suites:
            vector_path = root / vector_file_name(suite.id)
            _write(vector_path, dump(suite.document()))
            schema_path = schemas / schema_file_name(suite.id)
            _write(schema_path, dump_schema(suite.schema()))
            written |= {vector_path, schema_path}
    for stale in [*root.glob("*" + VECTOR_SUFFIX), *schemas.glob("*.json")]:
        if stale not in written:
            stale.unlink()
    _write(root / COVERAGE_FILE, coverage_markdown(built))
    return built
