"""Every K/V Gossip suite, in file order; `swarmconf vectors generate` writes one file each."""

from __future__ import annotations

from collections.abc import Callable

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
