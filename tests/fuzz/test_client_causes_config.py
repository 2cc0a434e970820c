"""C2 by cause in the interleaving campaign through a client: failures no declared quirk
explains are grouped by operation, what the client did and what the spec answers, counted in
operations and interleavings, each group with its first case shrunk to one still failing with
that cause, its replay command and the failing request's replay line."""

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from swarmconf.fuzz.configmerge import report
from swarmconf.fuzz.configmerge.case import case_from_json, generate_case
from swarmconf.fuzz.configmerge.differential import (
    ClientTask,
    client_schema,
    replays_through,
    run_client_task,
)

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

DYING = f"{sys.executable} -m swarmconf.fuzz.configmerge.aborting_adapter --abort-on X12"
"""Exits wherever X12 fires (a merge's deletions), which no quirk it declares explains."""
VIOLATIONS, FAILURES, CAUSES = map(
    client_schema().fieldNames().index,
    ("violations", "client_failures", "client_failure_causes"),
)


def test_a_task_counts_its_failures_by_cause_on_its_first_row() -> None:
    rows = run_client_task(ClientTask(1, 1, 0, 3, DYING, lenient=True))
    causes = json.loads(rows[0][CAUSES])
    assert [json.loads(row[CAUSES]) for row in rows[1:]] == [{}, {}]
    merges = causes["merge: client crashed where the spec accepts it"]
    assert merges["count"] >= 1 and merges["example"]["request"]["op"] == "merge"
    failing = sum("C2" in row[VIOLATIONS].split() for row in rows)
    assert 1 <= merges["interleavings"] <= failing
    unsent = rows[0][FAILURES] - sum(found["count"] for found in causes.values())
    assert unsent >= 0  # requests left unsent after ten failures in a row have no cause
    assert all("given up" not in cause for cause in causes)
    assert merges["example"]["case"] == "1:1:0" and DYING in merges["example"]["replay"]


def test_the_report_shows_each_cause_with_its_shrunk_case(
    spark: "SparkSession", tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from swarmconf.fuzz.config import Config

    monkeypatch.setattr(report, "SHRINK_SECONDS", 10.0)
    rows = run_client_task(ClientTask(1, 1, 0, 2, DYING, lenient=True))
    config = Config(
        interleavings=2, per_scenario=2, seed=1, out=tmp_path, client=DYING, lenient_reasons=True
    )
    frame = spark.createDataFrame(rows, client_schema())
    summary = report.write_outputs(frame, config, 1.0, "local[2]")
    groups = summary["client_failures_by_cause"]
    assert [group["count"] for group in groups] == sorted(
        (group["count"] for group in groups), reverse=True
    )
    largest = groups[0]
    assert largest["cause"] == "merge: client crashed where the spec accepts it"
    shrunk = largest["shrunk"]
    assert json.loads((tmp_path / "summary.json").read_text())["client_failures_by_cause"] == groups
    page = (tmp_path / "report.html").read_text()
    assert f"C2, {largest['count']} requests: {largest['cause']}; shrunk to" in page
    assert shrunk["file"] in shrunk["replay"] and DYING in shrunk["request_replay"]
    case = case_from_json(json.loads(Path(shrunk["file"]).read_text()))
    original = generate_case(1, 1, 0)
    assert len(case.schedule.events) <= len(original.schedule.events)
    replayed = replays_through(DYING, 10.0)((case.scenario, case.schedule))
    assert largest["cause"] in replayed.causes()
