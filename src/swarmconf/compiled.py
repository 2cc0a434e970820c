"""The modules compiled with mypyc when the package is built (setup.py), and the fallback to
their sources.

They are the config-merge reference's hot paths: parsing, validation, replay and encoding (the
fuzz campaign's core, compiled alike, ran no faster: it is mostly calls into the spec). Their typed
sources are what runs wherever they are not compiled, and `SWARMCONF_PURE_PYTHON=1` in the
environment runs those sources even where they are. In the source tree, a module whose source
changed after it was built runs from its source too, and says so: a stale build never runs.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Sequence
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
"""The library holding the compiled code of every listed module (setup.py names it), a
top-level module beside the `swarmconf` package."""


def source_path(root: Path, module: str) -> Path:
    """Where `module`'s source lies under `root`, the folder holding the `swarmconf` package."""
    return root.joinpath(*module.split(".")).with_suffix(".py")


def is_compiled(file: str | None) -> bool:
    """Whether a module whose `__file__` is `file` was loaded from a compiled extension rather
    than its source."""
    return not str(file).endswith(".py")


def checkout_source(repository: Path, module: str) -> Path:
    """Where listed `module`'s source lies in the source tree, whose top holds the role folders
    (`reference/` is `swarmconf.reference`)."""
    return repository.joinpath(*module.split(".")[1:]).with_suffix(".py")


def is_stale(repository: Path, module: str) -> bool:
    """Whether listed `module` was compiled in place in the source tree `repository` before its
    source last changed. Judged by the library every build rewrites (`src/swarmconf__mypyc`; the
    module files that only load it are left alone when they do not change); a module with no
    compiled file is not stale."""
    source = checkout_source(repository, module)
    if not any(source.parent.glob(source.stem + ".*.so")):
        return False
    libraries = (repository / "src").glob(GROUP + ".*.so")
    built = max((library.stat().st_mtime for library in libraries), default=0.0)
    return built < source.stat().st_mtime


def stale(repository: Path) -> list[str]:
    """The compiled modules of the source tree `repository` whose source changed after they were
    last built."""
    return [module for module in COMPILED_MODULES if is_stale(repository, module)]


class _SourceWhenAsked:
    """Loads the compiled modules from their sources when `SWARMCONF_PURE_PYTHON=1` asks for it,
    or when, in the source tree, any of their sources changed after they were compiled (saying
    so once on stderr: a stale build is never used). All of them, since compiled modules call
    one another's compiled code directly. A meta path finder by its `find_spec` alone: the base
    class `importlib.abc.MetaPathFinder` would import `importlib.resources` in every process."""

    def __init__(self) -> None:
        self.judged: dict[Path, bool] = {}

    def _sources_wanted(self, repository: Path) -> bool:
        if os.environ.get(PURE_PYTHON_VARIABLE) == "1":
            return True
        if repository not in self.judged:
            changed = stale(repository) if (repository / "setup.py").is_file() else []
            if changed:
                print(
                    f"swarmconf: {', '.join(changed)} changed since compiled; running the sources"
                    " (`make` rebuilds them)",
                    file=sys.stderr,
                )
            self.judged[repository] = bool(changed)
        return self.judged[repository]

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname not in COMPILED_MODULES or not path:
            return None
        for folder in path:
            source = Path(folder) / (fullname.rpartition(".")[2] + ".py")
            if source.is_file():
                repository = source.parents[fullname.count(".") - 1]
                if self._sources_wanted(repository):
                    return importlib.util.spec_from_file_location(fullname, source)
                return None
        return None


def guard_compiled_modules() -> None:
    """Put the finder of `_SourceWhenAsked` in front of the import system, once."""
    if not any(isinstance(finder, _SourceWhenAsked) for finder in sys.meta_path):
        sys.meta_path.insert(0, _SourceWhenAsked())
