"""The deterministic vector generator: `swarmconf vectors generate` / `make vectors`.

Each category module builds a `Suite` whose answers come from `swarmconf.spec.configmerge`;
`generate`
writes one `<category>_test.json` per suite, its schema under `schemas/`, and `COVERAGE.md`
(reason codes and D-numbers against case counts). Running it twice gives the same bytes.
The K/V Gossip vectors (`kvgossip_*`) are written by `swarmconf.conformance.kvgossip` when
that module exists.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from pathlib import Path

from swarmconf.conformance.configmerge import (
    cat_bt,
    cat_data,
    cat_diff,
    cat_encryption,
    cat_examples,
    cat_exhaustive,
    cat_increment,
    cat_merge,
    cat_parse,
    cat_serialize,
    cat_signatures,
)
from swarmconf.conformance.configmerge.coverage import coverage_markdown
from swarmconf.conformance.configmerge.suite import Suite
from swarmconf.conformance.vectors import (
    VECTOR_SUFFIX,
    dump,
    dump_schema,
    schema_file_name,
    vector_file_name,
)

BUILDERS: list[Callable[[], Suite]] = [
    cat_bt.build,
    cat_data.build,
    cat_parse.build,
    cat_serialize.build,
    cat_diff.build,
    cat_increment.build,
    cat_merge.ignore_rules,
    cat_merge.merges,
    cat_exhaustive.build,
    cat_signatures.build,
    cat_encryption.build,
    cat_examples.build,
]
KVGOSSIP_MODULE = "swarmconf.conformance.kvgossip"
COVERAGE_FILE = "COVERAGE.md"


def build_suites() -> list[Suite]:
    return [build() for build in BUILDERS]


def _write(path: Path, text: str) -> None:
    """Write only when the content changes, so unchanged files keep their timestamps."""
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def generate(root: Path) -> list[Suite]:
    """Write every vector file, schema and the coverage table under `root` (vectors/v1)."""
    suites = build_suites()
    schemas = root / "schemas"
    schemas.mkdir(parents=True, exist_ok=True)
    written: set[Path] = set()
    for suite in suites:
        vector_path = root / vector_file_name(suite.category)
        _write(vector_path, dump(suite.document()))
        schema_path = schemas / schema_file_name(suite.category)
        _write(schema_path, dump_schema(suite.schema()))
        written |= {vector_path, schema_path}
    if importlib.util.find_spec(KVGOSSIP_MODULE) is not None:
        written |= importlib.import_module(KVGOSSIP_MODULE).write_all(root)
    for stale in [*root.glob("*" + VECTOR_SUFFIX), *schemas.glob("*.json")]:
        if stale not in written:
            stale.unlink()
    _write(root / COVERAGE_FILE, coverage_markdown(suites))
    return suites
