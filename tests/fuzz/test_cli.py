import json
from pathlib import Path

import pytest

from swarmconf.cli import main
from swarmconf.fuzz.configmerge.campaign import first_failure
from swarmconf.fuzz.configmerge.case import generate_case, replay, write_case


def failing_case_file(tmp_path: Path) -> Path:
    _, row = first_failure(1, 2000, 200, "ties")
    assert row is not None
    case = generate_case(row.campaign_seed, row.scenario, row.schedule, "ties")
    path = tmp_path / "case.json"
    write_case(case, replay(case), path)
    return path


def test_replay_reports_a_failing_case(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = failing_case_file(tmp_path)
    assert main(["fuzz", "replay", str(path)]) == 1
    assert "fails:" in capsys.readouterr().out


def test_replay_of_a_passing_case_by_its_seeds(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fuzz", "replay", "1:0:0", "--mutant", "ties"]) == 0
    assert "case-1-0-0-ties" in capsys.readouterr().out


def test_shrink_writes_a_smaller_case_that_still_fails(tmp_path: Path) -> None:
    path = failing_case_file(tmp_path)
    output = tmp_path / "small.json"
    assert main(["fuzz", "shrink", str(path), "--output", str(output)]) == 0
    small = json.loads(output.read_text())
    original = json.loads(path.read_text())
    assert small["shrunk"] is True
    assert small["events"] <= original["events"]
    assert main(["fuzz", "replay", str(output)]) == 1


@pytest.mark.parametrize("case", ["1:2", "a:b:c", "1:2:3:4"])
def test_a_bad_case_id_is_a_clear_error(case: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fuzz", "replay", case]) == 2
    assert "BAD_CASE" in capsys.readouterr().err


def test_a_malformed_case_file_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"campaign_seed": 1')
    assert main(["fuzz", "shrink", str(path)]) == 2
    assert "BAD_CASE" in capsys.readouterr().err
