"""The modules compiled with mypyc: built here, current, and their sources a working fallback."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

from swarmconf.compiled import (
    COMPILED_MODULES,
    GROUP,
    PURE_PYTHON_VARIABLE,
    checkout_source,
    is_compiled,
    stale,
)

ROOT = Path(__file__).resolve().parent.parent


def test_every_listed_module_is_compiled_in_the_test_environment() -> None:
    """The suite tests the compiled modules (`make` builds them in place)."""
    loaded = {name: importlib.import_module(name) for name in COMPILED_MODULES}
    interpreted = [name for name, module in loaded.items() if not is_compiled(module.__file__)]
    assert not interpreted, f"interpreted: {interpreted} (build them: make .venv/.compiled)"


def test_no_compiled_module_is_older_than_its_source() -> None:
    assert stale(ROOT) == [], "a source changed since it was compiled: make .venv/.compiled"


def test_a_touched_source_is_reported_stale(tmp_path: Path) -> None:
    module = COMPILED_MODULES[0]
    source = checkout_source(tmp_path, module)
    source.parent.mkdir(parents=True)
    (tmp_path / "src").mkdir()
    suffix = ".cpython-311-x86_64-linux-gnu.so"
    loader, library = source.with_name(source.stem + suffix), tmp_path / "src" / (GROUP + suffix)
    for path in (source, loader, library):
        path.write_bytes(b"")
    os.utime(library, (1, 1))
    assert stale(tmp_path) == [module]
    os.utime(source, (0, 0))
    assert stale(tmp_path) == []
    # The module file is older still: only the library, which every build rewrites, counts.
    os.utime(loader, (0, 0))
    os.utime(source, (0.5, 0.5))
    assert stale(tmp_path) == []


def _pure(code: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, PURE_PYTHON_VARIABLE: "1"}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=environment, check=False
    )


def test_the_switch_runs_every_compiled_module_from_its_source() -> None:
    code = (
        "import importlib\n"
        "from swarmconf.compiled import COMPILED_MODULES\n"
        "for name in COMPILED_MODULES:\n"
        "    print(importlib.import_module(name).__file__)\n"
    )
    shown = _pure(code)
    assert shown.returncode == 0, shown.stderr
    files = shown.stdout.split()
    assert len(files) == len(COMPILED_MODULES)
    assert all(file.endswith(".py") for file in files), files


def test_the_sources_pass_every_config_merge_vector() -> None:
    """The pure-Python fallback gives the same answers as the compiled modules."""
    code = (
        "import sys\n"
        "from swarmconf.cli import main\n"
        "sys.exit(main(['conformance', 'run', '--client', 'builtin:reference',"
        " '--design', 'configmerge']))\n"
    )
    ran = _pure(code)
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr
    total = ran.stdout.splitlines()[-1].split()
    assert total[0] == "total" and int(total[1]) > 20_000 and total[2] == "passed", total
