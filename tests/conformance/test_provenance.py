"""Where a vector file came from: the newest commit of the generator's sources, marked when
they have uncommitted changes, and `unknown` outside a checkout of them."""

from __future__ import annotations

import subprocess
from pathlib import Path

from swarmconf.conformance.generate import GENERATOR_SOURCES, UNKNOWN, source_commit


def git(checkout: Path, *arguments: str) -> str:
    return subprocess.run(
        ["git", "-C", str(checkout), *arguments], capture_output=True, text=True, check=True
    ).stdout.strip()


def checkout_with_sources(root: Path) -> Path:
    git(root, "init", "-q")
    for folder in GENERATOR_SOURCES:
        (root / folder).mkdir()
        (root / folder / "rule.py").write_text("RULE = 1\n")
    git(root, "add", ".")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "sources")
    return root


def commit_all(root: Path, message: str) -> None:
    git(root, "add", ".")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", message)


def test_the_commit_is_the_newest_that_changed_the_sources(tmp_path: Path) -> None:
    root = checkout_with_sources(tmp_path)
    sources = git(root, "rev-parse", "HEAD")
    assert source_commit(root) == sources
    (root / "vectors.json").write_text("{}\n")
    commit_all(root, "vectors")
    assert git(root, "rev-parse", "HEAD") != sources
    assert source_commit(root) == sources


def test_uncommitted_changes_to_the_sources_are_marked(tmp_path: Path) -> None:
    root = checkout_with_sources(tmp_path)
    (root / GENERATOR_SOURCES[0] / "rule.py").write_text("RULE = 2\n")
    assert source_commit(root) == git(root, "rev-parse", "HEAD") + "-modified"


def test_their_markdown_is_not_a_source(tmp_path: Path) -> None:
    root = checkout_with_sources(tmp_path)
    sources = git(root, "rev-parse", "HEAD")
    (root / GENERATOR_SOURCES[1] / "PROTOCOL.md").write_text("written from the vectors\n")
    assert source_commit(root) == sources
    commit_all(root, "protocol")
    assert source_commit(root) == sources


def test_outside_a_checkout_the_commit_is_unknown(tmp_path: Path) -> None:
    assert source_commit(tmp_path) == UNKNOWN
    for folder in GENERATOR_SOURCES:
        (tmp_path / folder).mkdir()
    assert source_commit(tmp_path) == UNKNOWN
