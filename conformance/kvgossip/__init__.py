"""K/V Gossip conformance vectors: generation, schemas and the spec runner.

`write_all(root)` writes every `kvgossip_<suite>_test.json` under `root` (the repository's
`vectors/v1`) and every schema under `root/schemas`, deterministically: the same code gives the
same bytes. `python -m swarmconf.conformance.kvgossip [ROOT]` does the same from the shell.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from swarmconf.conformance.vectors import (
    dump,
    dump_schema,
    schema_file_name,
    vector_file_name,
)

from . import (
    suite_chains,
    suite_encoding,
    suite_grants,
    suite_keys,
    suite_recon,
    suite_revocations,
    suite_sessions,
    suite_store,
    suite_treehash,
)
from .base import Suite

SUITES: dict[str, Callable[[bool], Suite]] = {
    "encoding": suite_encoding.build,
    "keys": suite_keys.build,
    "grants": suite_grants.build,
    "revocations": suite_revocations.build,
    "chains": suite_chains.build,
    "store": suite_store.build,
    "treehash": suite_treehash.build,
    "recon": suite_recon.build,
    "sessions": suite_sessions.build,
}


def build_all(strict: bool = True) -> dict[str, Suite]:
    """Every suite, built; strict generation checks every case against its intent."""
    return {name: build(strict) for name, build in SUITES.items()}


def write_all(root: Path) -> set[Path]:
    """Write every kvgossip vector file and schema under `root`; the paths written."""
    (root / "schemas").mkdir(parents=True, exist_ok=True)
    written = set()
    for suite in build_all().values():
        vector_path = root / vector_file_name(suite.category)
        vector_path.write_text(dump(suite.document()), encoding="utf-8")
        schema_path = root / "schemas" / schema_file_name(suite.category)
        schema_path.write_text(dump_schema(suite.schema()), encoding="utf-8")
        written |= {vector_path, schema_path}
    return written
