"""swarmconf.fuzz.kvgossip: a deterministic simulated network running the K/V Gossip spec.

`run_case(campaign_seed, index)` is the pure per-case entry point for fuzz campaigns: it derives
the case seed as the first 8 bytes (big-endian) of SHA-256("kvgossip/<campaign_seed>/<index>"),
generates the scenario, runs it, and returns a JSON-able dict whose `violations` list is empty
when every property holds. `mutant` runs the same case against a named mutant of the spec.
"""

from __future__ import annotations

from typing import Any

from .case import case_seed
from .harness import run_scenario
from .mutants import active
from .scenario import generate

__all__ = ["case_seed", "run_case", "run_seed"]


def run_seed(seed: int, mutant: str | None = None) -> dict[str, Any]:
    """Generate and run the scenario of `seed` (optionally under a mutant)."""
    with active(mutant):
        return run_scenario(generate(seed))


def run_case(campaign_seed: int, index: int, mutant: str | None = None) -> dict[str, Any]:
    """Run case `index` of campaign `campaign_seed`; `violations` is empty when all holds."""
    seed = case_seed(campaign_seed, index)
    result = run_seed(seed, mutant)
    return {
        "system": "kvgossip",
        "campaign_seed": campaign_seed,
        "index": index,
        "mutant": mutant,
        **result,
    }
