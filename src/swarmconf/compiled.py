"""The modules compiled with mypyc when the package is built (setup.py), and the fallback to
their sources.

They are the config-merge reference's hot paths: parsing, validation, replay and encoding (the
fuzz campaign's core, compiled alike, ran no faster: it is mostly calls into the spec). Their typed
sources are what runs wherever they are not compiled, and `SWARMCONF_PURE_PYTHON=1` in the
environment runs those sources even where they are (checked when `swarmconf` is imported).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Sequence
from importlib.abc import MetaPathFinder
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType

COMPILED_MODULES: tuple[str, ...] = (
    "swarmconf.reference.configmerge.bt",
    "swarmconf.reference.configmerge.data",
    "swarmconf.reference.configmerge.merge",
    "swarmconf.reference.configmerge.message",
    "swarmconf.reference.configmerge.splice",
)
PURE_PYTHON_VARIABLE = "SWARMCONF_PURE_PYTHON"
GROUP = "swarmconf__mypyc"
"""The library holding the compiled code of every listed module (setup.py names it)."""


def source_path(root: Path, module: str) -> Path:
    """Where `module`'s source lies under `root`, the folder holding the `swarmconf` package."""
    return root.joinpath(*module.split(".")).with_suffix(".py")


def is_compiled(file: str | None) -> bool:
    """Whether a module whose `__file__` is `file` was loaded from a compiled extension rather
    than its source."""
    return not str(file).endswith(".py")


def stale(root: Path) -> list[str]:
    """The compiled modules under `root` whose source changed after they were last built.

    Their code is in one library beside the package (`swarmconf__mypyc`), rewritten by each
    build; the module files themselves only load it, and are left alone when they do not change.
    """
    built = max((library.stat().st_mtime for library in root.glob(GROUP + ".*.so")), default=0.0)
    found = []
    for module in COMPILED_MODULES:
        source = source_path(root, module)
        compiled = any(source.parent.glob(source.stem + ".*.so"))
        if compiled and built < source.stat().st_mtime:
            found.append(module)
    return found


class _SourcesFirst(MetaPathFinder):
    """Loads the compiled modules from their sources."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname not in COMPILED_MODULES or not path:
            return None
        for folder in path:
            source = Path(folder) / (fullname.rpartition(".")[2] + ".py")
            if source.is_file():
                return importlib.util.spec_from_file_location(fullname, source)
        return None


def honour_pure_python_switch() -> None:
    """Run the sources of the compiled modules if `SWARMCONF_PURE_PYTHON=1` is set."""
    switched = any(isinstance(finder, _SourcesFirst) for finder in sys.meta_path)
    if os.environ.get(PURE_PYTHON_VARIABLE) == "1" and not switched:
        sys.meta_path.insert(0, _SourcesFirst())
