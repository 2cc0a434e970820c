"""The Spark campaign: extract a campaign's tasks, transform them with its pure core, load the
rows.

`run()` only wires the three steps for the campaign record the config names (`campaigns`): its
`plan` gives the tasks, its `run` turns a partition's tasks into rows (a pure function, tested
without Spark), its `schema` types them and its `write` makes the outputs. A Spark partition
holds several tasks (see `partitions`).
Runs on `local[*]` by default and unchanged on a cluster (`--master spark://...`, or under
`spark-submit`, which sets the master).
"""

from __future__ import annotations

import heapq
import os
import sys
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from .campaigns import Campaign, campaign_for, campaign_of, unit_cost
from .config import Config
from .progress import Address, Display, Tally, reported
from .storage import Destination, publish

__all__ = ["balanced", "extract", "load", "partitions", "run", "transform", "unit_cost"]

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


JVM_OPTIONS = "-XX:TieredStopAtLevel=1"
"""The JVMs compile with C1 only. A campaign's JVM work per interleaving is light (unpickling
a row, writing it to Parquet: about 10 us with either compiler), while C2's compilations cost
some 6 s of CPU per JVM, taken from the Python workers' cores (measured on 2 cores)."""


def start_spark(config: Config) -> SparkSession:
    """A session logging at ERROR, no progress bar, the driver bound to 127.0.0.1, the JVMs it
    starts compiling with JVM_OPTIONS. Python workers run this interpreter unless PYSPARK_PYTHON
    says otherwise (`spark-submit --conf spark.pyspark.python=./environment/bin/python` with a
    shipped environment)."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
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
    if "PYSPARK_GATEWAY_PORT" not in os.environ:
        # This process starts the JVM (not spark-submit, whose settings then apply)
        for role in ("driver", "executor"):
            builder = builder.config(f"spark.{role}.extraJavaOptions", JVM_OPTIONS)
    # Without --master: spark-submit's master, or local[*] (spark-submit's own default)
    spark = (
        builder.appName("swarmconf-fuzz")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.ui.enabled", "false")
        .config("spark.python.worker.reuse", "true")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


PARTITIONS_PER_CORE = 4
MAX_TASKS_PER_PARTITION = 40


def partitions(tasks: int, cores: int) -> int:
    """Spark partitions for `tasks` tasks on `cores` cores. A Spark task costs some 80 ms of CPU
    in the JVM and the Python worker (measured: 80 partitions against 10 for the same rows), and
    each writes its own Parquet file, so a partition runs many tasks; a few partitions per core
    still share the work evenly (see `balanced`), and partitions hold MAX_TASKS_PER_PARTITION
    tasks on average at most (a retry's cost, the progress shown)."""
    wanted = max(PARTITIONS_PER_CORE * cores, -(-tasks // MAX_TASKS_PER_PARTITION))
    return max(1, min(tasks, wanted))


def extract(spark: SparkSession, config: Config) -> RDD[Any]:
    """The campaign's tasks in `partitions` partitions, dealt by the campaign's cost."""
    campaign = campaign_of(config)
    tasks = campaign.plan(config)
    count = partitions(len(tasks), spark.sparkContext.defaultParallelism)
    # One group per partition (a list of `count` elements is cut into `count` slices of one)
    groups = spark.sparkContext.parallelize(balanced(tasks, count, campaign.cost), numSlices=count)
    return groups.flatMap(lambda group: group)


def balanced(tasks: list[Any], count: int, cost: Callable[[Any], int]) -> list[list[Any]]:
    """`tasks` dealt into `count` groups of about equal `cost`, each task to the least loaded
    group, the costliest first. Scenarios' costs vary tenfold, and a core that finishes its
    partitions early waits for the last one: cut in plan order, 10 partitions on 2 cores leave
    some 4% of the cores idle (simulated). Each group runs its cheapest task first, so that the
    first finished tasks show (`progress`) within seconds of the start, not after the
    costliest scenarios."""
    costs = [cost(task) for task in tasks]
    groups: list[list[int]] = [[] for _ in range(count)]
    loads = [(0, number) for number in range(count)]
    for index in sorted(range(len(tasks)), key=lambda index: -costs[index]):
        load, number = heapq.heappop(loads)
        groups[number].append(index)
        heapq.heappush(loads, (load + costs[index], number))
    return [[tasks[index] for index in reversed(group)] for group in groups]


def transform(
    tasks: RDD[Any], campaign: Campaign | str | None = None, progress: Address | None = None
) -> RDD[Any]:
    """Every partition's tasks turned into rows by the campaign's `run`; the campaign is given,
    or named by its system (run without a client; None: the default campaign). Each partition
    reports its finished tasks to `progress` (see `progress.reported`)."""
    if not isinstance(campaign, Campaign):
        campaign = campaign_for(campaign)
    run = campaign.run
    return tasks.mapPartitions(lambda partition: run(reported(partition, progress)))


def load(spark: SparkSession, rows: RDD[Any], config: Config) -> DataFrame:
    """Write the per-case results as Parquet (to `out`, or to `out_uri`) and return them, read
    back."""
    path = Destination(config.out, config.out_uri).cases
    # The rows are built to the schema; checking each one again costs the workers time
    frame = spark.createDataFrame(rows, campaign_of(config).schema(), verifySchema=False)
    frame.write.mode("overwrite").parquet(path)
    return spark.read.parquet(path)


class Progress:
    """The campaign's progress while the job runs (`progress.Display`), counted from the
    partitions' reports (`progress.Tally`) or, where none arrives, from the partitions Spark
    says have finished."""

    def __init__(self, spark: SparkSession, config: Config) -> None:
        self.tracker = spark.sparkContext.statusTracker()
        self.tasks = extract_count(config)
        self.partitions = partitions(self.tasks, spark.sparkContext.defaultParallelism)
        self.tally = Tally(spark.sparkContext.getConf().get("spark.driver.host", "127.0.0.1"))
        unit = campaign_of(config).unit
        self.display = Display(self.finished, self.tasks, config.interleavings, unit)

    @property
    def address(self) -> Address:
        return self.tally.address

    def __enter__(self) -> Progress:
        self.display.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.display.__exit__(*exc)
        self.tally.close()

    def finished(self) -> int:
        stages = (self.tracker.getStageInfo(i) for i in self.tracker.getActiveStageIds())
        ended = sum(stage.numCompletedTasks for stage in stages if stage is not None)
        return max(self.tally.finished(), ended * self.tasks // max(1, self.partitions))


def run(config: Config) -> dict[str, object]:
    """Extract, transform, load; then the campaign's summary, counterexamples and report."""
    campaign = campaign_of(config)
    spark = start_spark(config)
    try:
        print(
            f"fuzz: {config.interleavings:,} {campaign.unit}, seed {config.seed}, "
            f"Spark {spark.sparkContext.master}",
            *(f"  {text}" for text in campaign.opening(config)),
            sep="\n",
            flush=True,
        )
        started = time.monotonic()
        with Progress(spark, config) as progress:
            rows = transform(extract(spark, config), campaign, progress.address)
            cases = load(spark, rows, config)
        seconds = time.monotonic() - started
        summary = campaign.write(cases, config, seconds, str(spark.sparkContext.master))
        if config.out_uri is not None:
            publish(spark, config.out, config.out_uri)
        return summary
    finally:
        spark.stop()


def extract_count(config: Config) -> int:
    return len(campaign_of(config).plan(config))


def rows_locally(config: Config) -> Iterator[Any]:
    """The same rows as the Spark job, from a plain loop (for tests and small runs)."""
    yield from campaign_of(config).run(campaign_of(config).plan(config))
