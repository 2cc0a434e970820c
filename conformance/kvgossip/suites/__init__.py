"""Every K/V Gossip suite, one module per vector file, in file order; each module's
`build(strict)` gives its suite and `swarmconf vectors generate` writes it as
`kvgossip_<name>_test.json`."""

from __future__ import annotations

from importlib import import_module

from swarmconf.conformance.builder import SuiteBuilder

NAMES = (
    "encoding",
    "keys",
    "grants",
    "revocations",
    "chains",
    "store",
    "treehash",
    "recon",
    "sessions",
)


def build_all(strict: bool = True) -> dict[str, SuiteBuilder]:
    """Every suite, built; strict generation checks every case against its intent."""
    return {name: import_module(f"{__name__}.{name}").build(strict) for name in NAMES}
