"""The deterministic vector generator: `swarmconf vectors generate` / `make vectors`.

Every registered design builds its suites; each suite is written as `<suite id>_test.json`
with its schema under `schemas/`, and `COVERAGE.md` counts the cases of all of them. Running
it twice gives the same bytes; files no suite wrote any more are removed.

Every file says where it came from (`source`): this generator, swarmconf's version, and the
newest commit that changed what the vectors are made from (the spec and the conformance role,
`GENERATOR_SOURCES`). Vectors are thus committed after the change that made them: commit the
sources, then run `make vectors` and commit the vectors.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import swarmconf
from swarmconf.conformance.coverage import Built, coverage_markdown
from swarmconf.conformance.registry import designs
from swarmconf.conformance.vectors import (
    VECTOR_SUFFIX,
    Source,
    dump,
    dump_schema,
    schema_file_name,
    vector_file_name,
)

COVERAGE_FILE = "COVERAGE.md"
GENERATOR = "swarmconf vectors generate"
GENERATOR_SOURCES = ("spec", "conformance")
"""The role folders the vectors are computed from (the spec's answers, the cases, the emulation
of the deployed client), relative to the checkout holding this module."""
NOT_SOURCES = ":(exclude,glob)**/*.md"
"""Their Markdown (PROTOCOL.md, VECTORS.md) is written from the vectors, not the other way."""
UNKNOWN = "unknown"


def source_commit(checkout: Path) -> str:
    """The newest commit that changed `GENERATOR_SOURCES` in `checkout`, with `-modified` when
    they have uncommitted changes; `unknown` when `checkout` is not a git checkout of them."""
    if not all((checkout / folder).is_dir() for folder in GENERATOR_SOURCES):
        return UNKNOWN
    git = ["git", "-C", str(checkout)]
    try:
        commit = subprocess.run(
            [*git, "log", "-1", "--format=%H", "--", *GENERATOR_SOURCES, NOT_SOURCES],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        changes = subprocess.run(
            [*git, "status", "--porcelain", "--", *GENERATOR_SOURCES, NOT_SOURCES],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return UNKNOWN
    if not commit:
        return UNKNOWN
    return commit + "-modified" if changes else commit


def source() -> Source:
    """Where the vectors this process generates come from."""
    checkout = Path(__file__).resolve().parents[1]
    return Source(GENERATOR, swarmconf.__version__, source_commit(checkout))


def build() -> Built:
    """Every design's suites, built with its spec's answers."""
    return {name: (design, design.suites()) for name, design in designs().items()}


def _write(path: Path, text: str) -> None:
    """Write only when the content changes, so unchanged files keep their timestamps."""
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def generate(root: Path) -> Built:
    """Write every vector file, schema and the coverage table under `root` (vectors/v1)."""
    built, origin = build(), source()
    schemas = root / "schemas"
    schemas.mkdir(parents=True, exist_ok=True)
    written: set[Path] = set()
    for _, suites in built.values():
        for suite in suites:
            vector_path = root / vector_file_name(suite.id)
            _write(vector_path, dump(suite.document(origin)))
            schema_path = schemas / schema_file_name(suite.id)
            _write(schema_path, dump_schema(suite.schema()))
            written |= {vector_path, schema_path}
    for stale in [*root.glob("*" + VECTOR_SUFFIX), *schemas.glob("*.json")]:
        if stale not in written:
            stale.unlink()
    _write(root / COVERAGE_FILE, coverage_markdown(built))
    return built
