"""The worked K/V adapter on the conformance pages (the node's SQLite store under the spec's
judgement) passes every K/V vector through the runner, and declares only K/V operations."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from swarmconf.conformance.client import make_client
from swarmconf.conformance.kvgossip.ops import OPS as KV_OPS
from swarmconf.conformance.runner import NOT_APPLICABLE, PASSED, run_cases
from swarmconf.conformance.vectors import load_cases

ROOT = Path(__file__).resolve().parents[2]
ADAPTER = ROOT / "docs" / "examples" / "kvgossip_adapter.py"
COMMAND = f"{shlex.quote(sys.executable)} {shlex.quote(str(ADAPTER))}"


def test_the_worked_kv_adapter_passes_every_kv_vector() -> None:
    cases = load_cases(ROOT / "vectors" / "v1")
    report = run_cases(make_client(COMMAND, 30), cases)
    assert set(report.hello["ops"]) == set(KV_OPS)
    grades = {(o.case.design, o.status) for o in report.outcomes}
    assert grades == {("kvgossip", PASSED), ("configmerge", NOT_APPLICABLE)}
    assert report.ok


def test_the_worked_kv_adapter_reports_a_refusal_with_its_state() -> None:
    client = make_client(COMMAND, 30)
    client.start()
    try:
        bad_key = client.request({"op": "kv_key", "key": "no-leading-slash"})
        unknown = client.request({"op": "kv_frobnicate"})
    finally:
        client.close()
    assert set(bad_key) == {"id", "reason"}
    assert "skipped" in unknown


def test_the_adapter_page_includes_the_tested_file() -> None:
    page = (ROOT / "docs" / "pages" / "conformance" / "worked-adapter.md").read_text()
    assert '--8<-- "examples/kvgossip_adapter.py"' in page
