"""The wheel carries every part folder as a subpackage of `swarmconf` (the symlinks resolved)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import swarmconf

ROOT = Path(__file__).resolve().parent.parent


def test_wheel_contains_the_linked_parts(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
        cwd=tmp_path,
    )
    (wheel,) = tmp_path.glob("swarmconf-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for link in (ROOT / "src" / "swarmconf").iterdir():
        if link.is_symlink():
            folder = link.resolve()
            modules = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.py"))
            assert modules, link
            for module in modules:
                assert f"swarmconf/{link.name}/{module}" in names
    assert "swarmconf/spec/configmerge/merge.py" in names
    assert {"swarmconf/cli.py", "swarmconf/cliutil.py", "swarmconf/__main__.py"} <= names
    # The version is declared once, in swarmconf/__init__.py.
    assert wheel.name.startswith(f"swarmconf-{swarmconf.__version__}-")
