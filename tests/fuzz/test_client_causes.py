"""C2 by cause: client failures no quirk explains are grouped by operation and what the client
did where the spec answered otherwise, each group counted with its first input's replay line
and that input shrunk through the client to the smallest one failing with the same cause."""

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from swarmconf.conformance.client import ClientFailure
from swarmconf.fuzz.client import start
from swarmconf.fuzz.configmerge.hostile import (
    CauseProbe,
    HostileTask,
    input_of,
    run_hostile_task,
    shrink_failure,
)
from swarmconf.fuzz.configmerge.verdict import failure_cause
from swarmconf.fuzz.report import failure_groups

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

DYING = f"{sys.executable} -m swarmconf.fuzz.configmerge.aborting_adapter --abort-on X4"
"""Exits wherever X4 fires (a lag below 1), which no quirk it declares explains."""


def test_a_cause_is_the_operation_what_the_client_did_and_what_the_spec_answers() -> None:
    request = {"op": "parse", "msg": "6c65", "lag": 0}
    crashed = ClientFailure("crashed", "exit status 134")
    assert failure_cause(request, {"reason": "BAD_LAG"}, crashed) == (
        "parse: client crashed where the spec refuses with BAD_LAG"
    )
    assert failure_cause(request, {"result": {}}, {"errored": "x"}) == (
        "parse: client errored where the spec accepts it"
    )


def test_groups_are_summed_across_rows_largest_first_with_their_first_input() -> None:
    rows = [
        json.dumps({"a": {"count": 1, "example": {"replay": "r1"}}}),
        json.dumps({"b": {"count": 2, "example": {"replay": "r2"}}}),
        json.dumps({"a": {"count": 2, "example": {"replay": "r3"}}}),
    ]
    groups = failure_groups(rows)
    assert [(g["cause"], g["count"], g["example"]["replay"]) for g in groups] == [
        ("a", 3, "r1"),
        ("b", 2, "r2"),
    ]


def test_a_client_dying_where_no_quirk_says_is_reported_by_cause(
    spark: "SparkSession", tmp_path: Path
) -> None:
    from swarmconf.fuzz.config import Config
    from swarmconf.fuzz.hostile import hostile_schema
    from swarmconf.fuzz.report import write_hostile_outputs

    row = run_hostile_task(HostileTask(1, 0, 200, DYING, lenient=True))
    causes = json.loads(row.client_failure_causes)
    assert causes and sum(c["count"] for c in causes.values()) == json.loads(row.violations)["C2"]
    assert all(cause.startswith("parse: client crashed where the spec") for cause in causes)
    config = Config(interleavings=200, seed=1, out=tmp_path, system="parser", client=DYING)
    frame = spark.createDataFrame([row], hostile_schema())
    summary = write_hostile_outputs(frame, config, 1.0, "local")
    largest = summary["client_failures_by_cause"][0]
    assert largest["count"] == max(c["count"] for c in causes.values())
    assert (
        largest["example"]["replay"].startswith("printf") and DYING in largest["example"]["replay"]
    )
    page = (tmp_path / "report.html").read_text()
    assert f"C2, {largest['count']} inputs" in page
    shrunk = largest["shrunk"]
    assert shrunk["bytes"] <= len(largest["example"]["msg"]) // 2
    assert f"shrunk to {shrunk['bytes']} bytes" in page
    assert json.dumps(shrunk["msg"]) in shrunk["replay"] and DYING in shrunk["replay"]


def test_a_shrunk_input_is_smaller_and_fails_with_the_same_cause() -> None:
    row = run_hostile_task(HostileTask(1, 0, 400, DYING, lenient=True))
    cause, found = max(
        json.loads(row.client_failure_causes).items(),
        key=lambda item: len(item[1]["example"]["msg"]),
    )
    example = {**found["example"], "verify_key": "00" * 32}
    shrunk = shrink_failure(example, cause, DYING, 10.0, True)
    assert len(example["msg"]) // 2 > shrunk["bytes"] == len(shrunk["msg"]) // 2
    assert "verify_key" not in shrunk  # the key is dropped where the cause stays
    client = start(DYING)
    try:
        assert CauseProbe(client, True).cause(input_of(shrunk)) == cause
    finally:
        client.close()


def test_an_input_that_no_longer_fails_that_way_is_kept_as_it_was() -> None:
    example = {"op": "parse", "msg": "6c6965", "lag": 0, "mutation": "byte"}
    shrunk = shrink_failure(example, "parse: client garbage where the spec", DYING, 10.0, True)
    assert (shrunk["msg"], shrunk["lag"], shrunk["tried"]) == ("6c6965", 0, 1)
