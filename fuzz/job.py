"""The Spark campaign: extract scenario tasks, transform them with the pure core, load results.

`main()` only wires the three steps. The transform is `campaign.run_task`, a pure function
tested without Spark; each Spark task runs one scenario, so its schedules share cached merges.
Runs on `local[*]` by default and unchanged on a cluster (`--master spark://...`, or under
`spark-submit`, which sets the master).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from .config import Config
from .configmerge.campaign import Row, Task, plan, run_task
from .configmerge.differential import ClientTask, client_schema, plan_client, run_client_task
from .configmerge.hostile import hostile_schema, plan_hostile, run_hostile_task
from .kvgossip.campaign import kv_schema, plan_kv, run_kv_task, write_kv_outputs

if TYPE_CHECKING:
    from pyspark import RDD
    from pyspark.sql import DataFrame, SparkSession

LOG4J2 = """\
rootLogger.level = error
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n
logger.gateway.name = org.apache.spark.api.python.PythonGatewayServer
logger.gateway.level = error
"""


def start_spark(config: Config) -> SparkSession:
    """A session whose Python workers run this interpreter, logging at ERROR, no progress bar,
    the driver bound to 127.0.0.1."""
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    # Spark puts its conf directory on the JVM's class path, where log4j2 finds its config
    conf_dir = (config.out / "spark-conf").resolve()
    conf_dir.mkdir(parents=True, exist_ok=True)
    (conf_dir / "log4j2.properties").write_text(LOG4J2)
    os.environ["SPARK_CONF_DIR"] = str(conf_dir)
    builder = SparkSession.builder
    if config.master is not None:
        builder = builder.master(config.master)
    # Without --master: spark-submit's master, or local[*] (spark-submit's own default)
    spark = (
        builder.appName("swarmconf-fuzz")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.ui.enabled", "false")
        .config("spark.executorEnv.PYSPARK_PYTHON", sys.executable)
        .config("spark.python.worker.reuse", "true")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def extract(spark: SparkSession, config: Config) -> RDD[Any]:
    """One partition per task: a scenario's schedules, or a run of K/V Gossip cases."""
    tasks: list[Any]
    if config.system == "kvgossip":
        tasks = plan_kv(config.seed, config.interleavings, config.mutant)
    elif config.system == "parser":
        tasks = plan_hostile(
            config.seed, config.interleavings, config.client, config.client_timeout
        )
    elif config.client is not None:
        tasks = plan_client(
            config.seed,
            config.interleavings,
            config.per_scenario,
            config.client,
            config.client_timeout,
        )
    else:
        tasks = plan(
            config.seed,
            config.interleavings,
            config.per_scenario,
            config.mutant,
            config.differential,
        )
    return spark.sparkContext.parallelize(tasks, numSlices=max(1, len(tasks)))


def transform(tasks: RDD[Any], system: str = "config") -> RDD[Any]:
    """Run every task with its pure core: `run_task` (or `run_client_task` for a task checked
    through a client), `run_kv_task` for K/V Gossip, `run_hostile_task` for the parsers."""
    if system == "kvgossip":
        return tasks.flatMap(run_kv_task)
    if system == "parser":
        return tasks.map(run_hostile_task)
    return tasks.flatMap(run_config_task)


def run_config_task(task: Task | ClientTask) -> list[Any]:
    return run_client_task(task) if isinstance(task, ClientTask) else run_task(task)


def load(spark: SparkSession, rows: RDD[Any], config: Config) -> DataFrame:
    """Write the per-case results as Parquet and return them, read back."""
    from .configmerge.schema import row_schema

    schema = {"kvgossip": kv_schema, "parser": hostile_schema}.get(config.system, row_schema)()
    if config.system == "config" and config.client is not None:
        schema = client_schema()
    path = str((config.out / "cases.parquet").resolve())
    spark.createDataFrame(rows, schema).write.mode("overwrite").parquet(path)
    return spark.read.parquet(path)


class Progress:
    """Prints finished scenarios and the rate while the job runs."""

    def __init__(self, spark: SparkSession, config: Config) -> None:
        self.tracker = spark.sparkContext.statusTracker()
        self.total = extract_count(config)
        self.per_scenario = config.interleavings / max(1, self.total)
        self.started = time.monotonic()
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.loop, daemon=True)

    def __enter__(self) -> Progress:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        self.thread.join()

    def finished_tasks(self) -> int:
        stages = (self.tracker.getStageInfo(i) for i in self.tracker.getActiveStageIds())
        return sum(stage.numCompletedTasks for stage in stages if stage is not None)

    def loop(self) -> None:
        finished = 0
        while not self.done.wait(5.0):
            finished = max(finished, min(self.total, self.finished_tasks()))
            elapsed = time.monotonic() - self.started
            cases = round(finished * self.per_scenario)
            print(
                f"  {finished}/{self.total} tasks, ~{cases} interleavings, "
                f"{elapsed:.0f} s, ~{cases / max(elapsed, 1e-9):.0f} interleavings/s",
                flush=True,
            )


def run(config: Config) -> dict[str, object]:
    """Extract, transform, load; then the summary, counterexamples and report."""
    from .report import write_hostile_outputs, write_outputs

    spark = start_spark(config)
    try:
        print(
            f"fuzz: {config.interleavings} interleavings, seed {config.seed}, "
            f"{spark.sparkContext.master}",
            flush=True,
        )
        started = time.monotonic()
        with Progress(spark, config):
            cases = load(spark, transform(extract(spark, config), config.system), config)
        seconds = time.monotonic() - started
        master = str(spark.sparkContext.master)
        if config.system == "kvgossip":
            return write_kv_outputs(cases, config, seconds, master)
        if config.system == "parser":
            return write_hostile_outputs(cases, config, seconds, master)
        return write_outputs(cases, config, seconds, master)
    finally:
        spark.stop()


def extract_count(config: Config) -> int:
    if config.system == "kvgossip":
        return len(plan_kv(config.seed, config.interleavings))
    if config.system == "parser":
        return len(plan_hostile(config.seed, config.interleavings, config.client, 0.0))
    return len(plan(config.seed, config.interleavings, config.per_scenario))


def rows_locally(config: Config) -> Iterator[Row]:
    """The same rows as the Spark job, from a plain loop (for tests and small runs)."""
    for task in plan(
        config.seed, config.interleavings, config.per_scenario, config.mutant, config.differential
    ):
        yield from run_task(task)
