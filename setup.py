"""The package's layout and its compiled modules.

Layout (`swarmconf/layout.py`): the repository's role folders are the subpackages of
`swarmconf` (`spec/` is `swarmconf.spec`, ...), mapped with setuptools' `package_dir`;
`src/swarmconf` holds the command line. The conformance vectors (`vectors/`) are not in this
distribution: they are swarmconf-vectors, whose project is that folder. No folder is
linked into another, so every file has one path. Tools that need the installed shape on disk
(mypy, mypyc) get it as a tree of links under `build/tree`, made by `python setup.py tree`.

Compiled modules: the config-merge reference's hot paths, built with mypyc. The same typed sources
run interpreted wherever they are not compiled: when mypyc or a C compiler is missing at build
time, when `SWARMCONF_PURE_PYTHON=1` is set at build time (a pure wheel), and when it is set at
run time. The spec is never compiled: it is the oracle, read and run as written, and the fuzz
campaign's mutants replace its functions by name.
Everything else about the package is declared in pyproject.toml.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import sysconfig
from pathlib import Path
from typing import ClassVar

from setuptools import Command, Extension, find_packages, setup

sys.path.insert(0, str(Path(__file__).resolve().parent / "src"))
from swarmconf.compiled import COMPILED_MODULES, GROUP, PURE_PYTHON_VARIABLE, source_path
from swarmconf.layout import ROLES

ROOT = Path(__file__).resolve().parent
TREE = Path("build") / "tree"


def package_dir() -> dict[str, str]:
    return {"": "src", **{f"swarmconf.{role}": role for role in ROLES}}


def packages() -> list[str]:
    """`swarmconf` and every package below each role folder, found, so none is forgotten."""
    found = ["swarmconf"]
    for role in ROLES:
        found += [f"swarmconf.{role}"] + [f"swarmconf.{role}.{p}" for p in find_packages(role)]
    return found


def link_tree(dest: Path) -> Path:
    """`dest/swarmconf` laid out as installed, each entry a link to its file or role folder."""
    package = dest / "swarmconf"
    shutil.rmtree(package, ignore_errors=True)
    package.mkdir(parents=True)
    for entry in (ROOT / "src" / "swarmconf").iterdir():
        if entry.suffix in (".py", ".typed"):
            (package / entry.name).symlink_to(entry)
    for role in ROLES:
        (package / role).symlink_to(ROOT / role, target_is_directory=True)
    return dest


class LinkTree(Command):
    """`python setup.py tree`: the link tree for mypy (`mypy_path`) under build/tree."""

    description = "lay out swarmconf as installed, as links under build/tree"
    user_options: ClassVar[list[tuple[str, str | None, str]]] = []

    def initialize_options(self) -> None:
        pass

    def finalize_options(self) -> None:
        pass

    def run(self) -> None:
        link_tree(ROOT / TREE)


def compiler_available() -> bool:
    """Whether a C compiler and the Python headers are there to build extensions with."""
    command = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    return bool(command) and shutil.which(command[0]) is not None and headers.is_file()


def extensions() -> list[Extension]:
    if os.environ.get(PURE_PYTHON_VARIABLE) == "1" or not compiler_available():
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        return []
    # mypyc names a module by the packages around its file: it compiles them from the link tree.
    tree = link_tree(TREE)
    sources = [str(source_path(tree, module)) for module in COMPILED_MODULES]
    try:
        return mypycify(sources, opt_level="3", group_name=GROUP.removesuffix("__mypyc"))
    except SystemExit:  # mypyc refused the sources (it has printed why): they run as Python
        print("swarmconf: building without compiled modules", file=sys.stderr)
        return []


setup(
    package_dir=package_dir(),
    packages=packages(),
    ext_modules=extensions(),
    cmdclass={"tree": LinkTree},
)
