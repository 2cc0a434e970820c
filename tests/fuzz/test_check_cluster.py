"""The check on a Spark standalone cluster: master and two workers on 127.0.0.1 whose own Python
cannot import swarmconf, the environment shipped as an archive, the outputs through a URI, every
level on the executors."""

import json
from pathlib import Path

from swarmconf.fuzz.check_cluster import RESULT, main
from swarmconf.fuzz.cluster import master_state, shipped_pythons


def test_a_check_runs_on_a_standalone_cluster_with_the_same_states(tmp_path: Path) -> None:
    status = main(["--out", str(tmp_path), "--driver-limit", "0", "--", "--clients", "2"])
    summary = json.loads((tmp_path / RESULT / "summary.json").read_text())
    assert summary["master"].startswith("spark://127.0.0.1:")
    # 2 clients x 2 edits as in one process
    assert summary["states"] == 1_659 and summary["complete"] and summary["depth"] == 18
    assert summary["passed"] and status == 0
    assert (tmp_path / RESULT / "report.html").exists()
    assert len(shipped_pythons(tmp_path)) >= 1
    port = int(summary["master"].rsplit(":", 1)[1])
    assert master_state(port) == {}  # nothing answers any more


def test_a_mutant_found_on_the_cluster_is_traced_through_the_executors(tmp_path: Path) -> None:
    args = ["--clients", "2", "--edits", "2", "--mutant", "ties"]
    status = main(["--out", str(tmp_path), "--driver-limit", "0", "--", *args])
    summary = json.loads((tmp_path / RESULT / "summary.json").read_text())
    assert status != 0 and not summary["passed"]
    (found,) = [item for item in summary["counterexamples"] if item["property"] == "P3"]
    assert found["depth"] == 4 and found["events"] == 4 and found["replays"]
