"""The mutation tool: its sites are stable, a mutant changes the spec it loads, a mutant the
vectors catch counts as killed, and the unmutated spec does not."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

from swarmconf.conformance.configmerge import mutation

VECTORS = Path(__file__).resolve().parents[3] / "vectors" / "v1"


def _small_vectors(tmp_path: Path) -> Path:
    root = tmp_path / "v1"
    root.mkdir()
    shutil.copy(VECTORS / "design_examples_test.json", root)
    return root


def test_the_sites_are_listed_in_a_fixed_order() -> None:
    first, second = mutation.list_mutants(), mutation.list_mutants()
    assert first == second and len(first) > 300
    assert {mutant.module for mutant in first} == set(mutation.MODULES)


def test_a_mutant_is_valid_python_that_differs_from_the_spec() -> None:
    for mutant in mutation.list_mutants()[::40]:
        source = mutation.mutated_source(mutant)
        ast.parse(source)
        assert ast.dump(ast.parse(source)) != ast.dump(ast.parse(mutation.source_of(mutant.module)))


def test_the_vectors_kill_a_wrong_hash_length_and_not_the_spec(tmp_path: Path) -> None:
    root = _small_vectors(tmp_path)
    (hash_length,) = [
        mutant
        for mutant in mutation.list_mutants()
        if mutant.module == "message"
        and mutant.description == "number 32 -> 33"
        and "digest_size=33" in mutation.mutated_source(mutant)
    ]
    assert mutation.killed(hash_length, root, timeout=120)
    baseline = mutation.Mutant("message", -1, 0, "none")
    assert not mutation.killed(baseline, root, timeout=120)
