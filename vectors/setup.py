"""swarmconf-vectors carries swarmconf's version, declared once, in swarmconf/__init__.py: read
from there in the repository, or from PKG-INFO when built from its own source archive. This
folder is the package as well as the project, so this script is kept out of the wheel.
Everything else about the distribution is declared in pyproject.toml."""

from __future__ import annotations

import ast
from email.parser import Parser
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
SOURCE = HERE.parent / "src" / "swarmconf" / "__init__.py"


def declared_version(source: Path) -> str:
    """The string assigned to `__version__` in the module `source`."""
    for node in ast.parse(source.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "__version__" for target in node.targets
        ):
            version = ast.literal_eval(node.value)
            if isinstance(version, str):
                return version
    raise ValueError(f"no __version__ string in {source}")


def version() -> str:
    if SOURCE.is_file():
        return declared_version(SOURCE)
    metadata = Parser().parsestr((HERE / "PKG-INFO").read_text(encoding="utf-8"))
    return str(metadata["Version"])


class BuildPy(build_py):
    """The package's modules without this script."""

    def find_package_modules(self, package: str, package_dir: str) -> list[tuple[str, str, str]]:
        found: list[tuple[str, str, str]] = super().find_package_modules(package, package_dir)
        return [entry for entry in found if Path(entry[2]).resolve() != Path(__file__).resolve()]


setup(version=version(), cmdclass={"build_py": BuildPy})
