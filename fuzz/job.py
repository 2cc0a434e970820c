"""The Spark campaign: extract scenario tasks, transform them with the pure core, load results.

`main()` only wires the three steps. The transform is `campaign.run_task`, a pure function
tested without Spark; each of its tasks runs one scenario, so its schedules share cached merges.
A Spark partition holds several such tasks (see `partitions`).
Runs on `local[*]` by default and unchanged on a cluster (`--master spark://...`, or under
`spark-submit`, which sets the master).
"""

from __future__ import annotations

import heapq
import itertools
import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from .config import Config
from .configmerge.campaign import Row, Task, estimated_cost, plan, run_task
from .configmerge.differential import ClientTask, client_schema, plan_client, run_client_tasks
from .configmerge.hostile import plan_hostile, run_hostile_task
from .hostile import hostile_schema
from .kvgossip.campaign import kv_schema, plan_kv, run_kv_task, write_kv_outputs
from .kvgossip.hostile import plan_kv_hostile, run_kv_hostile_task
from .storage import Destination, publish

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
    """The tasks (a scenario's schedules, a run of K/V Gossip cases, a batch of hostile inputs
    of either design) in `partitions` partitions."""
    tasks: list[Any]
    if config.system == "kvgossip":
        tasks = plan_kv(config.seed, config.interleavings, config.mutant)
    elif config.system == "parser":
        tasks = plan_hostile(
            config.seed, config.interleavings, config.client, config.client_timeout
        )
    elif config.system == "kvgossip-parser":
        tasks = plan_kv_hostile(config.seed, config.interleavings, config.mutant)
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
    count = partitions(len(tasks), spark.sparkContext.defaultParallelism)
    cost = estimated_cost if config.system == "config" and config.client is None else unit_cost
    # One group per partition (a list of `count` elements is cut into `count` slices of one)
    groups = spark.sparkContext.parallelize(balanced(tasks, count, cost), numSlices=count)
    return groups.flatMap(lambda group: group)


def unit_cost(task: object) -> int:
    return 1


def balanced(tasks: list[Any], count: int, cost: Callable[[Any], int]) -> list[list[Any]]:
    """`tasks` dealt into `count` groups of about equal `cost`, each task to the least loaded
    group, the costliest first. Scenarios' costs vary tenfold, and a core that finishes its
    partitions early waits for the last one: cut in plan order, 10 partitions on 2 cores leave
    some 4% of the cores idle (simulated)."""
    costs = [cost(task) for task in tasks]
    groups: list[list[Any]] = [[] for _ in range(count)]
    loads = [(0, number) for number in range(count)]
    for index in sorted(range(len(tasks)), key=lambda index: -costs[index]):
        load, number = heapq.heappop(loads)
        groups[number].append(tasks[index])
        heapq.heappush(loads, (load + costs[index], number))
    return groups


def transform(tasks: RDD[Any], system: str = "config") -> RDD[Any]:
    """Run every task with its pure core: `run_task` (or `run_client_tasks` for a partition's
    tasks checked through a client), `run_kv_task` for K/V Gossip, `run_hostile_task` and
    `run_kv_hostile_task` for either design's decoders."""
    if system == "kvgossip":
        return tasks.flatMap(run_kv_task)
    if system == "parser":
        return tasks.map(run_hostile_task)
    if system == "kvgossip-parser":
        return tasks.map(run_kv_hostile_task)
    return tasks.mapPartitions(run_config_tasks)


def run_config_tasks(tasks: Iterable[Task | ClientTask]) -> Iterator[Any]:
    queue = iter(tasks)
    first = next(queue, None)
    if isinstance(first, ClientTask):
        yield from run_client_tasks(itertools.chain([first], queue))  # type: ignore[arg-type]
    elif first is not None:
        for task in itertools.chain([first], queue):
            yield from run_task(task)  # type: ignore[arg-type]


def load(spark: SparkSession, rows: RDD[Any], config: Config) -> DataFrame:
    """Write the per-case results as Parquet (to `out`, or to `out_uri`) and return them, read
    back."""
    from .configmerge.schema import row_schema

    schemas = {"kvgossip": kv_schema, "parser": hostile_schema, "kvgossip-parser": hostile_schema}
    schema = schemas.get(config.system, row_schema)()
    if config.system == "config" and config.client is not None:
        schema = client_schema()
    path = Destination(config.out, config.out_uri).cases
    # The rows are built to the schema; checking each one again costs the workers time
    frame = spark.createDataFrame(rows, schema, verifySchema=False)
    frame.write.mode("overwrite").parquet(path)
    return spark.read.parquet(path)


class Progress:
    """Prints finished scenarios and the rate while the job runs."""

    def __init__(self, spark: SparkSession, config: Config) -> None:
        self.tracker = spark.sparkContext.statusTracker()
        self.total = partitions(extract_count(config), spark.sparkContext.defaultParallelism)
        self.per_partition = config.interleavings / max(1, self.total)
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
            cases = round(finished * self.per_partition)
            print(
                f"  {finished}/{self.total} tasks, ~{cases} interleavings, "
                f"{elapsed:.0f} s, ~{cases / max(elapsed, 1e-9):.0f} interleavings/s",
                flush=True,
            )


def run(config: Config) -> dict[str, object]:
    """Extract, transform, load; then the summary, counterexamples and report."""
    from .configmerge.report import write_outputs
    from .report import write_hostile_outputs

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
            summary = write_kv_outputs(cases, config, seconds, master)
        elif config.system in ("parser", "kvgossip-parser"):
            summary = write_hostile_outputs(cases, config, seconds, master)
        else:
            summary = write_outputs(cases, config, seconds, master)
        if config.out_uri is not None:
            publish(spark, config.out, config.out_uri)
        return summary
    finally:
        spark.stop()


def extract_count(config: Config) -> int:
    if config.system == "kvgossip":
        return len(plan_kv(config.seed, config.interleavings))
    if config.system == "parser":
        return len(plan_hostile(config.seed, config.interleavings, config.client, 0.0))
    if config.system == "kvgossip-parser":
        return len(plan_kv_hostile(config.seed, config.interleavings))
    return len(plan(config.seed, config.interleavings, config.per_scenario))


def rows_locally(config: Config) -> Iterator[Row]:
    """The same rows as the Spark job, from a plain loop (for tests and small runs)."""
    for task in plan(
        config.seed, config.interleavings, config.per_scenario, config.mutant, config.differential
    ):
        yield from run_task(task)
