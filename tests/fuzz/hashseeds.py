"""Run a Python program under several hash seeds, to show its output does not depend on them."""

import os
import subprocess
import sys
from collections.abc import Iterable


def outputs_under_hash_seeds(program: str, seeds: Iterable[str]) -> set[str]:
    """The distinct standard outputs of `program` run once per `PYTHONHASHSEED` value."""
    return {
        subprocess.run(
            [sys.executable, "-c", program],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        for seed in seeds
    }
