"""Compiled modules: the config-merge reference's hot paths, built with mypyc.

The same typed sources run interpreted wherever they are not compiled: when mypyc or a C
compiler is missing at build time, when `SWARMCONF_PURE_PYTHON=1` is set at build time (a pure
wheel), and when it is set at run time. The spec is never compiled: it is the oracle, read and
run as written, and the fuzz campaign's mutants replace its functions by name.
Everything else about the package is declared in pyproject.toml.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, setup

sys.path.insert(0, str(Path(__file__).resolve().parent / "src"))
from swarmconf.compiled import COMPILED_MODULES, GROUP, PURE_PYTHON_VARIABLE, source_path


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
    sources = [str(source_path(Path("src"), module)) for module in COMPILED_MODULES]
    try:
        return mypycify(sources, opt_level="3", group_name=GROUP.removesuffix("__mypyc"))
    except SystemExit:  # mypyc refused the sources (it has printed why): they run as Python
        print("swarmconf: building without compiled modules", file=sys.stderr)
        return []


setup(ext_modules=extensions())
