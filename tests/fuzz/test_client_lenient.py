"""`--lenient-reasons`: a client's refusal with another reason code is agreement, counted per
pair of reasons (oracle's -> client's) in the rows, the summary and the report."""

import html
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from swarmconf.fuzz.configmerge.hostile import HostileTask, plan_hostile, run_hostile_task
from swarmconf.fuzz.configmerge.verdict import AGREED, DISAGREED, judge, reason_pairs
from swarmconf.fuzz.report import lenient_facts, reason_pair_totals

from .adapters import ROOT

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

RENAMING = f"{sys.executable} {ROOT / 'tests/fuzz/renaming_adapter.py'}"
REQUEST = {"op": "parse", "msg": "6c", "lag": 5}


def test_another_reason_agrees_only_when_lenient_and_keeps_the_pair() -> None:
    strict = judge(REQUEST, {"reason": "BT_TRUNCATED"}, {"reason": "LAGGED_BAD_ENTRY"})
    lenient = judge(
        REQUEST, {"reason": "BT_TRUNCATED"}, {"reason": "LAGGED_BAD_ENTRY"}, lenient=True
    )
    assert strict.status == DISAGREED and strict.reasons is None
    assert lenient.status == AGREED and lenient.reasons == ("BT_TRUNCATED", "LAGGED_BAD_ENTRY")


def test_lenient_judging_still_fails_an_acceptance_of_what_the_spec_refuses() -> None:
    accepted = {"result": {"seqno": 1}}
    assert judge(REQUEST, {"reason": "BT_TRUNCATED"}, accepted, lenient=True).status == DISAGREED
    same = judge(REQUEST, {"reason": "BAD_LAG"}, {"reason": "BAD_LAG"}, lenient=True)
    assert same.status == AGREED and same.reasons is None


def test_pairs_are_counted_and_summed_most_frequent_first() -> None:
    verdicts = [
        judge(REQUEST, {"reason": "A"}, {"reason": "B"}, lenient=True),
        judge(REQUEST, {"reason": "A"}, {"reason": "B"}, lenient=True),
        judge(REQUEST, {"reason": "C"}, {"reason": "B"}, lenient=True),
    ]
    assert reason_pairs(verdicts) == {"A -> B": 2, "C -> B": 1}
    totals = reason_pair_totals(['{"C -> B": 1}', '{"A -> B": 2, "C -> B": 2}'])
    assert list(totals.items()) == [("C -> B", 3), ("A -> B", 2)]
    facts = lenient_facts(totals)
    assert facts[0][1] == "5" and facts[1] == ("reason C -> B", "3")
    assert lenient_facts({}) == []


def test_the_option_reaches_every_planned_task() -> None:
    assert all(task.lenient for task in plan_hostile(1, 25_000, RENAMING, 10.0, True))
    assert not any(task.lenient for task in plan_hostile(1, 25_000, RENAMING, 10.0))


def test_a_hostile_task_through_a_client_with_its_own_reasons_is_clean_only_when_lenient() -> None:
    strict = run_hostile_task(HostileTask(1, 0, 300, RENAMING))
    lenient = run_hostile_task(HostileTask(1, 0, 300, RENAMING, lenient=True))
    assert json.loads(strict.violations).get("C1", 0) > 0
    assert json.loads(lenient.violations) == {}, lenient.examples
    pairs = json.loads(lenient.client_reason_pairs)
    assert pairs and all(p.split(" -> ")[1] == "OWN_" + p.split(" -> ")[0] for p in pairs)
    assert sum(pairs.values()) == json.loads(strict.violations)["C1"]
    assert json.loads(strict.client_reason_pairs) == {}


def test_the_command_line_takes_the_option() -> None:
    import argparse

    from swarmconf.fuzz.cli import register

    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    args = parser.parse_args(["fuzz", "--client", RENAMING, "--lenient-reasons"])
    assert args.lenient_reasons and not parser.parse_args(["fuzz"]).lenient_reasons


def test_the_summary_and_the_page_count_each_pair(spark: "SparkSession", tmp_path: Path) -> None:
    from swarmconf.fuzz.config import Config
    from swarmconf.fuzz.hostile import hostile_schema
    from swarmconf.fuzz.report import write_hostile_outputs

    row = run_hostile_task(HostileTask(1, 0, 300, RENAMING, lenient=True))
    config = Config(interleavings=300, seed=1, out=tmp_path, system="parser", client=RENAMING)
    frame = spark.createDataFrame([row], hostile_schema())
    summary = write_hostile_outputs(frame, config, 1.0, "local")
    assert summary["client_reasons_lenient"] == json.loads(row.client_reason_pairs)
    first = next(iter(summary["client_reasons_lenient"]))
    assert html.escape(f"reason {first}") in (tmp_path / "report.html").read_text()
