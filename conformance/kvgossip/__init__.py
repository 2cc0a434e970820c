"""K/V Gossip conformance vectors: generation, schemas and the spec runner.

`write_all(root)` writes every `kvgossip_<suite>_test.json` under `root` (the repository's
`vectors/v1`) and every schema under `root/schemas`, deterministically: the same code gives the
same bytes. `python -m swarmconf.conformance.kvgossip [ROOT]` does the same from the shell.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

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
from .base import Json, Suite, dump, schema_file, vector_file

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


def documents(strict: bool = True) -> dict[str, tuple[Json, Json]]:
    """Every suite's vector document and schema, by suite name."""
    return {name: (s.document(), s.schema()) for name, s in build_all(strict).items()}


def write_all(root: Path) -> None:
    """Write every kvgossip vector file and schema under `root` (e.g. `vectors/v1`)."""
    (root / "schemas").mkdir(parents=True, exist_ok=True)
    for name, (document, schema) in documents().items():
        (root / vector_file(name)).write_text(dump(document), encoding="utf-8")
        (root / "schemas" / schema_file(name)).write_text(dump(schema), encoding="utf-8")
