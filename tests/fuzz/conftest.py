from collections.abc import Iterator
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from swarmconf.fuzz.config import Config
from swarmconf.fuzz.job import start_spark


@pytest.fixture(scope="session")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparkSession]:
    """One local Spark session (two cores) shared by the tests that need Spark."""
    out: Path = tmp_path_factory.mktemp("spark")
    session = start_spark(Config(interleavings=1, master="local[2]", out=out))
    yield session
    session.stop()
