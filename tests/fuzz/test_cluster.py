"""The standalone-cluster run at a small size: master and two workers on 127.0.0.1 whose own
Python cannot import swarmconf, the environment shipped as an archive, outputs through a URI."""

import json
from pathlib import Path

from swarmconf.fuzz.cluster import bare_python, main, master_state, shipped_pythons


def test_the_workers_own_python_cannot_import_swarmconf() -> None:
    assert bare_python()  # raises when it can


def test_a_campaign_runs_on_a_standalone_cluster_and_the_cluster_stops(tmp_path: Path) -> None:
    status = main(["--interleavings", "200", "--per-scenario", "50", "--out", str(tmp_path)])
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["master"].startswith("spark://127.0.0.1:")
    assert summary["cases"] == 200
    assert summary["failing_cases"] == 0 and status == 0
    assert (tmp_path / "report.html").exists()
    assert (tmp_path / "cases.parquet" / "_SUCCESS").exists()
    assert len(shipped_pythons(tmp_path)) >= 1
    port = int(summary["master"].rsplit(":", 1)[1])
    assert master_state(port) == {}  # nothing answers any more
