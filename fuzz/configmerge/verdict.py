"""Judging a foreign client's answer against the spec's answer to the same request.

The spec (`builtin:spec`) is the oracle: a client agrees when it gives the same kind of answer
and, for a result, equal fields (hex compared case-insensitively), for a refusal the same reason
code. A declared quirk (the `quirks` of its `hello`) is judged as the conformance runner judges
it: the emulation of the deployed client (the same one that writes the vectors' `deployed`
fields) says which quirks a request triggers and what the deployed client does; when the client
declared every one of them and does the same (`valid`, `invalid`, `hang`, `abort`), the answer
is acceptable; anything else still fails.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from swarmconf.conformance.client import ClientFailure, Message
from swarmconf.conformance.configmerge.deployed import Behaviour, DeployedAdapter
from swarmconf.conformance.runner import FAILURE_BEHAVIOUR, behaves_as_deployed, mismatched_fields

AGREED, DISAGREED, FAILED, SKIPPED, QUIRK = "agreed", "disagreed", "failed", "skipped", "quirk"


@dataclass(frozen=True)
class Verdict:
    status: str
    detail: str = ""


def answer_kind(answer: Message) -> str:
    for kind in ("result", "reason", "skipped", "errored"):
        if kind in answer:
            return kind
    return "nothing"


def differences(op: str, expected: Message, got: Any) -> list[str]:
    """Result fields of `op` where `got` differs from `expected` (missing counts as differing)."""
    return mismatched_fields(op, expected, got) if isinstance(got, dict) else ["result"]


def judge(
    request: Message,
    expected: Message,
    answer: Message | ClientFailure,
    quirks: frozenset[str] = frozenset(),
) -> Verdict:
    """The verdict on a client's `answer`, the spec having answered `expected`."""
    op = request["op"]
    if isinstance(answer, ClientFailure):
        behaviour = declared_behaviour(request, expected, quirks)
        if behaviour is not None and behaviour.deployed["result"] == FAILURE_BEHAVIOUR.get(
            answer.kind
        ):
            return Verdict(QUIRK, f"{op}: {answer.kind} as its declared quirks say")
        return Verdict(FAILED, f"{op}: client {answer.kind}: {answer.detail}")
    kind = answer_kind(answer)
    if kind == "skipped":
        return Verdict(SKIPPED, f"{op}: {answer['skipped']}")
    if kind == "errored":
        return Verdict(FAILED, f"{op}: client errored")
    want = answer_kind(expected)
    if kind == want == "reason" and answer["reason"] == expected["reason"]:
        return Verdict(AGREED)
    if kind == want == "result" and (
        answer["result"] == expected["result"]
        or not differences(op, expected["result"], answer["result"])
    ):
        return Verdict(AGREED)
    behaviour = declared_behaviour(request, expected, quirks)
    if behaviour is not None and behaves_as_deployed(op, behaviour.deployed, answer):
        return Verdict(QUIRK, f"{op}: {kind} as its declared quirks say")
    return Verdict(DISAGREED, f"{op}: {describe(op, expected, answer)}")


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


def deployed_behaviour(request: Message, expected: Message) -> Behaviour | None:
    """What the deployed client does on `request` where it differs from the spec's `expected`
    answer, and the quirks that make it differ; None where it agrees."""
    if not _EMULATION:
        _EMULATION.append(DeployedAdapter())
    return _EMULATION[0].behaviour(dict(request), expected)


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
