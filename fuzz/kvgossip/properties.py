"""The properties a simulated run checks, by name, and which one a violation breaks.

The safety checks (K1-K5) run on every store change and frame sent (`world.World`); the
convergence checks (K6-K8) once the run has healed and drained (`harness.run_scenario`).
"""

from __future__ import annotations

PROPERTIES = {
    "K1": "every stored record is one an honest node created",
    "K2": "no node stores a record through a grant it knows is revoked",
    "K3": "a record only replaces one it beats under last-writer-wins",
    "K4": "only records whose chain is revoked are purged",
    "K5": "no session runs past its frame bound",
    "K6": "once healed, the honest nodes hold the same records and revocations",
    "K7": "every key holds the oracle's record (the LWW maximum of the valid writes)",
    "K8": "every session ends",
}
MARKERS = (
    ("K1", "stored a record no honest node created"),
    ("K2", "through a grant it knows is revoked"),
    ("K3", "with an LWW-smaller record"),
    ("K4", "whose chain is not revoked"),
    ("K5", "exceeded"),
    ("K6", "honest nodes still disagree"),
    ("K7", "differs from the oracle"),
    ("K8", "sessions never ended"),
)
"""Each property with the words its violations carry (see `world` and `harness`)."""
UNNAMED = "K?"
"""A violation that names none of the properties (a check added without its marker)."""


def property_of(violation: str) -> str:
    """The property a violation's text breaks."""
    return next((name for name, marker in MARKERS if marker in violation), UNNAMED)


def properties_of(violations: list[str]) -> list[str]:
    """The properties broken, sorted, each once."""
    return sorted({property_of(violation) for violation in violations})
