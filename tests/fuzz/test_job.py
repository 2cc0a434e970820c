import json
from pathlib import Path
from typing import Any

from pyspark.sql import SparkSession

from swarmconf.fuzz.config import Config
from swarmconf.fuzz.configmerge.campaign import Row, estimated_cost, plan
from swarmconf.fuzz.configmerge.report import write_outputs
from swarmconf.fuzz.job import (
    JVM_OPTIONS,
    balanced,
    extract,
    load,
    partitions,
    rows_locally,
    transform,
    unit_cost,
)
from swarmconf.fuzz.storage import destination, publish


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
    from swarmconf.fuzz.kvgossip.campaign import plan_kv, run_kv_task
    from swarmconf.fuzz.kvgossip.report import write_kv_outputs

    config = Config(
        interleavings=30, seed=1, out=tmp_path, system="kvgossip", mutant="unbound-chain"
    )
    cases = load(spark, transform(extract(spark, config), "kvgossip"), config)
    local = [row for task in plan_kv(1, 30, "unbound-chain") for row in run_kv_task(task)]
    from_spark = sorted(tuple(row)[:-1] for row in cases.collect())
    assert from_spark == sorted(tuple(row)[:-1] for row in local)
    summary = write_kv_outputs(cases, config, 1.0, "local[2]")
    assert summary["cases"] == 30
    assert summary["failing_cases"] == sum(1 for row in local if row.violations) > 0
    assert all("--system kvgossip 1:" in item["replay"] for item in summary["counterexamples"])


def test_out_is_a_local_directory_or_a_uri(tmp_path: Path) -> None:
    local = destination(tmp_path / "out")
    assert local.uri is None and local.local == tmp_path / "out"
    assert local.cases == str((tmp_path / "out" / "cases.parquet").resolve())
    remote = destination("hdfs://namenode:8020/campaigns/7/")
    assert remote.uri == "hdfs://namenode:8020/campaigns/7"
    assert remote.cases == "hdfs://namenode:8020/campaigns/7/cases.parquet"
    assert remote.show("report.html") == "hdfs://namenode:8020/campaigns/7/report.html"
    assert remote.local.is_dir() and not any(remote.local.iterdir())


def test_a_uri_gets_the_parquet_and_the_drivers_outputs_through_hadoop(
    spark: SparkSession, tmp_path: Path
) -> None:
    remote = tmp_path / "remote"
    where = destination(remote.as_uri())
    config = Config(interleavings=100, seed=1, out=where.local, out_uri=where.uri, per_scenario=50)
    cases = load(spark, transform(extract(spark, config)), config)
    write_outputs(cases, config, 1.0, "local[2]")
    assert where.uri is not None
    copied = publish(spark, config.out, where.uri)
    assert {"summary.json", "report.html"} <= set(copied)
    assert (remote / "cases.parquet" / "_SUCCESS").exists()
    assert not (config.out / "cases.parquet").exists()
    assert json.loads((remote / "summary.json").read_text())["cases"] == 100
    assert (remote / "report.html").read_text() == (config.out / "report.html").read_text()
    assert not (remote / "spark-conf").exists()


def test_a_partition_runs_many_tasks_and_each_core_gets_a_few(
    spark: SparkSession, tmp_path: Path
) -> None:
    assert partitions(400, 2) == 10  # 40 tasks each at most
    assert partitions(40, 2) == 8  # four per core
    assert partitions(5, 2) == 5 and partitions(0, 2) == 1
    config = Config(interleavings=2000, seed=1, out=tmp_path, per_scenario=100)
    assert extract(spark, config).getNumPartitions() == partitions(20, 2) == 8


def test_partitions_hold_tasks_of_about_equal_cost(spark: SparkSession, tmp_path: Path) -> None:
    config = Config(interleavings=4000, seed=1, out=tmp_path, per_scenario=100)
    tasks = plan(config.seed, config.interleavings, config.per_scenario)
    costs = {task: estimated_cost(task) for task in tasks}
    held = extract(spark, config).glom().collect()
    assert sorted(task for group in held for task in group) == sorted(tasks)
    loads = [sum(costs[task] for task in group) for group in held]
    assert len(loads) == partitions(len(tasks), 2)
    assert max(loads) - min(loads) <= max(costs.values())
    in_plan_order = [sum(costs[task] for task in tasks[i::8]) for i in range(8)]
    assert max(loads) - min(loads) < max(in_plan_order) - min(in_plan_order)
    for group in held:
        assert [costs[task] for task in group] == sorted(costs[task] for task in group)


def test_without_costs_tasks_are_dealt_evenly() -> None:
    groups = balanced(list(range(10)), 4, unit_cost)
    assert sorted(len(group) for group in groups) == [2, 2, 3, 3]
    assert sorted(task for group in groups for task in group) == list(range(10))


def untimed_fields(row: dict[str, Any]) -> tuple[tuple[str, Any], ...]:
    """A row's fields but the times it took, which no two runs share."""
    return tuple(sorted((key, value) for key, value in row.items() if key not in TIMES))


TIMES = ("seconds", "slowest")


def test_kv_hostile_inputs_run_through_the_same_job(spark: SparkSession, tmp_path: Path) -> None:
    from swarmconf.fuzz.kvgossip.hostile import plan_kv_hostile, run_kv_hostile_task
    from swarmconf.fuzz.report import write_hostile_outputs

    config = Config(
        interleavings=20_000,
        seed=1,
        out=tmp_path,
        system="kvgossip-parser",
        mutant="record-index-error",
    )
    cases = load(spark, transform(extract(spark, config), config.system), config)
    local = [run_kv_hostile_task(task) for task in plan_kv_hostile(1, 20_000, "record-index-error")]
    untimed = [untimed_fields(row.asDict()) for row in cases.collect()]
    assert sorted(untimed) == sorted(untimed_fields(row._asdict()) for row in local)
    summary = write_hostile_outputs(cases, config, 1.0, "local[2]")
    assert summary["system"] == "kvgossip-parser" and summary["inputs"] == 20_000
    assert set(summary["violations"]) == {"H1", "H2", "H3", "H4", "H5"}
    assert summary["violations"]["H2"] > 0 and summary["failing_inputs"] > 0
    assert "K/V Gossip hostile-input campaign" in (tmp_path / "report.html").read_text()


def test_the_jvm_this_process_starts_compiles_with_c1_only(spark: SparkSession) -> None:
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    arguments = list(
        jvm.java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()
    )
    assert JVM_OPTIONS in arguments
    executors = spark.sparkContext.getConf().get("spark.executor.extraJavaOptions")
    assert JVM_OPTIONS in str(executors).split()
