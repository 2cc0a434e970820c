"""The payload vectors kill a sample of the mutants of each payload-layer module of the spec.

The payload suite is built here, so a case added to it counts before the vectors are written
again. Equivalent mutants and those only a vector with a multi-megabyte input can kill
(`mutation.EQUIVALENT`, `mutation.LARGE_INPUT`) are not sampled; any other that survives fails
the test.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from swarmconf.conformance.configmerge import mutation
from swarmconf.conformance.configmerge.suites import payload
from swarmconf.conformance.generate import source
from swarmconf.conformance.vectors import dump, vector_file_name

MODULES = ("compression", "parts", "payload")
SAMPLE = 4


@pytest.fixture(scope="module")
def payload_vectors(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("v1")
    suite = payload.build()
    (root / vector_file_name(suite.id)).write_text(dump(suite.document(source())))
    return root


def sample(module: str) -> list[mutation.Mutant]:
    candidates = [
        mutant
        for mutant in mutation.list_mutants()
        if mutant.module == module
        and mutation.equivalent(mutant) is None
        and mutation.large_input(mutant) is None
    ]
    return random.Random(f"payload mutants {module}").sample(candidates, SAMPLE)


@pytest.mark.parametrize("module", MODULES)
def test_a_sample_of_the_mutants_is_killed(module: str, payload_vectors: Path) -> None:
    survivors = [
        mutant for mutant in sample(module) if not mutation.killed(mutant, payload_vectors, 120)
    ]
    assert survivors == []


def test_the_spec_itself_passes_the_payload_vectors(payload_vectors: Path) -> None:
    baseline = mutation.Mutant("payload", -1, 0, "none")
    assert not mutation.killed(baseline, payload_vectors, 120)


def test_every_listed_mutant_exists() -> None:
    named = {
        (mutant.module, mutation.line_of(mutant), mutant.description)
        for mutant in mutation.list_mutants()
    }
    assert set(mutation.EQUIVALENT) <= named
    assert set(mutation.LARGE_INPUT) <= named
