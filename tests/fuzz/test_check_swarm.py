"""`swarmconf check --swarm`: the clients of given behaviours searched to a bound, in process
and on Spark."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from swarmconf.cliutil import CommandError, Exit
from swarmconf.fuzz import cli as fuzz_cli
from swarmconf.fuzz.check_spark import SparkSearch
from swarmconf.fuzz.configmerge import cli as check_cli
from swarmconf.fuzz.configmerge.case import read_case, replay
from swarmconf.fuzz.configmerge.check import Bound
from swarmconf.fuzz.explore import explore

from .test_check import command

RACE = ("spec", "deployed")
JOINED = ("libsession", "deployed")


def test_the_race_is_found_at_the_smallest_bound_and_replays(tmp_path: Path) -> None:
    """Two clients, one edit each: both edit, and the lockstep rounds from there never end."""
    args = command("check", "--clients", "2", "--edits", "1", "--behaviours", "spec,deployed")
    args.out = str(tmp_path)
    with pytest.raises(CommandError) as failure:
        check_cli.run_check(args)
    assert failure.value.status == Exit.FAILED
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["violations"]["P5"] > 0
    assert summary["bound"]["swarm"] == list(RACE)
    assert summary["verdict"].startswith("P5 at depth 2 fails")
    [written] = summary["counterexamples"]
    assert written["property"] == "P5" and written["replays"] and written["events"] == 2
    case = read_case(Path(written["path"]))
    assert [event.kind for event in case.schedule.events] == ["edit", "edit"]
    assert case.scenario.behaviours == RACE and "P5" in replay(case).properties
    assert (
        "--behaviours spec,deployed" in json.loads(Path(written["path"]).read_text())["regenerate"]
    )
    with pytest.raises(CommandError):
        fuzz_cli.replay_command(command("fuzz", "replay", written["path"]))


def test_a_libsession_profile_client_beside_the_deployed_one_holds() -> None:
    """Every state of 2 x 2 with a blob: the deployed client's X12 deletions and X17's
    reverted writes are found, acceptable, and nothing fails."""
    bound = Bound(2, 2, swarm=JOINED, blob=True)
    result, _ = explore(bound.model())
    assert result.complete and not result.violations
    assert set(result.witnesses) == set(bound.sometimes) and "declared-quirk" in bound.sometimes


def test_the_command_passes_the_joined_swarm_and_names_its_properties(tmp_path: Path) -> None:
    args = command("check", "--swarm", "libsession,deployed", "-o", str(tmp_path))
    assert args.handler(args) == Exit.OK
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["verdict"].startswith("P1-P7 hold on all")
    assert "clients libsession, deployed" in (tmp_path / "report.html").read_text()


@pytest.mark.parametrize("extra", [("--swarm", "spec,nobody"), ("--swarm", ",")])
def test_the_command_refuses_what_a_swarm_cannot_take(tmp_path: Path, extra: tuple[str]) -> None:
    args = command("check", *extra, "-o", str(tmp_path))
    with pytest.raises(CommandError) as failure:
        check_cli.run_check(args)
    assert failure.value.status == Exit.USAGE


def test_the_spark_search_of_a_swarm_finds_the_same_states(spark: SparkSession) -> None:
    """On the executors (no level on the driver), each worker taking the clients' histories
    again to hold the objects their keys name."""
    bound = Bound(2, 1, swarm=JOINED)
    local, _ = explore(bound.model())
    on_spark = SparkSearch(spark, bound.model, 4, driver_limit=0).run()
    assert on_spark.complete and not on_spark.violations
    assert [level.states for level in on_spark.levels] == [level.states for level in local.levels]


def test_a_client_played_through_an_adapter_races_as_the_emulation_does(tmp_path: Path) -> None:
    """The emulation served over the adapter protocol stands in for the deployed client: the
    same race at the same depth, and its counterexample replays through the adapter."""
    adapter = f"{sys.executable} -m swarmconf.conformance.configmerge.deployed"
    args = command(
        "check", "--edits", "1", "--swarm", "spec,client", "--client", adapter, "-o", str(tmp_path)
    )
    with pytest.raises(CommandError):
        check_cli.run_check(args)
    summary = json.loads((tmp_path / "summary.json").read_text())
    [written] = summary["counterexamples"]
    assert written["property"] == "P5" and written["depth"] == 2 and written["replays"]
    case = read_case(Path(written["path"]))
    assert "P5" in replay(case, adapter).properties
    with pytest.raises(CommandError) as failure:
        check_cli.run_check(command("check", "--swarm", "spec,client", "-o", str(tmp_path)))
    assert failure.value.status == Exit.USAGE
