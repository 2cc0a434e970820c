"""The standalone-cluster run at a small size: master and two workers on 127.0.0.1."""

import json
from pathlib import Path

from swarmconf.fuzz.cluster import main, master_state


def test_a_campaign_runs_on_a_standalone_cluster_and_the_cluster_stops(tmp_path: Path) -> None:
    status = main(["--interleavings", "200", "--per-scenario", "50", "--out", str(tmp_path)])
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["master"].startswith("spark://127.0.0.1:")
    assert summary["cases"] == 200
    assert status == (1 if summary["failing_cases"] else 0)
    assert (tmp_path / "report.html").exists()
    port = int(summary["master"].rsplit(":", 1)[1])
    assert master_state(port) == {}  # nothing answers any more
