"""Every command and code block on the pages marked `tested: true` runs and prints what it shows."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = ROOT / "docs" / "pages"
TESTED = sorted(
    path.relative_to(PAGES).as_posix()
    for path in PAGES.rglob("*.md")
    if path.read_text().startswith("---\ntested: true\n")
)


def scratch_checkout(destination: Path) -> Path:
    """A copy of the repository's files (tracked and new, not ignored), as a reader would have."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file() and not source.is_symlink():
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
        elif source.is_symlink():
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(source.readlink())
    return destination


def test_the_quickstart_is_tested() -> None:
    assert "quickstart.md" in TESTED


@pytest.mark.parametrize("page", TESTED)
def test_page_blocks_run(page: str, tmp_path: Path, runnable: ModuleType) -> None:
    markdown = (PAGES / page).read_text()
    assert runnable.is_tested(markdown)
    checkout = scratch_checkout(tmp_path / "checkout")
    try:
        ran = runnable.run_page(markdown, checkout)
    finally:
        shutil.rmtree(checkout, ignore_errors=True)  # a venv with the fuzz extra is ~700 MB
    assert ran >= 1


def test_wrong_output_fails(tmp_path: Path, runnable: ModuleType) -> None:
    page = "---\ntested: true\n---\n```sh\necho hello\n```\n\n```text\ngoodbye\n```\n"
    with pytest.raises(AssertionError, match="instead of"):
        runnable.run_page(page, tmp_path)


def test_failing_command_fails(tmp_path: Path, runnable: ModuleType) -> None:
    page = "```python\nraise SystemExit(3)\n```\n"
    with pytest.raises(AssertionError, match="exited with 3"):
        runnable.run_page(page, tmp_path)


def test_unrunnable_block_is_refused(runnable: ModuleType) -> None:
    with pytest.raises(ValueError, match="'json' cannot be run"):
        runnable.blocks('```json\n{"a": 1}\n```\n')


def test_output_blocks_pair_with_their_command(runnable: ModuleType) -> None:
    page = "```sh\necho a\n```\n\n```text\na\n```\n\n```python\nprint(1)\n```\n"
    found = runnable.blocks(page)
    assert [(b.language, b.expected) for b in found] == [("sh", "a\n"), ("python", None)]


def test_background_processes_are_stopped_after_the_page(
    tmp_path: Path, runnable: ModuleType
) -> None:
    page = "```sh\nsleep 300 > /dev/null 2>&1 &\necho $! > sleeper.pid\n```\n"
    runnable.run_page(page, tmp_path)
    pid = int((tmp_path / "sleeper.pid").read_text())
    stat = Path(f"/proc/{pid}/stat")
    # Gone, or a zombie waiting for init to reap it.
    assert not stat.exists() or stat.read_text().split(") ")[1].startswith("Z")
