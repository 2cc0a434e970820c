"""Drive a client through vector cases and judge each answer against the vector.

A case passes when a `valid` case gets a result whose fields equal `expected`, an `invalid` case
gets a reason (the same code, unless reasons are compared leniently), and an `acceptable` case
gets either. Hex is compared case-insensitively. A client that crashes or hangs fails the case it
was answering and is restarted for the next one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from swarmconf.conformance.client import Client, ClientFailure, Message
from swarmconf.conformance.protocol import OPS, PROTOCOL_VERSION
from swarmconf.conformance.vectorfile import Case

PASSED, FAILED, SKIPPED = "passed", "failed", "skipped"
# After this many crashes or timeouts in a row the remaining cases are failed without running.
MAX_CONSECUTIVE_CLIENT_FAILURES = 10


@dataclass(frozen=True)
class Outcome:
    """The verdict on one case: `status`, a one-line `message`, and the client's answer."""

    case: Case
    status: str
    message: str = ""
    answer: Message | None = None


@dataclass
class RunReport:
    hello: Message
    outcomes: list[Outcome] = field(default_factory=list)
    client_failures: int = 0

    @property
    def failed(self) -> list[Outcome]:
        return [outcome for outcome in self.outcomes if outcome.status == FAILED]

    def by_category(self) -> dict[str, dict[str, int]]:
        """Counts of passed, failed and skipped cases per category, in first-seen order."""
        table: dict[str, dict[str, int]] = {}
        for outcome in self.outcomes:
            counts = table.setdefault(
                outcome.case.category, dict.fromkeys((PASSED, FAILED, SKIPPED), 0)
            )
            counts[outcome.status] += 1
        return table


def _normal(kind: str, value: Any) -> Any:
    if kind in ("hex", "hex?", "bt") and isinstance(value, str):
        return value.lower()
    if kind == "btlist" and isinstance(value, list):
        return [_normal("bt", item) for item in value]
    return value


def mismatched_fields(case: Case, result: Message) -> list[str]:
    """Names of expected fields the result gets wrong (missing counts as wrong)."""
    assert case.expected is not None
    kinds = OPS[case.op].result
    return [
        name
        for name, value in case.expected.items()
        if name not in result or _normal(kinds[name], result[name]) != value
    ]


def judge(case: Case, answer: Message, *, strict_reasons: bool = True) -> Outcome:
    """The verdict on `answer` (a protocol response) to `case`."""
    if "skipped" in answer:
        return Outcome(case, SKIPPED, f"client skipped: {answer['skipped']}", answer)
    if "errored" in answer:
        return Outcome(case, FAILED, "client errored", answer)
    reason = answer.get("reason")
    result = answer.get("result")
    if reason is not None:
        if case.result == "valid":
            return Outcome(case, FAILED, f"refused a valid input with {reason}", answer)
        if case.result == "invalid" and strict_reasons and reason != case.reason:
            return Outcome(case, FAILED, f"reason {reason}, expected {case.reason}", answer)
        return Outcome(case, PASSED, answer=answer)
    if not isinstance(result, dict):
        return Outcome(case, FAILED, "answer holds neither a result nor a reason", answer)
    if case.result == "invalid":
        return Outcome(case, FAILED, f"accepted an invalid input (expected {case.reason})", answer)
    wrong = mismatched_fields(case, result)
    if wrong:
        return Outcome(case, FAILED, "wrong " + ", ".join(wrong), answer)
    return Outcome(case, PASSED, answer=answer)


def run_cases(
    client: Client,
    cases: Iterable[Case],
    *,
    strict_reasons: bool = True,
    on_outcome: Callable[[Outcome], None] | None = None,
) -> RunReport:
    """Run every case on a started-here client; the client is closed at the end."""
    report = RunReport(hello=client.start())
    if report.hello.get("protocol", PROTOCOL_VERSION) != PROTOCOL_VERSION:
        client.close()
        raise ClientFailure("speaks another protocol", f"hello: {report.hello}")
    supported = report.hello.get("ops")
    given_up = ""
    in_a_row = 0
    try:
        for case in cases:
            if given_up:
                outcome = Outcome(case, FAILED, given_up)
            elif isinstance(supported, list) and case.op not in supported:
                outcome = Outcome(case, SKIPPED, f"client does not support op {case.op!r}")
            else:
                try:
                    outcome = judge(
                        case, client.request(case.request), strict_reasons=strict_reasons
                    )
                    in_a_row = 0
                except ClientFailure as failure:
                    report.client_failures += 1
                    in_a_row += 1
                    outcome = Outcome(case, FAILED, f"client {failure.kind}: {failure.detail}")
                    if in_a_row >= MAX_CONSECUTIVE_CLIENT_FAILURES:
                        given_up = f"not run: the client failed {in_a_row} times in a row"
                    else:
                        try:
                            client.restart()
                        except ClientFailure as restart:
                            given_up = f"not run: the client could not be restarted ({restart})"
            report.outcomes.append(outcome)
            if on_outcome is not None:
                on_outcome(outcome)
    finally:
        client.close()
    return report
