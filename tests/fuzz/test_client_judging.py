"""Judging a client never crashes a campaign, the reference is the oracle and the spec the judge:
the emulation explains a bad lag with a bad message, a judging error is a reported case of its
own kind, and a broken reference is caught by the spec."""

import json
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import SparkSession

from swarmconf.conformance.configmerge.adapter import ApiAdapter
from swarmconf.conformance.configmerge.deployed import (
    QUIRKS,
    DeployedAdapter,
    Emulated,
    Unexplained,
)
from swarmconf.fuzz.config import Config
from swarmconf.fuzz.configmerge import verdict
from swarmconf.fuzz.configmerge.campaigns import THROUGH_CLIENT
from swarmconf.fuzz.configmerge.differential import ClientTask, client_schema, run_client_task
from swarmconf.fuzz.configmerge.hostile import HostileTask, run_hostile_task
from swarmconf.fuzz.configmerge.impl import mutated
from swarmconf.fuzz.configmerge.report import write_outputs
from swarmconf.fuzz.configmerge.verdict import DISAGREED, QUIRK, UNJUDGED, deployed_behaviour, judge
from swarmconf.fuzz.hostile import hostile_schema
from swarmconf.fuzz.report import write_hostile_outputs
from swarmconf.spec import configmerge as spec

from .adapters import EXAMPLE

EMULATION = f"{sys.executable} -m swarmconf.conformance.configmerge.deployed"
VIOLATIONS, DETAIL = map(client_schema().fieldNames().index, ("violations", "detail"))
HOSTILE_VIOLATIONS, HOSTILE_EXAMPLES, HOSTILE_QUIRKS, HOSTILE_QUIRK_COUNTS = 5, 6, 9, 10
SPEC = ApiAdapter(spec, "swarmconf.spec")


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        (b"di1ei1ee", "BT_KEY_NOT_STRING"),
        (b"d1:#i1e1:&d", "BT_TRUNCATED"),
        (b"d1:#i01e1:&dee", "BT_LEADING_ZERO"),
    ],
)
def test_the_emulation_explains_a_bad_lag_with_a_bad_message(message: bytes, reason: str) -> None:
    request = {"op": "parse", "msg": message.hex(), "lag": 0}
    expected = SPEC.handle(request)
    assert expected == {"reason": "BAD_LAG"}
    behaviour = deployed_behaviour(request, expected)
    assert behaviour is not None and behaviour.quirks == ("X4",)
    assert behaviour.deployed == {"result": "invalid", "reason": reason}
    answer = DeployedAdapter().handle(request)
    found = judge(request, expected, answer, frozenset(QUIRKS), SPEC.handle)
    assert (found.status, found.quirks) == (QUIRK, ("X4",))
    assert judge(request, expected, answer, frozenset({"X1"}), SPEC.handle).status == DISAGREED


def test_an_oracle_that_errs_or_an_emulation_that_cannot_explain_is_unjudged(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    request = {"op": "parse", "msg": b"de".hex(), "lag": 5}
    errored = {"errored": "Traceback (most recent call last):\nKeyError: 'msg'"}
    found = judge(request, errored, {"reason": "MSG_MISSING_SEQNO"})
    assert found.status == UNJUDGED and "KeyError" in found.detail

    def failing_spec(request: dict[str, Any]) -> dict[str, Any]:
        raise RuntimeError("the spec fell over")

    refused = {"reason": "MSG_MISSING_SEQNO"}
    found = judge(request, refused, {"reason": "MSG_NOT_DICT"}, spec=failing_spec)
    assert found.status == UNJUDGED and "the spec fell over" in found.detail

    def unexplained(self: Emulated, answer: Any) -> None:
        raise Unexplained("no quirk explains it")

    monkeypatch.setattr(Emulated, "against", unexplained)
    found = judge(request, refused, {"reason": "MSG_NOT_DICT"}, frozenset({"X1"}), SPEC.handle)
    assert found.status == UNJUDGED and "Unexplained" in found.detail


def broken_reference() -> types.ModuleType:
    """The spec standing in for the reference, its merge breaking ties the wrong way."""
    module = types.ModuleType("swarmconf.broken.configmerge")
    module.__dict__.update(vars(spec))
    module.merge = mutated("ties", spec.merge)  # type: ignore[attr-defined]
    module.merge_parsed = mutated("ties", spec.merge_parsed)  # type: ignore[attr-defined]
    return module


def test_a_broken_reference_is_caught_by_the_spec_and_the_client_is_not_blamed() -> None:
    rows = run_client_task(ClientTask(1, 0, 0, 200, EXAMPLE), library=broken_reference())
    failing = [row for row in rows if row[VIOLATIONS]]
    assert failing, "the broken reference went unnoticed"
    assert all("R1" in row[VIOLATIONS].split() for row in failing if "merge" in row[DETAIL])
    assert not any({"C1", "C2", "C3"} & set(row[VIOLATIONS].split()) for row in rows)
    assert "the reference" in next(row[DETAIL] for row in failing if "R1" in row[VIOLATIONS])
    clean = run_client_task(ClientTask(1, 0, 0, 200, EXAMPLE))
    assert [row[DETAIL] for row in clean if row[VIOLATIONS]] == []


def judging_fails_on_merges(monkeypatch: pytest.MonkeyPatch) -> None:
    """Judging any merge answer raises, as a broken judge would."""
    same_answer = verdict.same_answer

    def failing(op: str, expected: Any, answer: Any) -> bool:
        if op == "merge":
            raise RuntimeError("injected judging error")
        return same_answer(op, expected, answer)

    monkeypatch.setattr(verdict, "same_answer", failing)


def test_a_judging_error_in_a_campaign_is_a_reported_case_and_the_job_goes_on(
    spark: SparkSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    judging_fails_on_merges(monkeypatch)
    rows = run_client_task(ClientTask(1, 0, 0, 30, EXAMPLE))
    assert len(rows) == 30
    unjudged = [row for row in rows if "C3" in row[VIOLATIONS].split()]
    assert unjudged and "injected judging error" in unjudged[0][DETAIL]
    config = Config(interleavings=30, seed=1, out=tmp_path, per_scenario=30, client=EXAMPLE)
    cases = spark.createDataFrame(rows, client_schema())
    summary = write_outputs(cases, config, 1.0, "local[2]")
    assert summary["violations"]["C3"] == len(unjudged)
    written = [json.loads(Path(path).read_text()) for path in summary["counterexample_files"]]
    assert any("C3" in case["properties"] and "--client" in case["replay"] for case in written)
    assert "C3" in (tmp_path / "report.html").read_text()


def test_a_hostile_campaign_reports_what_it_cannot_judge_with_a_replay_line(
    spark: SparkSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    explains = verdict.deployed_behaviour

    def failing(request: Any, expected: Any) -> Any:
        if request["lag"] != 5:
            raise Unexplained("injected: no quirk explains it")
        return explains(request, expected)

    monkeypatch.setattr(verdict, "deployed_behaviour", failing)
    row = run_hostile_task(HostileTask(3, 0, 400, EMULATION))
    violations = json.loads(row[HOSTILE_VIOLATIONS])
    assert violations.get("C3", 0) > 0
    example = next(e for e in json.loads(row[HOSTILE_EXAMPLES]) if e["property"] == "C3")
    assert example["replay"].startswith("printf") and EMULATION in example["replay"]
    config = Config(interleavings=400, seed=3, out=tmp_path, system="parser", client=EMULATION)
    summary = write_hostile_outputs(spark.createDataFrame([row], hostile_schema()), config, 1.0, "")
    assert summary["violations"]["C3"] == violations["C3"]


def test_the_emulation_is_judged_acceptable_on_hostile_inputs_per_quirk() -> None:
    row = run_hostile_task(HostileTask(3, 0, 2000, EMULATION))
    assert json.loads(row[HOSTILE_VIOLATIONS]) == {}, row[HOSTILE_EXAMPLES]
    quirks = json.loads(row[HOSTILE_QUIRK_COUNTS])
    assert quirks.get("X4", 0) > 0 and sum(quirks.values()) >= row[HOSTILE_QUIRKS] > 0


def test_the_client_campaign_closes_with_a_swarmconf_bug_line_first_when_r1_fails() -> None:
    summary = {
        "cases": 10,
        "seconds": 1.0,
        "interleavings_per_second": 10.0,
        "violations": {"R1": 2, "C1": 0},
        "failing_cases": 2,
    }
    closing = THROUGH_CLIENT.closing(summary)
    assert (
        closing.lines[0].startswith("fuzz: SWARMCONF BUG:")
        and "2 interleavings" in closing.lines[0]
    )
    assert closing.failure is not None
    assert next(iter(THROUGH_CLIENT.properties)) == "R1"
    clean = THROUGH_CLIENT.closing({**summary, "violations": {"R1": 0}, "failing_cases": 0})
    assert clean.failure is None and not any("SWARMCONF BUG" in line for line in clean.lines)
