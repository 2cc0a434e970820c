"""Judging a foreign client's answer against the spec's answer to the same request.

The spec (`builtin:spec`) is the oracle: a client agrees when it gives the same kind of answer
and, for a result, equal fields (hex compared case-insensitively), for a refusal the same reason
code. A declared quirk (the `quirks` of its `hello`) is judged as the conformance runner judges
it: when the request triggers that quirk and the client does what the deployed client does
(`valid`, `invalid`, `hang`, `abort`), the answer is acceptable; anything else still fails.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from swarmconf.conformance import btcodec
from swarmconf.conformance.client import ClientFailure, Message
from swarmconf.conformance.protocol import OPS

AGREED, DISAGREED, FAILED, SKIPPED, QUIRK = "agreed", "disagreed", "failed", "skipped", "quirk"
PARSING_OPS = frozenset(("parse", "hash", "serialize", "increment", "verify", "sign", "merge"))


@dataclass(frozen=True)
class Verdict:
    status: str
    detail: str = ""


def answer_kind(answer: Message) -> str:
    for kind in ("result", "reason", "skipped", "errored"):
        if kind in answer:
            return kind
    return "nothing"


def normal(kind: str, value: Any) -> Any:
    if kind in ("hex", "hex?", "bt") and isinstance(value, str):
        return value.lower()
    if kind == "btlist" and isinstance(value, list):
        return [normal("bt", item) for item in value]
    return value


def differences(op: str, expected: Message, got: Any) -> list[str]:
    """Result fields of `op` where `got` differs from `expected` (missing counts as differing)."""
    if not isinstance(got, dict):
        return ["result"]
    kinds = OPS[op].result
    return [
        name
        for name, value in expected.items()
        if name not in got or normal(kinds[name], got[name]) != normal(kinds[name], value)
    ]


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
        if (behaviour, answer.kind) in (("hang", "timeout"), ("abort", "crashed")):
            return Verdict(QUIRK, f"{op}: {answer.kind} as its declared quirk says")
        return Verdict(FAILED, f"{op}: client {answer.kind}: {answer.detail}")
    kind = answer_kind(answer)
    if kind == "skipped":
        return Verdict(SKIPPED, f"{op}: {answer['skipped']}")
    if kind == "errored":
        return Verdict(FAILED, f"{op}: client errored")
    want = answer_kind(expected)
    if kind == want == "reason" and answer["reason"] == expected["reason"]:
        return Verdict(AGREED)
    if kind == want == "result" and not differences(op, expected["result"], answer["result"]):
        return Verdict(AGREED)
    behaviour = declared_behaviour(request, expected, quirks)
    if (behaviour, kind) in (("valid", "result"), ("invalid", "reason")):
        return Verdict(QUIRK, f"{op}: {kind} as its declared quirk says")
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


# Quirks a fuzzed request can trigger (decisions X1, X3, X4, X10) -------------------------------


def declared_behaviour(request: Message, expected: Message, quirks: frozenset[str]) -> str | None:
    """What the deployed client does on `request`, for the first triggered quirk it declares."""
    if not quirks:
        return None
    for quirk, behaviour in triggered(request, expected):
        if quirk in quirks:
            return behaviour
    return None


def triggered(request: Message, expected: Message) -> Iterator[tuple[str, str]]:
    """(quirk, deployed behaviour) for each quirk `request` triggers."""
    op = request["op"]
    reason = expected.get("reason")
    messages = request_messages(request)
    if op in PARSING_OPS and any(integer_in_diff(message) for message in messages):
        yield "X3", "hang"
    lag = request.get("lag")
    if op in PARSING_OPS and isinstance(lag, int) and lag <= 0:
        yield "X4", "abort" if op == "merge" and len(messages) > 1 else "valid"
    if isinstance(reason, str) and reason.startswith("BT_") and any(map(lenient, messages)):
        yield "X1", "valid"
    if isinstance(reason, str):
        yield "X10", "invalid"


def request_messages(request: Message) -> list[bytes]:
    texts = request.get("msgs") if request["op"] == "merge" else [request.get("msg")]
    if not isinstance(texts, list):
        return []
    return [bytes.fromhex(text) for text in texts if isinstance(text, str)]


def lenient(message: bytes) -> bool:
    """X1: the deployed client's decoder reads a dict from the message, trailing bytes ignored."""
    try:
        value, _ = btcodec._decode_at(message, 0, 0)
    except (btcodec.BtDecodeError, RecursionError):
        return False
    return isinstance(value, dict)


def integer_in_diff(message: bytes) -> bool:
    """X3: an integer value anywhere inside the `=` diff or a lagged entry's diff."""
    try:
        top = btcodec.decode(message)
    except (btcodec.BtDecodeError, RecursionError):
        return False
    if not isinstance(top, dict):
        return False
    diffs = [top.get(b"=")]
    lagged = top.get(b"<")
    if isinstance(lagged, list):
        diffs += [entry[2] for entry in lagged if isinstance(entry, list) and len(entry) == 3]
    return any(isinstance(diff, dict) and holds_integer_value(diff) for diff in diffs)


def holds_integer_value(diff: dict[bytes, Any]) -> bool:
    return any(
        isinstance(value, int) or (isinstance(value, dict) and holds_integer_value(value))
        for value in diff.values()
    )
