import json

import pytest

from swarmconf.fuzz.kvgossip.__main__ import main


def test_cli_reports_a_clean_campaign(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--campaign", "4", "--cases", "3"]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["cases"] == 3 and summary["violating"] == 0


def test_cli_prints_violating_cases_of_a_mutant(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["--campaign", "1", "--start", "4", "--cases", "1", "--mutant", "key-blind-tree-hash"])
        == 1
    )
    lines = capsys.readouterr().out.strip().splitlines()
    assert json.loads(lines[0])["index"] == 4
