import json
from pathlib import Path

from pyspark.sql import SparkSession

from swarmconf.fuzz.config import Config
from swarmconf.fuzz.configmerge.campaign import Row
from swarmconf.fuzz.job import extract, load, rows_locally, transform
from swarmconf.fuzz.report import write_outputs


def without_timing(rows: list[Row]) -> list[Row]:
    return sorted(row._replace(seconds=0.0) for row in rows)


def test_the_spark_job_equals_a_plain_loop(spark: SparkSession, tmp_path: Path) -> None:
    config = Config(interleavings=300, seed=4, out=tmp_path, per_scenario=60)
    from_spark = transform(extract(spark, config)).collect()
    assert len(from_spark) == 300
    assert without_timing(from_spark) == without_timing(list(rows_locally(config)))


def test_load_writes_parquet_and_the_outputs(spark: SparkSession, tmp_path: Path) -> None:
    config = Config(
        interleavings=200, seed=1, out=tmp_path, per_scenario=100, mutant="unknown-keys"
    )
    cases = load(spark, transform(extract(spark, config)), config)
    assert cases.count() == 200
    summary = write_outputs(cases, config, 1.0, "local[2]")
    written = json.loads((tmp_path / "summary.json").read_text())
    assert written["cases"] == 200 == summary["cases"]
    assert written["violations"]["P6"] > 0
    assert written["failing_cases"] == sum(1 for row in rows_locally(config) if row.violations)
    examples = sorted((tmp_path / "counterexamples").glob("*.json"))
    assert examples and all("swarmconf fuzz replay" in path.read_text() for path in examples)
    report = (tmp_path / "report.html").read_text()
    assert report.count("data:image/png;base64,") == 6


def test_the_kvgossip_system_runs_through_the_same_job(spark: SparkSession, tmp_path: Path) -> None:
    from swarmconf.fuzz.kvgossip.campaign import plan_kv, run_kv_task, write_kv_outputs

    config = Config(
        interleavings=30, seed=1, out=tmp_path, system="kvgossip", mutant="unbound_chain"
    )
    cases = load(spark, transform(extract(spark, config), "kvgossip"), config)
    local = [row for task in plan_kv(1, 30, "unbound_chain") for row in run_kv_task(task)]
    from_spark = sorted(tuple(row)[:-1] for row in cases.collect())
    assert from_spark == sorted(tuple(row)[:-1] for row in local)
    summary = write_kv_outputs(cases, config, 1.0, "local[2]")
    assert summary["cases"] == 30
    assert summary["failing_cases"] == sum(1 for row in local if row.violations) > 0
    assert all("run_case(1, " in item["replay"] for item in summary["counterexamples"])
