import pytest

from swarmconf.cli import main


def test_no_command_prints_usage_and_fails(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "usage: swarmconf" in capsys.readouterr().err
