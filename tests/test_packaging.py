"""The wheel carries every part folder as a subpackage of `swarmconf`, its hot modules compiled
beside their sources; built without a compiler, it is pure Python. The conformance vectors are
the wheel of swarmconf-vectors, of the same version: swarmconf's own wheel stays small."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import swarmconf
from swarmconf.compiled import COMPILED_MODULES
from swarmconf.fuzz.environment import NOT_SHIPPED
from swarmconf.layout import ROLES

ROOT = Path(__file__).resolve().parent.parent
MB = 1_000_000
WHEEL_LIMIT = 2 * MB
"""The most swarmconf's wheel may weigh: the vectors are not in it (with them, 6.3 MB)."""
INSTALLED_LIMIT = 5 * MB
"""The most its install may take, the modules pip compiles included (with the vectors, 45.6 MB)."""


def checkout(tmp_path: Path) -> Path:
    """A copy of the source tree as a fresh clone has it: no build output, nothing compiled."""
    copy = tmp_path / "checkout"
    shutil.copytree(ROOT, copy, symlinks=True, ignore=shutil.ignore_patterns(*NOT_SHIPPED))
    return copy


def unpacked_size(wheel: Path) -> int:
    """What the wheel's files take once installed, in bytes (before Python compiles them)."""
    return sum(member.file_size for member in zipfile.ZipFile(wheel).infolist())


INSTALLED_SIZE = (
    "from importlib import metadata\n"
    "files = [file.locate() for file in metadata.files('swarmconf') or []]\n"
    "print(sum(path.stat().st_size for path in files if path.is_file()))\n"
)
"""Prints what swarmconf's install takes, in bytes: every file pip recorded, the modules it
compiled included."""


def without_vectors(names: set[str]) -> None:
    """swarmconf's wheel holds none of the conformance vectors."""
    assert not [name for name in names if name.endswith("_test.json")]
    assert not [name for name in names if "vectors/v1" in name or "swarmconf_vectors" in name]


def test_wheel_contains_every_role_folder(tmp_path: Path) -> None:
    source = checkout(tmp_path)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "-w",
            str(tmp_path),
            str(source),
        ],
        check=True,
        cwd=tmp_path,
    )
    (wheel,) = tmp_path.glob("swarmconf-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for role in ROLES:
        folder = ROOT / role
        files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*.py"))
        assert files, role
        for file in files:
            assert f"swarmconf/{role}/{file}" in names
    without_vectors(names)
    assert wheel.stat().st_size < WHEEL_LIMIT, wheel.stat().st_size
    assert unpacked_size(wheel) < INSTALLED_LIMIT, unpacked_size(wheel)
    assert "swarmconf/spec/configmerge/merge.py" in names
    assert {"swarmconf/cli.py", "swarmconf/cliutil.py", "swarmconf/__main__.py"} <= names
    # The version is declared once, in swarmconf/__init__.py.
    assert wheel.name.startswith(f"swarmconf-{swarmconf.__version__}-")
    # Built with mypyc: each listed module compiled, its source kept as the fallback.
    extensions = {name.split(".")[0] for name in names if name.endswith(".so")}
    expected = {module.replace(".", "/") for module in COMPILED_MODULES}
    assert extensions == expected | {"swarmconf__mypyc"}, extensions ^ expected
    assert {module + ".py" for module in expected} <= names
    assert not wheel.name.endswith("-py3-none-any.whl"), wheel.name


def _run(
    argv: list[str], cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False, env=env)


def vectors_wheel(source: Path, dest: Path) -> Path:
    """swarmconf-vectors' wheel as a release builds it: its source archive made in the
    repository (the version read from swarmconf), then the wheel from that archive alone (the
    version read from the archive's PKG-INFO)."""
    archives = dest / "sdist"
    made = _run(
        [
            sys.executable,
            "-c",
            f"from setuptools import build_meta; build_meta.build_sdist({str(archives)!r})",
        ],
        source / "vectors",
    )
    assert made.returncode == 0, made.stderr
    (archive,) = archives.glob("swarmconf_vectors-*.tar.gz")
    with tarfile.open(archive) as unpacking:
        unpacking.extractall(archives, filter="data")
    unpacked = archives / archive.name.removesuffix(".tar.gz")
    argv = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dest)]
    built = _run([*argv, str(unpacked)], dest)
    assert built.returncode == 0, built.stderr
    (wheel,) = dest.glob("swarmconf_vectors-*.whl")
    return wheel


def test_the_installed_wheel_stands_alone(tmp_path: Path) -> None:
    """Built where there is no C compiler, the wheel is pure Python; a fresh venv outside the
    checkout, with only that wheel (and its dependencies) installed, runs the README's merge
    commands, and its conformance runner asks for the vectors in one line; with
    swarmconf-vectors installed too, the runner passes every vector."""
    wheels = tmp_path / "wheels"
    source = checkout(tmp_path)
    no_compiler = {**os.environ, "CC": str(tmp_path / "no-such-compiler")}
    built = _run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), str(source)],
        tmp_path,
        no_compiler,
    )
    assert built.returncode == 0, built.stderr
    (wheel,) = wheels.glob("swarmconf-*.whl")
    assert wheel.name.endswith("-py3-none-any.whl"), wheel.name
    names = set(zipfile.ZipFile(wheel).namelist())
    assert not [name for name in names if name.endswith(".so")]
    assert {"swarmconf/conformance/PROTOCOL.md", "swarmconf/conformance/VECTORS.md"} <= names
    without_vectors(names)
    assert wheel.stat().st_size < WHEEL_LIMIT, wheel.stat().st_size

    vectors = vectors_wheel(source, wheels)
    assert vectors.name == f"swarmconf_vectors-{swarmconf.__version__}-py3-none-any.whl"
    shipped = set(zipfile.ZipFile(vectors).namelist())
    assert {
        f"swarmconf_vectors/v1/{p.relative_to(ROOT / 'vectors/v1').as_posix()}"
        for p in (ROOT / "vectors/v1").rglob("*")
        if p.is_file()
    } <= shipped
    assert not [name for name in shipped if name.endswith("setup.py")]

    venv, away = tmp_path / "venv", tmp_path / "elsewhere"
    away.mkdir()
    assert _run([sys.executable, "-m", "venv", str(venv)], away).returncode == 0
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q"]
    installed = _run([*pip, str(wheel)], away)
    assert installed.returncode == 0, installed.stderr
    footprint = _run([str(venv / "bin" / "python"), "-c", INSTALLED_SIZE], away)
    assert 0 < int(footprint.stdout) < INSTALLED_LIMIT, footprint.stdout + footprint.stderr
    swarmconf_command = str(venv / "bin" / "swarmconf")

    # Without swarmconf-vectors, one line says how to get them.
    asked = _run([swarmconf_command, "conformance", "run", "--client", "builtin:reference"], away)
    assert asked.returncode == 2 and not asked.stdout, asked.stdout + asked.stderr
    assert asked.stderr.count("\n") == 1 and asked.stderr.startswith("swarmconf: error: "), (
        asked.stderr
    )
    assert f"pip install swarmconf-vectors=={swarmconf.__version__}" in asked.stderr
    assert "--vectors DIR" in asked.stderr

    installed = _run([*pip, str(vectors)], away)
    assert installed.returncode == 0, installed.stderr
    conformance = _run(
        [swarmconf_command, "conformance", "run", "--client", "builtin:reference"], away
    )
    assert conformance.returncode == 0, conformance.stdout[-2000:] + conformance.stderr
    total = conformance.stdout.splitlines()[-1].split()
    assert total[0] == "total" and int(total[1]) > 20_000 and total[2] == "passed"
    assert "kvgossip_sessions" in conformance.stdout and "merges_exhaustive" in conformance.stdout
    assert not conformance.stderr, conformance.stderr

    make = (
        "from swarmconf.reference.configmerge import ConfigMessage, parse\n"
        "first = ConfigMessage.new(1)\n"
        "first.data[b'name'] = b'swarm'\n"
        "base = first.serialize()\n"
        "for name, key, value in (('a', b'colour', b'blue'), ('b', b'tags', {1, b'x'})):\n"
        "    message = parse(base).increment()\n"
        "    message.data[key] = value\n"
        "    open(name + '.msg', 'wb').write(message.serialize())\n"
    )
    assert _run([str(venv / "bin" / "python"), "-c", make], away).returncode == 0
    merged = _run([swarmconf_command, "merge", "a.msg", "b.msg", "-o", "merged.msg"], away)
    assert merged.returncode == 0, merged.stderr
    shown = _run([swarmconf_command, "show", "merged.msg", "--json"], away)
    assert shown.returncode == 0 and '"seqno": 3' in shown.stdout, shown.stdout + shown.stderr

    documents = (
        "from importlib import metadata, resources\n"
        "text = (resources.files('swarmconf.conformance') / 'PROTOCOL.md').read_text()\n"
        "assert 'kv_scripted' in text\n"
        "meta = metadata.metadata('swarmconf')\n"
        "assert meta['License-Expression'] == 'MIT' and meta['Summary']\n"
        "assert any(name.endswith('LICENSE') for name in meta.get_all('License-File') or [])\n"
    )
    checked = _run([str(venv / "bin" / "python"), "-c", documents], away)
    assert checked.returncode == 0, checked.stderr
    # Generating vectors needs a destination: nothing is written into site-packages.
    refused = _run([swarmconf_command, "vectors", "generate"], away)
    assert refused.returncode == 2 and "-o/--output" in refused.stderr
