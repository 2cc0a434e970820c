"""K/V Gossip counterexamples go through `swarmconf fuzz` as config-merge ones do: a campaign
under a mutant writes them, `replay` runs them again and `shrink` makes them smaller."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from swarmconf.cli import main
from swarmconf.cliutil import Exit
from swarmconf.fuzz.kvgossip.case import Cut, KvCase, run, write_case
from swarmconf.fuzz.kvgossip.properties import MARKERS, UNNAMED, properties_of, property_of

FAILING = ("1:7", "unbound-chain")
"""Case 7 of campaign 1 fails under this mutant (see test_sim) and passes without it."""


def test_a_mutant_campaign_writes_counterexamples_that_replay_and_shrink(tmp_path: Path) -> None:
    out = tmp_path / "out"
    command = [sys.executable, "-m", "swarmconf", "fuzz", "--system", "kvgossip"]
    options = ["--mutant", FAILING[1], "--interleavings", "10", "--master", "local[1]"]
    result = subprocess.run(
        [*command, *options, "-o", str(out)], capture_output=True, text=True, timeout=900
    )
    assert result.returncode == Exit.FAILED, result.stderr
    assert "FUZZ_FAILED" in result.stderr and "failed: K" in result.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert summary["violations"]["K1"] > 0 and summary["failing_cases"] > 0
    written = [Path(path) for path in summary["counterexample_files"]]
    first = json.loads(written[0].read_text())
    assert first["system"] == "kvgossip" and first["mutant"] == FAILING[1]
    assert first["replay"] == f"swarmconf fuzz replay {written[0]}"
    assert main(["fuzz", "replay", str(written[0])]) == Exit.FAILED

    plain = tmp_path / "without-mutant.json"
    plain.write_text(json.dumps({**first, "mutant": None}))
    assert main(["fuzz", "replay", str(plain)]) == Exit.OK

    small = tmp_path / "small.json"
    assert main(["fuzz", "shrink", str(written[0]), "-o", str(small)]) == Exit.OK
    shrunk = json.loads(small.read_text())
    assert shrunk["shrunk"] and shrunk["ops"] < first["ops"]
    assert first["properties"][0] in shrunk["properties"]
    assert main(["fuzz", "replay", str(small)]) == Exit.FAILED

    report = (out / "report.html").read_text()
    verdict = report.index("Failed: swarmconf K/V Gossip campaign")
    assert verdict < report.index("K1") < report.index(written[0].stem)
    assert "python -c" not in report + json.dumps(summary)


def test_a_case_id_replays_in_the_campaign_its_system_names(
    capsys: pytest.CaptureFixture[str],
) -> None:
    case, mutant = FAILING
    assert main(["fuzz", "replay", "--system", "kvgossip", case, "--mutant", mutant]) == 1
    out = capsys.readouterr().out
    assert out.startswith(f"kv-case-1-7-{mutant}:") and "fails: K1" in out
    assert main(["fuzz", "replay", "--system", "kvgossip", case]) == Exit.OK


@pytest.mark.parametrize(
    ("arguments", "reason"),
    [
        (["--system", "kvgossip", "1:2:3"], "BAD_CASE"),
        (["--system", "kvgossip", "1:7", "--mutant", "ties"], "BAD_MUTANT"),
        (["--system", "kvgossip-parser", "1:7"], "BAD_CASE"),
        (["--system", "nonesuch", "1:7"], "USAGE"),
    ],
)
def test_a_case_the_campaign_cannot_replay_is_a_clear_error(
    arguments: list[str], reason: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["fuzz", "replay", *arguments]) == Exit.USAGE
    assert f"error: {reason}:" in capsys.readouterr().err


def test_a_cut_that_does_not_fit_its_scenario_is_a_bad_case(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "case.json"
    case = KvCase(1, 7, None, Cut(ops=(0, 99)))
    write_case(case, run(KvCase(1, 7)), path)
    assert main(["fuzz", "replay", str(path)]) == Exit.USAGE
    assert "BAD_CASE" in capsys.readouterr().err


def test_a_shrunk_case_replays_exactly_from_its_file(tmp_path: Path) -> None:
    case = KvCase(1, 7, FAILING[1], Cut(ops=(7, 9), partition=False, churn=False, faults=False))
    path = tmp_path / "case.json"
    write_case(case, run(case), path)
    again = json.loads(path.read_text())
    assert again["cut"]["ops"] == [7, 9] and again["shrunk"] is True
    assert again["violations"] == run(case)["violations"] != []


def test_every_violation_names_its_property() -> None:
    texts = {
        "K1": "t=5: n1 stored a record no honest node created: /k/a",
        "K6": "t=9: honest nodes still disagree after healing",
        "K7": "t=9: n2 differs from the oracle on ['/k/b']",
        "K8": "t=9: 2 sessions never ended",
        "K5": "t=3: session n1->n2 exceeded 5000 frames",
    }
    assert {name: property_of(text) for name, text in texts.items()} == {n: n for n in texts}
    assert len({name for name, _ in MARKERS}) == len(MARKERS)
    assert property_of("t=1: something new") == UNNAMED
    assert properties_of(run(KvCase(1, 7, "no-tie-break"))["violations"]) == ["K6", "K7"]
