"""Every command group speaks with one voice: one error line, one exit-status table, examples."""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from swarmconf.cli import build_parser, main
from swarmconf.cliutil import Exit

ERROR_LINE = re.compile(r"swarmconf: error: [A-Z_]+: .+")


def swarmconf(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m swarmconf ARGS`, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "swarmconf", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )


# (group, arguments with {dir} for a scratch directory, exit status, reason code)
BAD_INPUTS = [
    ("config-merge", ["show", "{dir}/junk"], Exit.FAILED, "BT_UNKNOWN_TYPE"),
    ("config-merge", ["show", "{dir}/missing"], Exit.USAGE, "INPUT_UNREADABLE"),
    ("config-merge", ["verify", "--key", "xyz", "{dir}/junk"], Exit.USAGE, "KEY_NOT_HEX"),
    ("config-merge", ["merge"], Exit.USAGE, "USAGE"),
    ("kv", ["kv", "pubkey", "@{dir}/junk"], Exit.USAGE, "BAD_ARGUMENT"),
    ("kv", ["kv", "status", "--data", "{dir}"], Exit.UNAVAILABLE, "NODE_NOT_RUNNING"),
    ("kv", ["kv"], Exit.USAGE, "USAGE"),
    ("conformance", ["conformance", "run", "--client", "builtin:spec", "--vectors", "{dir}"],
     Exit.USAGE, "BAD_VECTORS"),
    ("conformance", ["conformance", "run", "--client", "builtin:nope", "--vectors",
                     "vectors/v1"], Exit.USAGE, "BAD_CLIENT"),
    ("vectors", ["vectors", "generate", "-o", "{dir}/junk/v1"], Exit.USAGE, "OUTPUT_UNWRITABLE"),
    ("fuzz", ["fuzz", "replay", "1:2"], Exit.USAGE, "BAD_CASE"),
    ("fuzz", ["fuzz", "--mutant", "nope"], Exit.USAGE, "BAD_MUTANT"),
    ("fuzz", ["fuzz", "--system", "kvgossip-parser", "--mutant", "ties"], Exit.USAGE,
     "BAD_MUTANT"),
    ("fuzz", ["fuzz", "--system", "kvgossip-parser", "--client", "true"], Exit.USAGE,
     "BAD_CLIENT"),
    ("none", [], Exit.USAGE, "USAGE"),
    ("none", ["no-such-command"], Exit.USAGE, "USAGE"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("group", "argv", "status", "reason"), BAD_INPUTS, ids=[" ".join(b[1]) for b in BAD_INPUTS]
)
def test_every_group_refuses_in_one_voice(
    group: str, argv: list[str], status: Exit, reason: str, tmp_path: Path
) -> None:
    (tmp_path / "junk").write_bytes(b"junk")
    (tmp_path / "junk").chmod(0o600)  # a key file must be private before its content is read
    result = swarmconf(*(arg.format(dir=tmp_path) for arg in argv))
    assert result.returncode == status, result.stderr
    assert "Traceback" not in result.stderr
    last = result.stderr.splitlines()[-1]
    assert ERROR_LINE.fullmatch(last) and last.startswith(f"swarmconf: error: {reason}: ")
    # Only argparse's own errors add anything: the usage line before the error line.
    extra = result.stderr.splitlines()[:-1]
    assert extra == [] or (reason == "USAGE" and extra[0].startswith("usage: swarmconf"))


def test_version() -> None:
    result = swarmconf("--version")
    assert result.returncode == 0
    assert result.stdout == f"swarmconf {importlib.metadata.version('swarmconf')}\n"


def test_help_lists_the_exit_statuses_and_ends_with_examples() -> None:
    result = swarmconf("--help")
    assert result.returncode == 0
    rows = [re.search(rf"^  {s.value} +(.+)$", result.stdout, re.MULTILINE) for s in Exit]
    meanings = [row.group(1) for row in rows if row is not None]
    assert len(set(meanings)) == len(Exit), meanings
    assert "Ctrl-C" in meanings[-1] and "command line" in meanings[Exit.USAGE]
    assert "\nexamples:\n" in result.stdout


def parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    """The parser and every sub-command parser below it."""
    found = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                found += parsers(child)
    return found


@pytest.mark.parametrize("parser", parsers(build_parser()), ids=lambda p: p.prog)
def test_every_help_ends_with_examples(parser: argparse.ArgumentParser) -> None:
    text = parser.format_help().rstrip()
    head, _, examples = text.rpartition("\nexamples:\n")
    assert head, f"{parser.prog} --help has no examples"
    lines = examples.splitlines()
    assert lines and all(line.startswith("  ") and "swarmconf" in line for line in lines)
    command = parser.prog.removeprefix("swarmconf").strip()
    assert any(command in line for line in lines), f"no example runs {parser.prog}"


def test_a_missing_extra_is_one_line_naming_it(tmp_path: Path) -> None:
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "pyspark.py").write_text("raise ImportError('No module named pyspark')\n")
    env = {**os.environ, "PYTHONPATH": str(fake)}
    result = swarmconf("fuzz", "--interleavings", "10", "-o", str(tmp_path / "out"), env=env)
    assert result.returncode == Exit.UNAVAILABLE
    assert result.stderr == (
        "swarmconf: error: MISSING_EXTRA: pyspark is not installed: pip install 'swarmconf[fuzz]'\n"
    )


def test_no_command_prints_usage_and_fails(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == Exit.USAGE
    err = capsys.readouterr().err
    assert err.startswith("usage: swarmconf")
    assert ERROR_LINE.fullmatch(err.splitlines()[-1])


def _loaded_after(code: str) -> set[str]:
    """The modules a fresh interpreter has loaded after running `code`."""
    shown = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys\nprint(' '.join(sys.modules))"],
        capture_output=True,
        text=True,
        check=True,
    )
    return set(shown.stdout.split())


def test_building_the_command_line_loads_no_machinery() -> None:
    """Each group imports its machinery when its command runs: not Spark, not the node, not the
    vector tables, not the campaign job."""
    loaded = _loaded_after("from swarmconf.cli import build_parser\nbuild_parser()")
    assert {"swarmconf.cli", "swarmconf.reference.kvgossip.cli", "swarmconf.fuzz.cli"} <= loaded
    heavy = {
        name
        for name in loaded
        if name.split(".")[0] == "pyspark"
        or name.startswith(("swarmconf.conformance.configmerge", "swarmconf.conformance.kvgossip"))
        or name
        in {
            "swarmconf.reference.kvgossip.node",
            "swarmconf.reference.kvgossip.commands",
            "swarmconf.conformance.vectors",
            "swarmconf.conformance.runner",
            "swarmconf.fuzz.job",
            "swarmconf.spec.configmerge",
            "swarmconf.reference.configmerge.merge",
            "swarmconf.reference.configmerge.commands",
        }
    }
    assert not heavy, sorted(heavy)


def test_the_version_loads_no_command_group() -> None:
    loaded = _loaded_after("from swarmconf.cli import main\nmain(['--version'])")
    assert not any(name.endswith(".cli") for name in loaded if name != "swarmconf.cli"), loaded
