"""Presenting a run: per-category summary, readable failure details, JUnit XML."""

from __future__ import annotations

import difflib
import json
import xml.etree.ElementTree as ElementTree
from typing import Any

from swarmconf.conformance import btcodec
from swarmconf.conformance.protocol import OPS
from swarmconf.conformance.runner import FAILED, PASSED, SKIPPED, Outcome, RunReport


def summary_lines(report: RunReport) -> list[str]:
    """One line per category and a total line."""
    hello = report.hello
    lines = [f"client: {hello.get('name', '?')} ({hello.get('language', '?')})"]
    totals = dict.fromkeys((PASSED, FAILED, SKIPPED), 0)
    for category, counts in report.by_category().items():
        lines.append(
            f"  {category:<28} {counts[PASSED]:>6} passed {counts[FAILED]:>6} failed"
            f" {counts[SKIPPED]:>6} skipped"
        )
        for status, count in counts.items():
            totals[status] += count
    lines.append(
        f"  {'total':<28} {totals[PASSED]:>6} passed {totals[FAILED]:>6} failed"
        f" {totals[SKIPPED]:>6} skipped"
    )
    if report.client_failures:
        lines.append(f"client crashed or hung {report.client_failures} time(s) and was restarted")
    return lines


def _field_lines(kind: str, value: Any) -> list[str]:
    if kind == "bt":
        return btcodec.render_hex(value)
    if kind == "btlist" and isinstance(value, list):
        return [line for item in value for line in btcodec.render_hex(item)]
    return [json.dumps(value)]


def _side_lines(outcome: Outcome, side: str) -> list[str]:
    """Expected or actual answer as readable lines, bt fields decoded."""
    case = outcome.case
    if side == "expected":
        if case.result == "invalid":
            return [f"reason: {case.reason}"]
        answer: Any = case.expected
    else:
        answer = outcome.answer or {}
        if "reason" in answer:
            return [f"reason: {answer['reason']}"]
        if "errored" in answer:
            return ["errored:", *str(answer["errored"]).splitlines()]
        answer = answer.get("result")
        if not isinstance(answer, dict):
            return ["(no answer)"]
    kinds = OPS[case.op].result
    names = case.expected if case.expected is not None else kinds
    lines = []
    for name in names:
        if name not in answer:
            lines.append(f"{name}: (missing)")
            continue
        shown = _field_lines(kinds.get(name, "str"), answer[name])
        lines.append(f"{name}: {shown[0]}")
        lines.extend("  " + line for line in shown[1:])
    return lines


def failure_lines(outcome: Outcome) -> list[str]:
    """tcId, name, comment, flags, rules, the request and a unified diff expected -> actual."""
    case = outcome.case
    lines = [
        f"FAIL {case.label}: {outcome.message}",
        f"  comment: {case.comment}",
        f"  flags: {', '.join(case.flags) or '-'}; rules: {', '.join(case.rules) or '-'}",
        f"  result: {case.result}",
    ]
    kinds = OPS[case.op].request_kinds()
    lines.append(f"  request ({case.op}):")
    for name, value in case.request.items():
        if name == "op":
            continue
        shown = _field_lines(kinds.get(name, "str"), value)
        lines.append(f"    {name}: {shown[0]}")
        lines.extend("      " + line for line in shown[1:])
    diff = difflib.unified_diff(
        _side_lines(outcome, "expected"),
        _side_lines(outcome, "actual"),
        "expected",
        "actual",
        lineterm="",
        n=3,
    )
    lines.extend("  " + line for line in diff)
    return lines


def junit_xml(report: RunReport) -> bytes:
    """JUnit XML: one test suite per category, one test case per vector case."""
    root = ElementTree.Element("testsuites", name="swarmconf conformance")
    suites: dict[str, ElementTree.Element] = {}
    for outcome in report.outcomes:
        case = outcome.case
        suite = suites.get(case.category)
        if suite is None:
            suite = ElementTree.SubElement(root, "testsuite", name=case.category)
            suites[case.category] = suite
        element = ElementTree.SubElement(
            suite,
            "testcase",
            classname=f"conformance.{case.category}",
            name=f"{case.tc_id} {case.name}",
        )
        if outcome.status == FAILED:
            failure = ElementTree.SubElement(element, "failure", message=outcome.message)
            failure.text = "\n".join(failure_lines(outcome))
        elif outcome.status == SKIPPED:
            ElementTree.SubElement(element, "skipped", message=outcome.message)
    table = report.by_category()
    for name, suite in suites.items():
        counts = table[name]
        suite.set("tests", str(sum(counts.values())))
        suite.set("failures", str(counts[FAILED]))
        suite.set("skipped", str(counts[SKIPPED]))
        suite.set("errors", "0")
    xml: bytes = ElementTree.tostring(root, encoding="utf-8", xml_declaration=True)
    return xml
