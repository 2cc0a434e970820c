"""The mutation tool: cosmic-ray mutates the very files the spec is imported from, the check it
runs sees a mutant on disk and passes the spec as it is, and annotations count as equivalent."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from cosmic_ray.mutating import mutate_code, use_mutation
from cosmic_ray.plugins import get_operator

import swarmconf.spec.configmerge.bt
from swarmconf.conformance.configmerge import mutation

VECTORS = Path(__file__).resolve().parents[3] / "vectors" / "v1"


def _check(module: str, root: Path) -> int:
    argv = [sys.executable, "-m", mutation.TOOL, "check", module, "--vectors", str(root)]
    return subprocess.run(argv, capture_output=True, check=False).returncode


def test_every_spec_module_with_code_has_a_session() -> None:
    modules = {path.stem for path in mutation.SPEC_DIR.glob("*.py")} - {"__init__"}
    assert modules == set(mutation.MODULES)


def test_the_session_mutates_the_file_the_spec_is_imported_from(tmp_path: Path) -> None:
    imported = Path(swarmconf.spec.configmerge.bt.__file__).resolve()
    config = mutation.config_text("bt", tmp_path)
    assert f'module-path = "{imported}"' in config
    assert f"check bt --vectors {tmp_path}" in config


def test_the_check_sees_a_broken_module_on_disk(tmp_path: Path) -> None:
    root = tmp_path / "v1"
    root.mkdir()
    shutil.copy(VECTORS / "bt_encoding_test.json", root)
    path = mutation.SPEC_DIR / "bt.py"
    operator = get_operator("core/NumberReplacer")()
    source = path.read_text(encoding="utf-8")
    occurrence = next(
        index
        for index in range(200)
        if "MAX_DEPTH = 65" in (mutate_code(source, operator, index) or "")
    )
    assert _check("bt", root) == 0
    with use_mutation(path, operator, occurrence) as (_, mutated):
        assert mutated is not None and "MAX_DEPTH = 65" in mutated
        assert _check("bt", root) == 1
    assert path.read_text(encoding="utf-8") == source


def test_a_mutant_in_an_annotation_is_equivalent() -> None:
    source = "def f(x: int | None) -> bytes | str:\n    y: list[int] = [x or 1]\n    return y\n"
    spans = mutation.annotation_spans(source)
    inside = [(1, 13), (1, 30), (2, 11)]
    outside = [(2, 23), (3, 11)]
    assert all(any(a <= point < b for a, b in spans) for point in inside)
    assert not any(any(a <= point < b for a, b in spans) for point in outside)
