"""Drive a client through vector cases of either design and grade each answer.

The grades:

- `passed`: a `valid` case got a result whose fields equal `expected`; an `invalid` case got a
  reason (the same code, unless reasons are compared leniently) and, where the case has an
  `expected` state, that state too; an `acceptable` case got either;
- `acceptable`: the case is flagged with quirks of the deployed client, the client declared
  every one of them in its `hello`, and it did what the case's `deployed` says (a result, a
  refusal, a hang or an abort);
- `failed`: anything else, including a crash, a hang or garbage;
- `skipped`: the client answered `skipped` to an operation it claims (never checked, so the run
  fails);
- `not applicable`: the client's `hello` lists the operations or encryption profiles it
  supports, and the case needs another one, declares that it supports the case's operation
  only without a request field or a flag the case has (`partial`), or declares in `limits`
  that its API cannot express the case's input.

A client that crashes or hangs is restarted for the next case. Hex is compared
case-insensitively.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from swarmconf.conformance.client import Client, ClientFailure, Message
from swarmconf.conformance.hello import Declarations, check_hello
from swarmconf.conformance.protocol import HUNG
from swarmconf.conformance.recipes import expand_fields, is_digest, matches_digest
from swarmconf.conformance.registry import all_ops
from swarmconf.conformance.vectors import Case

PASSED, ACCEPTABLE, FAILED, SKIPPED, NOT_APPLICABLE = (
    "passed",
    "acceptable",
    "failed",
    "skipped",
    "not applicable",
)
GRADES = (PASSED, ACCEPTABLE, FAILED, SKIPPED, NOT_APPLICABLE)
# After this many unexpected crashes or timeouts in a row the remaining cases fail unrun.
MAX_CONSECUTIVE_CLIENT_FAILURES = 10
FAILURE_BEHAVIOUR = {"timeout": "hang", "crashed": "abort"}
"""A client failure and the deployed behaviour it matches."""


UNDECLARED = Declarations()
"""A client that declares nothing: every case applies, and is graded strictly."""


def hung_failure(answer: Message) -> ClientFailure | None:
    """A `hung` answer as the timeout it stands for (graded as a hang), else None."""
    if HUNG not in answer:
        return None
    return ClientFailure("timeout", f"the adapter says the client hangs: {answer[HUNG]}")


@dataclass(frozen=True)
class Outcome:
    """The grade of one case, a one-line `message`, and the client's answer."""

    case: Case
    status: str
    message: str = ""
    answer: Message | None = None


@dataclass
class RunReport:
    hello: Message
    notes: list[str] = field(default_factory=list)
    """What the runner ignored or missed in `hello`, one line each."""
    outcomes: list[Outcome] = field(default_factory=list)
    client_failures: int = 0

    @property
    def failed(self) -> list[Outcome]:
        return [outcome for outcome in self.outcomes if outcome.status == FAILED]

    @property
    def ok(self) -> bool:
        """No case failed or was skipped, and at least one was checked."""
        counts = self.totals()
        checked = counts[PASSED] + counts[ACCEPTABLE]
        return not counts[FAILED] and not counts[SKIPPED] and checked > 0

    def by_suite(self) -> dict[str, dict[str, int]]:
        """Counts of every grade per suite, in first-seen order."""
        table: dict[str, dict[str, int]] = {}
        for outcome in self.outcomes:
            counts = table.setdefault(outcome.case.suite, dict.fromkeys(GRADES, 0))
            counts[outcome.status] += 1
        return table

    def totals(self) -> dict[str, int]:
        totals = dict.fromkeys(GRADES, 0)
        for outcome in self.outcomes:
            totals[outcome.status] += 1
        return totals


def _normal(kind: str, value: Any) -> Any:
    if kind in ("hex", "hex?", "bt") and isinstance(value, str):
        return value.lower()
    if kind in ("btlist", "hexlist") and isinstance(value, list):
        return [_normal("bt", item) for item in value]
    return value


def _same(kind: str, expected: Any, given: Any) -> bool:
    """Whether a client's field matches the expected one (a digest: by its size and hash)."""
    if is_digest(expected):
        return matches_digest(expected, given)
    if isinstance(expected, list) and any(is_digest(item) for item in expected):
        return (
            isinstance(given, list)
            and len(given) == len(expected)
            and all(_same("bt", want, got) for want, got in zip(expected, given, strict=True))
        )
    return bool(_normal(kind, given) == _normal(kind, expected))


def mismatched_fields(op: str, expected: dict[str, Any], result: Message) -> list[str]:
    """Names of expected fields the result gets wrong (missing counts as wrong)."""
    declared = all_ops().get(op)
    kinds = declared.result if declared is not None else {}
    return [
        name
        for name, value in expected.items()
        if name not in result or not _same(kinds.get(name, "json"), value, result[name])
    ]


def strict_grade(case: Case, answer: Message, *, strict_reasons: bool = True) -> tuple[str, str]:
    """(PASSED or FAILED, why) for an answer judged against the vector alone."""
    reason = answer.get("reason")
    result = answer.get("result")
    if reason is not None:
        if case.result == "valid":
            return FAILED, f"refused a valid input with {reason}"
        if case.result == "invalid" and strict_reasons and reason != case.reason:
            return FAILED, f"reason {reason}, expected {case.reason}"
        if case.result == "invalid" and case.expected is not None:
            wrong = mismatched_fields(case.op, case.expected, result or {})
            if wrong:
                return FAILED, f"refused as expected, but wrong {', '.join(wrong)}"
        return PASSED, ""
    if not isinstance(result, dict):
        return FAILED, "answer holds neither a result nor a reason"
    if case.result == "invalid":
        return FAILED, f"accepted an invalid input (expected {case.reason})"
    assert case.expected is not None
    wrong = mismatched_fields(case.op, case.expected, result)
    if wrong:
        return FAILED, "wrong " + ", ".join(wrong)
    return PASSED, ""


def behaves_as_deployed(
    op: str, deployed: dict[str, Any], answer: Message, *, strict_reasons: bool = True
) -> bool:
    """Does the answer do what `deployed` (a case's field) says the deployed client does?"""
    if deployed.get("result") == "valid":
        result = answer.get("result")
        return isinstance(result, dict) and not mismatched_fields(op, deployed["expected"], result)
    if deployed.get("result") == "invalid" and "reason" in answer:
        return not strict_reasons or answer["reason"] == deployed.get("reason")
    return False


def judge(
    case: Case,
    answer: Message,
    *,
    strict_reasons: bool = True,
    declared: Declarations = UNDECLARED,
) -> Outcome:
    """The grade of `answer` (a protocol response) to `case`; a `hung` answer is a hang."""
    hung = hung_failure(answer)
    if hung is not None:
        return judge_failure(case, hung, declared)
    if "skipped" in answer:
        return Outcome(case, SKIPPED, f"client skipped: {answer['skipped']}", answer)
    if "errored" in answer:
        return Outcome(case, FAILED, "client errored", answer)
    status, message = strict_grade(case, answer, strict_reasons=strict_reasons)
    if status == FAILED and declared.excuses(case):
        deployed = case.deployed or {}
        if behaves_as_deployed(case.op, deployed, answer, strict_reasons=strict_reasons):
            return Outcome(case, ACCEPTABLE, f"as declared quirks {', '.join(case.quirks)}", answer)
        return Outcome(case, FAILED, f"{message}; nor as its declared quirks", answer)
    return Outcome(case, status, message, answer)


def judge_failure(case: Case, failure: ClientFailure, declared: Declarations) -> Outcome:
    """The grade of a case the client crashed or hung on."""
    behaviour = FAILURE_BEHAVIOUR.get(failure.kind)
    if declared.excuses(case) and behaviour == (case.deployed or {}).get("result"):
        return Outcome(
            case, ACCEPTABLE, f"{behaviour}s, as declared quirks {', '.join(case.quirks)}"
        )
    return Outcome(case, FAILED, f"client {failure.kind}: {failure.detail}")


def run_cases(
    client: Client,
    cases: Iterable[Case],
    *,
    strict_reasons: bool = True,
    hang_timeout: float | None = None,
    on_outcome: Callable[[Outcome], None] | None = None,
) -> RunReport:
    """Run every case on a started-here client; the client is closed at the end.

    A case whose declared quirks make the deployed client hang waits `hang_timeout` seconds (the
    client's own timeout when None) before the hang is taken as the declared behaviour.
    """
    hello = client.start()
    try:
        notes = check_hello(hello)
    except ClientFailure:
        client.close()
        raise
    report = RunReport(hello=hello, notes=notes)
    declared = Declarations.of(hello)
    given_up = ""
    in_a_row = 0
    try:
        for case in cases:
            why_not = declared.not_applicable(case)
            if why_not:
                outcome = Outcome(case, NOT_APPLICABLE, why_not)
            elif given_up:
                outcome = Outcome(case, FAILED, given_up)
            else:
                expects_hang = declared.excuses(case) and (case.deployed or {}).get("result") in (
                    "hang",
                    "abort",
                )
                timeout = hang_timeout if expects_hang else None
                try:
                    answer = client.request(expand_fields(case.request), timeout=timeout)
                    outcome = judge(case, answer, strict_reasons=strict_reasons, declared=declared)
                    in_a_row = 0
                except ClientFailure as failure:
                    report.client_failures += 1
                    outcome = judge_failure(case, failure, declared)
                    in_a_row = 0 if outcome.status == ACCEPTABLE else in_a_row + 1
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
