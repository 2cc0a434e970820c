"""The packed virtual environment a cluster's Python workers run the campaign in.

PySpark's way to ship Python dependencies: a virtual environment with swarmconf and its
compiled dependencies (pynacl) installed, packed with venv-pack, passed to `spark-submit
--archives env.tar.gz#environment` and run by the workers as `./environment/bin/python`. The
workers then need only Java and a Python of the same version at the same path as the one the
environment was built with; nothing of swarmconf. PySpark itself comes from the cluster.

    python -m swarmconf.fuzz.environment --output swarmconf-env.tar.gz
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import venv
from collections.abc import Sequence
from pathlib import Path

from swarmconf.layout import package_folders

ALIAS = "environment"
"""The directory the archive is unpacked to in each executor's working directory."""
WORKER_PYTHON = f"./{ALIAS}/bin/python"


def project_root() -> Path:
    """The source tree swarmconf is installed from (an editable install or a checkout)."""
    import swarmconf

    for parent in Path(swarmconf.__file__).resolve().parents:
        if (parent / "pyproject.toml").is_file():
            return parent
    raise FileNotFoundError("swarmconf's source tree (pyproject.toml) was not found")


def fingerprint(root: Path) -> str:
    """A digest of what the environment holds: the project files and every Python source."""
    digest = hashlib.sha256(sys.version.encode())
    sources = [root / "pyproject.toml", root / "setup.py"]
    for package in package_folders(root):
        for folder, dirs, files in os.walk(package):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            sources += [Path(folder) / name for name in sorted(files) if name.endswith(".py")]
    for source in sources:
        digest.update(str(source.relative_to(root)).encode() + b"\0" + source.read_bytes())
    return digest.hexdigest()[:16]


NOT_SHIPPED = (
    ".*",
    "build",
    "dist",
    "site",
    "__pycache__",
    "*.egg-info",
    "*-out",
    "tests",
    "docs",
    "*.so",
)
"""What the copy of the source tree leaves out (setuptools builds in the tree it is given, and
compiles the modules in swarmconf.compiled itself)."""


def build(prefix: Path, root: Path) -> None:
    """A fresh virtual environment at `prefix` with swarmconf (no extras) installed from a copy
    of `root`: not editable, so it holds its own copy of the code."""
    shutil.rmtree(prefix, ignore_errors=True)
    venv.create(prefix, with_pip=True)
    source = prefix.with_name(f"{prefix.name}-source")
    shutil.rmtree(source, ignore_errors=True)
    shutil.copytree(root, source, symlinks=True, ignore=shutil.ignore_patterns(*NOT_SHIPPED))
    install = [str(prefix / "bin" / "python"), "-m", "pip", "install", "--quiet", str(source)]
    done = subprocess.run(install, capture_output=True, text=True, check=False)
    shutil.rmtree(source)
    if done.returncode != 0:
        raise RuntimeError(f"installing swarmconf into {prefix} failed:\n{done.stderr}")


def pack(cache: Path) -> Path:
    """The packed environment for the current sources, built into `cache` unless a packing of
    the same sources is already there."""
    import venv_pack

    root = project_root()
    archive = cache / f"swarmconf-env-{fingerprint(root)}.tar.gz"
    if archive.is_file():
        return archive
    cache.mkdir(parents=True, exist_ok=True)
    # Each process builds apart, so two runs packing at once do not share a build tree
    prefix = cache / f"build-venv-{os.getpid()}"
    build(prefix, root)
    partial = archive.with_suffix(f".{os.getpid()}.partial")
    venv_pack.pack(prefix=str(prefix), output=str(partial), format="tar.gz", force=True)
    partial.replace(archive)
    shutil.rmtree(prefix)
    return archive


def default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "swarmconf" / "fuzz-env"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="pack the environment the workers run")
    parser.add_argument("--output", type=Path, default=Path("swarmconf-env.tar.gz"))
    parser.add_argument("--cache", type=Path, default=default_cache())
    args = parser.parse_args(argv)
    shutil.copyfile(pack(args.cache), args.output)
    print(
        f"{args.output}: spark-submit --archives {args.output}#{ALIAS} "
        f"--conf spark.pyspark.python={WORKER_PYTHON} ..."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
