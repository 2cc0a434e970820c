"""The report writer over arbitrary cases and answers: it never raises, and what it writes reads
back (one JUnit test case and one JSON case per outcome, every failure printed)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from swarmconf.conformance.registry import all_ops
from swarmconf.conformance.report import failure_lines, json_report, junit_xml, summary_lines
from swarmconf.conformance.runner import FAILED, GRADES, Outcome, RunReport
from swarmconf.conformance.vectors import Case

TEXT = st.text(max_size=12)
BT_HEX = st.sampled_from(["", "6c65", "6465", "64313a61693165", "69303165", "zz", "6c"])
"""Hex of bt values, empty, valid, non-canonical and broken, and text that is not hex."""
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), TEXT, BT_HEX)
JSON: st.SearchStrategy[Any] = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)
FIELDS = st.sampled_from(
    ["msg", "msgs", "data", "obsolete", "steps", "answers", "blobs", "hash", "reason", "result"]
)
"""Field names of every kind (bt, btlist, hexlist, json), so each rendering is met."""
OBJECT = st.dictionaries(FIELDS | TEXT, JSON | st.lists(BT_HEX, max_size=3), max_size=4)


@st.composite
def cases(draw: st.DrawFn) -> Case:
    result = draw(st.sampled_from(["valid", "invalid", "acceptable"]))
    return Case(
        suite=draw(TEXT),
        design=draw(st.sampled_from(["configmerge", "kvgossip"])),
        tc_id=draw(st.integers()),
        name=draw(TEXT),
        comment=draw(TEXT),
        flags=tuple(draw(st.lists(TEXT, max_size=2))),
        rules=tuple(draw(st.lists(TEXT, max_size=2))),
        op=draw(st.sampled_from(sorted(all_ops())) | TEXT),
        request=draw(OBJECT),
        result=result,
        expected=draw(st.none() | OBJECT | JSON),
        reason=draw(st.none() | TEXT),
        deployed=draw(st.none() | OBJECT | JSON),
        quirks=tuple(draw(st.lists(TEXT, max_size=2))),
    )


ANSWERS = st.none() | st.dictionaries(
    st.sampled_from(["result", "reason", "errored", "skipped"]) | TEXT, JSON | OBJECT, max_size=3
)
OUTCOMES = st.builds(Outcome, cases(), st.sampled_from(GRADES), TEXT, ANSWERS)


@settings(max_examples=100, deadline=None)
@given(st.lists(OUTCOMES, max_size=5), st.dictionaries(TEXT, TEXT, max_size=3))
def test_the_report_writer_takes_any_case_and_answer(
    outcomes: list[Outcome], hello: dict[str, Any]
) -> None:
    report = RunReport(hello=hello, notes=["a note \x00"], outcomes=outcomes)
    for outcome in outcomes:
        lines = failure_lines(outcome)
        assert lines[0].startswith("FAIL ") and f"#{outcome.case.tc_id} " in lines[0]
        "\n".join(lines).encode()  # printable: no lone surrogate
    assert summary_lines(report)[-1].startswith("  total")
    root = ElementTree.fromstring(junit_xml(report))
    assert len(root.findall("./testsuite/testcase")) == len(outcomes)
    assert len(root.findall("./testsuite/testcase/failure")) == sum(
        outcome.status == FAILED for outcome in outcomes
    )
    document = json.loads(json_report(report))
    assert [case["grade"] for case in document["cases"]] == [o.status for o in outcomes]


def test_a_failing_case_with_an_empty_list_field_is_printed() -> None:
    """A `merge` case whose `msgs` is empty: the request line shows the empty list."""
    case = Case(
        "merges",
        "configmerge",
        1,
        "none",
        "",
        (),
        (),
        "merge",
        {"msgs": [], "lag": 5},
        "invalid",
        None,
        "NO_VALID_MESSAGE",
    )
    lines = failure_lines(Outcome(case, FAILED, "wrong", {"result": {"obsolete": []}}))
    assert "    msgs: []" in lines
