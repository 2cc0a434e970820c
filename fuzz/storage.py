"""Where a campaign's outputs go: a local directory, or any Hadoop-compatible URI.

`--out` is a plain path or a URI (`file:///...`, `hdfs://...`, `s3a://...`). With a path,
everything is written there directly. With a URI, the executors write the per-case Parquet to
it, the driver writes the summary, counterexamples and report to a local staging directory and
then copies them next to the Parquet through the Hadoop FileSystem API, so any file system the
cluster's Hadoop configuration knows works, and nothing but the Parquet crosses the network
from the workers.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

CASES = "cases.parquet"
SPARK_CONF = "spark-conf"
"""The local Spark configuration directory the driver writes; never published."""
URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


@dataclass(frozen=True)
class Destination:
    """Where the driver writes (`local`), and the URI it publishes to, if any."""

    local: Path
    uri: str | None = None

    @property
    def cases(self) -> str:
        """Where the executors write the per-case Parquet."""
        if self.uri is not None:
            return f"{self.uri}/{CASES}"
        return str((self.local / CASES).resolve())

    def show(self, name: str) -> str:
        """Where the output `name` ends up, for messages."""
        return f"{self.uri}/{name}" if self.uri is not None else str((self.local / name).resolve())


def destination(out: str | Path) -> Destination:
    """`--out` as given: a URI (published through Hadoop, staged in a temporary directory), or a
    local directory."""
    text = str(out)
    if URI.match(text):
        staging = Path(tempfile.mkdtemp(prefix="swarmconf-fuzz-"))
        return Destination(staging, text.rstrip("/"))
    return Destination(Path(text))


def publish(spark: SparkSession, local: Path, uri: str) -> list[str]:
    """Copy the driver's outputs under `local` to `uri` through the Hadoop FileSystem API (the
    session's Hadoop configuration: credentials, endpoints); returns the names copied."""
    jvm = spark.sparkContext._jvm
    assert jvm is not None
    hadoop_path = jvm.org.apache.hadoop.fs.Path
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    target = hadoop_path(uri)
    filesystem = target.getFileSystem(conf)
    filesystem.mkdirs(target)
    copied = []
    for item in sorted(local.iterdir()):
        if item.name in (SPARK_CONF, CASES):
            continue
        destination_path = hadoop_path(f"{uri}/{item.name}")
        filesystem.copyFromLocalFile(
            False, True, hadoop_path(item.resolve().as_uri()), destination_path
        )
        copied.append(item.name)
    return copied
