"""A client campaign through the Spark job: the rows, the summary, shrunk counterexamples with
replay commands, and a report naming the client."""

import json
from pathlib import Path

from pyspark.sql import SparkSession

from swarmconf.fuzz.config import Config
from swarmconf.fuzz.configmerge.report import write_outputs
from swarmconf.fuzz.job import extract, load, transform

from .adapters import mutant


def test_a_client_campaign_reports_the_client_and_its_counterexamples(
    spark: SparkSession, tmp_path: Path
) -> None:
    config = Config(interleavings=40, seed=1, out=tmp_path, per_scenario=20, client=mutant("ties"))
    cases = load(spark, transform(extract(spark, config)), config)
    assert cases.count() == 40
    summary = write_outputs(cases, config, 2.0, "local[2]")
    assert summary["client"]["name"] == "swarmconf.spec+ties"
    assert summary["behaviours"] == ["libsession", "client"]
    assert summary["violations"]["C1"] > 0
    shrunk = [path for path in summary["counterexample_files"] if path.endswith("-shrunk.json")]
    assert shrunk
    case = json.loads(Path(shrunk[0]).read_text())
    assert "--client" in case["replay"] and "C1" in case["properties"]
    report = (tmp_path / "report.html").read_text()
    assert report.index("Failed") < report.index("swarmconf.spec+ties") < report.index("C1")
