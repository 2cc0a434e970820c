"""The runner finds the vectors of the installed swarmconf-vectors, asks for them in one line
when they are missing, and says so when their version is not swarmconf's."""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

import pytest

import swarmconf
from swarmconf.cli import main
from swarmconf.conformance import vectors
from swarmconf.conformance.vectors import (
    VectorsNotInstalled,
    bundled_vectors,
    vector_files,
    vectors_version_mismatch,
)

ROOT = Path(__file__).resolve().parents[2]


def test_the_editable_vectors_are_the_checkouts() -> None:
    assert Path(str(bundled_vectors())).resolve() == ROOT / "vectors" / "v1"
    assert metadata.version("swarmconf-vectors") == swarmconf.__version__
    assert vectors_version_mismatch() is None


def test_missing_vectors_say_how_to_get_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vectors, "VECTORS_PACKAGE", "swarmconf_no_such_vectors")
    with pytest.raises(VectorsNotInstalled) as missing:
        bundled_vectors()
    assert str(missing.value) == (
        "the conformance vectors are not installed: pip install"
        f" swarmconf-vectors=={swarmconf.__version__}, or give --vectors DIR"
    )


def test_the_runner_asks_for_missing_vectors_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(vectors, "VECTORS_PACKAGE", "swarmconf_no_such_vectors")
    status = main(["conformance", "run", "--client", "builtin:reference"])
    out, err = capsys.readouterr()
    assert status == 2 and not out
    assert err == (
        "swarmconf: error: BAD_VECTORS: the conformance vectors are not installed:"
        f" pip install swarmconf-vectors=={swarmconf.__version__}, or give --vectors DIR\n"
    )


def test_another_version_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any installed distribution of another version stands for swarmconf-vectors here."""
    monkeypatch.setattr(vectors, "VECTORS_DISTRIBUTION", "pytest")
    assert vectors_version_mismatch() == (
        f"the installed pytest is {metadata.version('pytest')}, not swarmconf's"
        f" {swarmconf.__version__}: pip install pytest=={swarmconf.__version__}"
    )
    monkeypatch.setattr(vectors, "VECTORS_DISTRIBUTION", "swarmconf-no-such-vectors")
    assert vectors_version_mismatch() is None


def test_the_runner_warns_of_another_version_and_runs(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(vectors, "vectors_version_mismatch", lambda: "versions differ")
    argv = ["conformance", "run", "--client", "builtin:reference", "--suite", "design_examples"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert err == "swarmconf: warning: versions differ\n"
    total = out.splitlines()[-1].split()
    assert total[0] == "total" and int(total[1]) > 0 and total[2] == "passed", out
    # A vector directory given on the command line is the user's choice: nothing to say.
    assert main([*argv, "--vectors", str(ROOT / "vectors" / "v1")]) == 0
    assert capsys.readouterr().err == ""
    assert vector_files(bundled_vectors())
