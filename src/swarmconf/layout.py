"""Where the package's parts lie in the source tree: each role folder at the repository's top is
installed as `swarmconf.<folder>` (setup.py maps them with setuptools' `package_dir`), and
`src/swarmconf` holds the command line. No folder is linked into another. The folder `vectors/`
is not among them: it is the distribution swarmconf-vectors, built on its own."""

from __future__ import annotations

from pathlib import Path

ROLES: tuple[str, ...] = ("spec", "reference", "conformance", "fuzz")
"""The top-level folders installed as `swarmconf.<folder>`, in import order (lowest first)."""


def package_folders(repository: Path) -> list[Path]:
    """The folders of the source tree `repository` that the installed package is made of."""
    return [repository / "src" / "swarmconf", *(repository / role for role in ROLES)]
