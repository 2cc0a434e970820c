"""Campaigns register themselves: the shared fuzz modules find each design's records through the
entry-point group and never name a design, so a new kind of campaign is a new record alone."""

import ast
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

import swarmconf.fuzz
from swarmconf.cli import main
from swarmconf.cliutil import Exit
from swarmconf.fuzz import campaigns as registry
from swarmconf.fuzz.campaigns import (
    Campaign,
    CaseOptions,
    Cases,
    Closing,
    Replayed,
    Shrunk,
    UnknownCampaign,
    campaign_for,
    campaigns,
    default_campaign,
    systems,
)
from swarmconf.fuzz.config import Config
from swarmconf.fuzz.job import extract_count, rows_locally
from swarmconf.fuzz.rows import schema_of

FUZZ = Path(swarmconf.fuzz.__file__).resolve().parent
DESIGNS = sorted(path.parent.name for path in FUZZ.glob("*/__init__.py"))


def constants(tree: ast.AST) -> Iterator[str]:
    """Every string constant that is not a docstring."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
    }
    for node in ast.walk(tree):
        is_text = isinstance(node, ast.Constant) and isinstance(node.value, str)
        if is_text and id(node) not in docstrings:
            yield node.value


def named(tree: ast.AST) -> list[str]:
    """What in the code (not its docstrings) names a campaign by its system. (That no shared
    module names a design is checked for every role in tests/test_layers.py.)"""
    words = set(systems())
    return [text for text in constants(tree) if text in words]


def test_the_designs_are_the_subpackages() -> None:
    assert DESIGNS == ["configmerge", "kvgossip"]


@pytest.mark.parametrize("path", sorted(FUZZ.glob("*.py")), ids=lambda path: path.name)
def test_no_shared_module_names_a_system(path: Path) -> None:
    found = named(ast.parse(path.read_text()))
    assert not found, f"{path.name} names {found}"


def test_the_check_sees_a_system_named_in_code() -> None:
    source = (
        '"""kvgossip"""\nfrom .config import C\nfrom .kvgossip import x\nif s == "parser":\n    y\n'
    )
    assert named(ast.parse(source)) == ["parser"]


def test_every_design_registers_its_campaigns() -> None:
    assert systems() == ["config", "kvgossip", "kvgossip-parser", "parser"]
    assert systems(aliases=True) == [*systems(), "swarm"]
    assert default_campaign().system == "config"
    for system in systems():
        without = campaign_for(system, client=False)
        assert without.takes(False) and without.mutants()
    config = campaign_for("config")
    assert set(config.behaviours) >= {"spec", "libsession", "deployed", "client"}
    # One campaign, with or without a client, and the campaign of case files of `swarm`
    assert campaign_for("config", client=True) is config is campaign_for("swarm")
    assert campaign_for("parser", client=True) is campaign_for("parser", client=False)
    with pytest.raises(UnknownCampaign, match="checks no client"):
        campaign_for("kvgossip", client=True)
    with pytest.raises(UnknownCampaign, match="known: config, kvgossip"):
        campaign_for("nonesuch")
    assert default_campaign().cases is not None and campaign_for("kvgossip").cases is not None


class ToyRow(NamedTuple):
    case: int
    violations: str


def toy_rows(tasks: Iterable[int]) -> Iterator[ToyRow]:
    for case in tasks:
        yield ToyRow(case, "T1" if case % 3 == 2 else "")


def toy_replay(case: int, options: CaseOptions) -> Replayed:
    violations = [f"T1 case {case} is 2 modulo 3"] if case % 3 == 2 else []
    return Replayed(
        f"toy-{case}", [f"toy-{case}: one number"], violations, ["T1"][: len(violations)]
    )


def toy_shrink(case: int, options: CaseOptions) -> Shrunk:
    assert options.output is not None
    options.output.write_text(json.dumps({"system": "toy", "case": 2}))
    return Shrunk([f"toy-{case} -> toy-2"], f"swarmconf fuzz replay {options.output}")


TOY = Campaign(
    system="toy",
    title="a toy campaign",
    properties={"T1": "no case is 2 modulo 3"},
    plan=lambda config: list(range(config.interleavings)),
    run=toy_rows,
    schema=lambda: schema_of(ToyRow),
    write=lambda cases, config, seconds, master: {},
    closing=lambda summary: Closing([], None),
    mutants=lambda: ["off-by-one"],
    cases=Cases(
        load=lambda obj, options: int(obj["case"]),
        parse=lambda text, options: int(text),
        replay=toy_replay,
        shrink=toy_shrink,
    ),
)


@pytest.fixture
def with_toy(monkeypatch: pytest.MonkeyPatch) -> None:
    registered = campaigns()
    monkeypatch.setattr(registry, "campaigns", lambda: (*registered, TOY))


@pytest.mark.usefixtures("with_toy")
def test_a_new_kind_of_campaign_is_a_record_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = Config(interleavings=6, system="toy")
    assert extract_count(config) == 6
    assert [row.violations for row in rows_locally(config)] == ["", "", "T1", "", "", "T1"]
    assert main(["fuzz", "replay", "--system", "toy", "5"]) == Exit.FAILED
    assert "toy-5: one number\n  T1 case 5 is 2 modulo 3\n  fails: T1" in capsys.readouterr().out
    assert main(["fuzz", "replay", "--system", "toy", "4"]) == Exit.OK
    path, small = tmp_path / "toy.json", tmp_path / "small.json"
    path.write_text(json.dumps({"system": "toy", "case": 8}))
    assert main(["fuzz", "shrink", str(path), "-o", str(small)]) == Exit.OK
    assert main(["fuzz", "replay", str(small)]) == Exit.FAILED
    assert main(["fuzz", "--system", "toy", "--mutant", "nope"]) == Exit.USAGE
    assert "BAD_MUTANT: 'nope'; known: off-by-one" in capsys.readouterr().err


def test_a_case_file_without_a_system_belongs_to_the_default_campaign(tmp_path: Path) -> None:
    from swarmconf.fuzz.configmerge.case import generate_case, replay, write_case

    path = tmp_path / "old.json"
    write_case(generate_case(1, 0, 0), replay(generate_case(1, 0, 0)), path)
    obj = json.loads(path.read_text())
    assert obj.pop("system") == default_campaign().system
    path.write_text(json.dumps(obj))
    assert main(["fuzz", "replay", str(path)]) == Exit.OK


def test_an_unknown_system_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fuzz", "--system", "nonesuch"]) == Exit.USAGE
    assert "USAGE: no campaign is called 'nonesuch'; known: config" in capsys.readouterr().err
