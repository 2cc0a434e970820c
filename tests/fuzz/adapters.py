"""Commands that start adapter processes for the client-campaign tests."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = f"{sys.executable} {ROOT / 'docs/examples/conformance_adapter.py'}"
WRONG = f"{sys.executable} {ROOT / 'tests/conformance/wrong_adapter.py'}"
PARTIAL = f"{sys.executable} {ROOT / 'tests/fuzz/partial_adapter.py'}"


def mutant(name: str) -> str:
    return f"{sys.executable} -m swarmconf.fuzz.mutant_adapter {name}"
