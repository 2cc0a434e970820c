"""The cosmic-ray mutants of the spec no vector can tell from it, each with why (the coverage
page lists them): equivalent on every input the protocol can send, or unreachable through it.
They are left out of the mutation score (`mutation.py`)."""

from __future__ import annotations

EQUIVALENT: dict[tuple[str, str, str], str] = {}
"""By module, mutated line (whitespace collapsed) and cosmic-ray operator."""
UNREACHABLE: dict[tuple[str, str], str] = {}
"""By module and line: every mutant of the line."""
