"""Fixtures for the docs tests: the site built once per session, and the docs' helper modules."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def load_docs_module(relative: str) -> ModuleType:
    """Import a helper module from docs/ (hooks and checks are plain files, not a package),
    with its folder on the import path as MkDocs has it when it loads a hook."""
    path = DOCS / relative
    name = "docs_" + path.stem
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    saved = sys.path.copy()
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path[:] = saved
    return module


@pytest.fixture(scope="session")
def generate() -> ModuleType:
    """docs/hooks/generate.py: the build-time table generators."""
    return load_docs_module("hooks/generate.py")


@pytest.fixture(scope="session")
def blocks(generate: ModuleType) -> ModuleType:
    """docs/hooks/blocks.py, the generated blocks' markers, as the hooks import it."""
    return sys.modules[generate.fill.__module__]


@pytest.fixture(scope="session")
def links() -> ModuleType:
    """docs/checks/links.py: the site's link checker."""
    return load_docs_module("checks/links.py")


@pytest.fixture(scope="session")
def runnable() -> ModuleType:
    """docs/checks/runnable.py: runs the code blocks of tested pages."""
    return load_docs_module("checks/runnable.py")


@pytest.fixture(scope="session")
def browser() -> ModuleType:
    """docs/checks/browser.py: the headless-Chromium page check (run by `make docs-browser`)."""
    return load_docs_module("checks/browser.py")


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built with --strict exactly as `make docs` does, into a scratch directory."""
    site = tmp_path_factory.mktemp("site")
    config = ["--config-file", str(ROOT / "mkdocs.yml"), "--site-dir", str(site)]
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", *config],
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return site
