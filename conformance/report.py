"""Presenting a run: the client, per-suite counts of every grade, readable failure details,
JUnit XML and a JSON report."""

from __future__ import annotations

import difflib
import json
import re
import xml.etree.ElementTree as ElementTree
from typing import Any

from swarmconf.conformance import btcodec
from swarmconf.conformance.registry import all_ops
from swarmconf.conformance.runner import (
    ACCEPTABLE,
    FAILED,
    GRADES,
    NOT_APPLICABLE,
    SKIPPED,
    Outcome,
    RunReport,
)

UNPRINTABLE = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
"""Characters XML 1.0 cannot hold, even escaped, and lone surrogates no terminal can print: a
client's answer may contain any."""


def _printable(text: str) -> str:
    """`text` with each character of `UNPRINTABLE` written as its `\\x`/`\\u` escape."""
    return UNPRINTABLE.sub(lambda match: ascii(match.group())[1:-1], text)


def client_line(hello: dict[str, Any]) -> str:
    """The client as its `hello` names it: name, version, language, declared quirks and the
    operations it supports in part."""
    line = f"client: {hello.get('name', '?')} {hello.get('version', '')}".rstrip()
    line += f" ({hello.get('language', '?')})"
    quirks = hello.get("quirks")
    if quirks:
        line += f"; declares quirks {', '.join(map(str, quirks))}"
    partial = hello.get("partial")
    if partial:
        parts = (f"{op} without {', '.join(map(str, lacking))}" for op, lacking in partial.items())
        line += f"; supports {'; '.join(parts)}"
    return _printable(line)


def _counts_line(label: str, counts: dict[str, int]) -> str:
    return f"  {label:<28}" + "".join(f" {counts[grade]:>6} {grade}" for grade in GRADES)


def summary_lines(report: RunReport) -> list[str]:
    """The client and what its `hello` left the runner to ignore, one line per suite and a
    total line."""
    lines = [client_line(report.hello)]
    lines += [_printable(f"  note: {note}") for note in report.notes]
    lines += [_counts_line(name, counts) for name, counts in report.by_suite().items()]
    lines.append(_counts_line("total", report.totals()))
    if report.client_failures:
        lines.append(f"client crashed or hung {report.client_failures} time(s) and was restarted")
    return lines


def _field_lines(kind: str, value: Any) -> list[str]:
    """A field's value as at least one readable line."""
    if kind == "bt" and isinstance(value, str):
        return btcodec.render_hex(value) or [json.dumps(value)]
    if kind == "btlist" and isinstance(value, list) and value:
        return [line for item in value for line in btcodec.render_hex(item)]
    if kind == "json" and isinstance(value, (dict, list)) and value:
        # One element per line, keys sorted, so the diff points at what differs.
        return json.dumps(value, indent=1, sort_keys=True).splitlines()
    return [json.dumps(value)]


def _named_lines(name: str, value: Any, kind: str, indent: str) -> list[str]:
    """`name: value`, a value of several lines continued below, indented."""
    first, *rest = _field_lines(kind, value)
    return [f"{indent}{name}: {first}", *(f"{indent}  {line}" for line in rest)]


def _side_lines(outcome: Outcome, side: str) -> list[str]:
    """Expected or actual answer as readable lines, bt fields decoded."""
    case = outcome.case
    if side == "expected":
        if case.result == "invalid" and case.expected is None:
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
    if not isinstance(answer, dict):
        return [json.dumps(answer)]
    op = all_ops().get(case.op)
    kinds = op.result if op is not None else {}
    names = case.expected if isinstance(case.expected, dict) else kinds
    lines = []
    for name in names:
        if name not in answer:
            lines.append(f"{name}: (missing)")
            continue
        lines.extend(_named_lines(name, answer[name], kinds.get(name, "json"), ""))
    return lines


def failure_lines(outcome: Outcome) -> list[str]:
    """tcId, name, comment, flags, rules, the request and a unified diff expected -> actual."""
    case = outcome.case
    lines = [
        f"FAIL {case.label}: {outcome.message}",
        f"  comment: {case.comment}",
        f"  flags: {', '.join(case.flags) or '-'}; rules: {', '.join(case.rules) or '-'}",
        f"  result: {case.result}" + (f" ({case.reason})" if case.reason else ""),
    ]
    if case.deployed is not None:
        deployed = case.deployed.get("result") if isinstance(case.deployed, dict) else None
        lines.append(f"  the deployed client ({', '.join(case.quirks)}): {deployed}")
    op = all_ops().get(case.op)
    kinds = op.request_kinds() if op is not None else {}
    lines.append(f"  request ({case.op}):")
    for name, value in case.request.items():
        if name != "op":
            lines.extend(_named_lines(name, value, kinds.get(name, "json"), "    "))
    diff = difflib.unified_diff(
        _side_lines(outcome, "expected"),
        _side_lines(outcome, "actual"),
        "expected",
        "actual",
        lineterm="",
        n=3,
    )
    lines.extend("  " + line for line in diff)
    return [_printable(line) for line in lines]


def junit_xml(report: RunReport) -> bytes:
    """JUnit XML: a JUnit test suite per vector suite, a test case per vector case."""
    root = ElementTree.Element("testsuites", name="swarmconf conformance")
    suites: dict[str, ElementTree.Element] = {}
    for outcome in report.outcomes:
        case = outcome.case
        suite = suites.get(case.suite)
        if suite is None:
            suite = ElementTree.SubElement(root, "testsuite", name=_printable(case.suite))
            suites[case.suite] = suite
        element = ElementTree.SubElement(
            suite,
            "testcase",
            classname=_printable(f"conformance.{case.suite}"),
            name=_printable(f"{case.tc_id} {case.name}"),
        )
        message = _printable(outcome.message)
        if outcome.status == FAILED:
            failure = ElementTree.SubElement(element, "failure", message=message)
            failure.text = "\n".join(failure_lines(outcome))
        elif outcome.status in (SKIPPED, NOT_APPLICABLE):
            ElementTree.SubElement(element, "skipped", message=message)
        elif outcome.status == ACCEPTABLE:
            ElementTree.SubElement(element, "system-out").text = message
    table = report.by_suite()
    for name, suite in suites.items():
        counts = table[name]
        suite.set("tests", str(sum(counts.values())))
        suite.set("failures", str(counts[FAILED]))
        suite.set("skipped", str(counts[SKIPPED] + counts[NOT_APPLICABLE]))
        suite.set("errors", "0")
    xml: bytes = ElementTree.tostring(root, encoding="utf-8", xml_declaration=True)
    return xml


def json_report(report: RunReport) -> bytes:
    """The client's `hello`, the counts per suite and every case's grade, as JSON."""
    document = {
        "client": report.hello,
        "notes": report.notes,
        "ok": bool(report.ok),
        "totals": report.totals(),
        "suites": report.by_suite(),
        "clientFailures": report.client_failures,
        "cases": [
            {
                "suite": outcome.case.suite,
                "tcId": outcome.case.tc_id,
                "name": outcome.case.name,
                "grade": outcome.status,
                **({"message": outcome.message} if outcome.message else {}),
            }
            for outcome in report.outcomes
        ],
    }
    return (json.dumps(document, indent=1) + "\n").encode()
