"""Judging a foreign client's answer: the reference as the oracle, the spec as the judge.

The compiled reference (`builtin:reference`) is the oracle: a client agrees when it gives the
same kind of answer and, for a result, equal fields (hex compared case-insensitively), for a
refusal the same reason code. Where they differ, the spec answers the same request and decides:
when the spec and the reference differ, the reference is wrong (a swarmconf bug, the verdict's
`oracle_wrong`), and the client is judged against the spec's answer in every case.

Judged leniently (`swarmconf fuzz --lenient-reasons`, as `conformance run --lenient-reasons`),
a refusal with another reason code than the one expected is agreement, the pair of reasons
(expected, the client's) kept in the verdict's `reasons` for the campaign to count: a client
with no reason codes of its own (the deployed one: X5) can then run a clean campaign.

A declared quirk (the `quirks` of its `hello`) is judged as the conformance runner judges it:
the emulation of the deployed client (the same one that writes the vectors' `deployed` fields)
says which quirks a request triggers and what the deployed client does; when the client
declared every one of them and does the same (`valid`, `invalid`, `hang`, `abort`), the answer
is acceptable; anything else still fails.

Judging never raises: an oracle that errs, an emulation that cannot explain a difference, an
answer that cannot be read, is an `UNJUDGED` verdict saying what went wrong, which a campaign
reports as a case of its own kind.
"""

from __future__ import annotations

import json
import traceback
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from swarmconf.conformance.client import ClientFailure, Message
from swarmconf.conformance.configmerge.deployed import HANG, Behaviour, DeployedAdapter, Emulated
from swarmconf.conformance.runner import (
    FAILURE_BEHAVIOUR,
    behaves_as_deployed,
    hung_failure,
    mismatched_fields,
)

AGREED, DISAGREED, FAILED, SKIPPED, QUIRK = "agreed", "disagreed", "failed", "skipped", "quirk"
UNJUDGED = "unjudged"
Ask = Callable[[Message], Message]
"""A library's answer to a request (the spec's, as the judge)."""


@dataclass(frozen=True)
class Verdict:
    status: str
    detail: str = ""
    oracle_wrong: str = ""
    """How the oracle's answer differs from the spec's, when it does (a swarmconf bug)."""
    quirks: tuple[str, ...] = ()
    """The declared quirks that make a `QUIRK` answer acceptable."""
    reasons: tuple[str, str] | None = None
    """An `AGREED` refusal judged leniently: the expected reason code and the client's."""


class Unanswerable(Exception):
    """The oracle or the judge gave no result and no reason (it erred)."""


def answer_kind(answer: Message) -> str:
    for kind in ("result", "reason", "skipped", "errored"):
        if kind in answer:
            return kind
    return "nothing"


def differences(op: str, expected: Message, got: Any) -> list[str]:
    """Result fields of `op` where `got` differs from `expected` (missing counts as differing)."""
    return mismatched_fields(op, expected, got) if isinstance(got, dict) else ["result"]


def same_answer(op: str, expected: Message, answer: Message) -> bool:
    """Whether `answer` is `expected`: the same reason code, or a result with equal fields."""
    kind, want = answer_kind(answer), answer_kind(expected)
    if kind == want == "reason":
        return bool(answer["reason"] == expected["reason"])
    return kind == want == "result" and (
        answer["result"] == expected["result"]
        or not differences(op, expected["result"], answer["result"])
    )


def asked(library: Ask, request: Message) -> Message:
    """`library(request)`, or `errored` with the traceback of what it raised."""
    try:
        return library(request)
    except Exception as error:
        return {"errored": "".join(traceback.format_exception(error))}


def judge(
    request: Message,
    expected: Message,
    answer: Message | ClientFailure,
    quirks: frozenset[str] = frozenset(),
    spec: Ask | None = None,
    lenient: bool = False,
) -> Verdict:
    """The verdict on a client's `answer`, the oracle having answered `expected`; `spec` (when
    given) decides where they differ; `lenient` accepts any reason code for a refusal. Never
    raises: see `UNJUDGED`."""
    try:
        return judged(request, expected, answer, quirks, spec, lenient)
    except Exception as error:
        op = request.get("op") if isinstance(request, dict) else None
        return Verdict(UNJUDGED, f"{op}: {type(error).__name__}: {str(error)[:300]}")


def judged(
    request: Message,
    expected: Message,
    answer: Message | ClientFailure,
    quirks: frozenset[str],
    spec: Ask | None,
    lenient: bool = False,
) -> Verdict:
    op = request["op"]
    answerable(expected, "the oracle")
    if isinstance(answer, dict):
        answer = hung_failure(answer) or answer  # judged as the hang it stands for
    if isinstance(answer, ClientFailure):
        behaviour = declared_behaviour(request, expected, quirks)
        if behaviour is not None and behaviour.deployed["result"] == FAILURE_BEHAVIOUR.get(
            answer.kind
        ):
            detail = f"{op}: {answer.kind} as its declared quirks say"
            return Verdict(QUIRK, detail, quirks=behaviour.quirks)
        return Verdict(FAILED, f"{op}: client {answer.kind}: {answer.detail}")
    if not isinstance(answer, dict):
        raise TypeError(f"an answer is a JSON object, not {type(answer).__name__}")
    kind = answer_kind(answer)
    if kind == "skipped":
        return Verdict(SKIPPED, f"{op}: {answer['skipped']}")
    if kind == "errored":
        return Verdict(FAILED, f"{op}: client errored")
    if same_answer(op, expected, answer):
        return Verdict(AGREED)
    wrong = ""
    if spec is not None:
        truth = answerable(asked(spec, request), "the spec")
        if not same_answer(op, truth, expected):
            wrong = f"{op}: the reference {summary(expected)}, the spec {summary(truth)}"
            expected = truth
            if same_answer(op, expected, answer):
                return Verdict(AGREED, oracle_wrong=wrong)
    if lenient and kind == answer_kind(expected) == "reason":
        pair = (str(expected["reason"]), str(answer["reason"]))
        return Verdict(AGREED, f"{op}: reason {pair[1]} for {pair[0]}", wrong, reasons=pair)
    behaviour = declared_behaviour(request, expected, quirks)
    if behaviour is not None and behaves_as_deployed(
        op, behaviour.deployed, answer, strict_reasons=not lenient
    ):
        detail = f"{op}: {kind} as its declared quirks say"
        return Verdict(QUIRK, detail, wrong, behaviour.quirks)
    return Verdict(DISAGREED, f"{op}: {describe(op, expected, answer)}", wrong)


def failure_cause(request: Message, expected: Message, answer: Message | ClientFailure) -> str:
    """What a failed answer groups by: the operation, what the client did (crashed, timeout,
    garbage, errored) and what the spec answers instead (its first differing behaviour)."""
    did = answer.kind if isinstance(answer, ClientFailure) else answer_kind(answer)
    return f"{request.get('op')}: client {did} where the spec {summary(expected)}"


def answerable(answer: Message, whose: str) -> Message:
    """`answer`, which holds a result or a reason, or `Unanswerable`."""
    if answer_kind(answer) not in ("result", "reason"):
        text = str(answer.get("errored", answer)).strip().splitlines()
        raise Unanswerable(f"{whose} gave no answer: {text[-1] if text else answer}")
    return answer


def summary(answer: Message) -> str:
    if "reason" in answer:
        return f"refuses with {answer['reason']}"
    return "accepts it" if answer_kind(answer) == "result" else "answers nothing"


def describe(op: str, expected: Message, answer: Message) -> str:
    want, got = answer_kind(expected), answer_kind(answer)
    if want == "reason" and got == "reason":
        return f"reason {answer['reason']}, the spec says {expected['reason']}"
    if want == "reason":
        return f"accepted what the spec refuses with {expected['reason']}"
    if got == "reason":
        return f"refused with {answer['reason']} what the spec accepts"
    if got != "result":
        return "answer holds neither a result nor a reason"
    return "differs in " + ", ".join(differences(op, expected["result"], answer["result"]))


# The deployed client's quirks ----------------------------------------------------------------

_EMULATION: list[DeployedAdapter] = []
_EMULATED: dict[str, Emulated] = {}
EMULATED_KEPT = 20_000
"""Requests whose emulation a process keeps (then it starts over)."""


def emulation() -> DeployedAdapter:
    if not _EMULATION:
        _EMULATION.append(DeployedAdapter())
    return _EMULATION[0]


def emulated(request: Message) -> Emulated:
    """The emulation's answer to `request` and the quirks it met, computed once per request
    (by its bytes) however often a late answer or a difference asks for it: it depends on
    nothing else."""
    key = json.dumps(request, sort_keys=True)
    found = _EMULATED.get(key)
    if found is None:
        if len(_EMULATED) >= EMULATED_KEPT:
            _EMULATED.clear()
        found = _EMULATED[key] = emulation().emulate(dict(request))
    return found


def declared_hang(quirks: frozenset[str]) -> Callable[[Message], bool] | None:
    """For a client declaring `quirks`: whether the deployed client loops forever on a request
    by a quirk the client declared (a late answer is then that hang); None when it declared no
    such quirk."""
    if not quirks & {"X3"}:
        return None

    def hangs(request: Message) -> bool:
        try:
            stop = emulated(request).stop
        except Exception:
            return False
        return stop is not None and stop.result == HANG and stop.quirk in quirks

    return hangs


def deployed_behaviour(request: Message, expected: Message) -> Behaviour | None:
    """What the deployed client does on `request` where it differs from swarmconf's `expected`
    answer, and the quirks that make it differ; None where it agrees. Raises
    `deployed.Unexplained` when no quirk of the emulation explains a difference."""
    return emulated(request).against(expected)


def declared_behaviour(
    request: Message, expected: Message, quirks: frozenset[str]
) -> Behaviour | None:
    """The deployed client's behaviour on `request`, when the client declared every quirk it
    rests on; else None."""
    if not quirks:
        return None
    behaviour = deployed_behaviour(request, expected)
    if behaviour is None or not quirks >= set(behaviour.quirks):
        return None
    return behaviour


def reason_pairs(verdicts: Iterable[Verdict]) -> Counter[str]:
    """Refusals judged leniently, by pair of reasons: `expected -> client's`."""
    return Counter(f"{v.reasons[0]} -> {v.reasons[1]}" for v in verdicts if v.reasons is not None)
