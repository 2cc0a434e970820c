"""A swarm client answered by a conformance adapter: the `client` behaviour of a swarm.

The adapter protocol's `client` operation plays a script of steps on a client it starts from a
stored message, and answers each step: what it pushed and deleted, and the client's state after
it (its current hashes, whether it needs a push, its message as it would push it, the hashes
its next push deletes). It holds no state between requests, so a client through an adapter
keeps its script: each step it takes sends the whole script again and reads the last answer.

The client is what its last answer says: its state key (`world.Key`) is that answer, so scripts
that lead to one answered state are one state of the checker's search, and the data an edit
changes (and P1 and P4 read) is the data of the message it answered. Only its keys, and so
whether it is read-only (D32), come from the request it was made with.

A poll the adapter refuses is a merge that throws. The app around a client catches that, the
client as it was: where the client declares X19 and the refusal is `NO_VALID_MESSAGE` (the
deployed client's merge throws it on a poll with nothing valid while it holds a message of
seqno 0), the poll changes nothing, as it changes nothing in the spec's client (D29); any other
refusal of a poll is raised as the client's error (the world reports it, P6).
"""

from __future__ import annotations

import hashlib
from typing import Any, NamedTuple

from swarmconf.conformance import btcodec
from swarmconf.conformance.client import ClientFailure
from swarmconf.spec.configmerge import parse

from ..client import pooled

CAUGHT_QUIRK, CAUGHT_REASON = "X19", "NO_VALID_MESSAGE"
"""The refusal of a poll the app catches, the client as it was, from a client declaring X19."""


class AdapterError(Exception):
    """The adapter failed a `client` request (it crashed, hung or answered something
    malformed); `quirk`, where the deployed client stops there too by a quirk the client
    declared (an abort or a hang: acceptable)."""

    def __init__(self, detail: str, quirk: str | None = None) -> None:
        super().__init__(detail)
        self.quirk = quirk

    @property
    def finding(self) -> str:
        """C2, led by the declared quirk that explains it, if one does."""
        if self.quirk is None:
            return f"C2 {self}"
        return f"{self.quirk} C2 {self} (as the deployed client does)"


class Refused(Exception):
    """The adapter refused a step with a reason code: the client's own error."""

    def __init__(self, reason: str, action: str) -> None:
        super().__init__(f"{reason}: the adapter refused a client script at its {action}")
        self.reason = reason


class Answered:
    """The message a client answered (`msg`), as the world reads a client's message: its bytes
    as the client would push them, and its data, parsed from them when an edit asks."""

    def __init__(self, raw: bytes, lag: int) -> None:
        self.raw = raw
        self.lag = lag

    def serialize(self, sign_key: bytes | None) -> bytes:
        """The bytes the client answered (signed already if it signs)."""
        return self.raw

    @property
    def data(self) -> Any:
        """Its data (none with no message); a message that does not parse raises its error."""
        return {} if not self.raw else parse(self.raw, lag=self.lag).data


class Answer(NamedTuple):
    """A client's state as its last answer says it."""

    current: tuple[bytes, ...]
    needs_push: bool
    message: Answered
    to_delete: frozenset[bytes]


class AdapterClient:
    """One client of a swarm, played through `command`'s `client` operation."""

    def __init__(
        self, command: str, timeout: float, request: dict[str, Any], quirks: frozenset[str]
    ) -> None:
        self.command = command
        self.timeout = timeout
        self.request = request
        """The `client` request without its steps: lag, profile, keys, the stored message."""
        self.quirks = quirks
        """The quirks the adapter declares (X19: a poll's refusal the app catches)."""
        self.steps: tuple[str, ...] = ()
        self.answers: list[str] = []
        """The adapter's answers to the script, as it sent them."""
        stored = bytes.fromhex(request["msg"])
        self.answer = Answer(
            (hashlib.blake2b(stored, digest_size=32).digest(),),
            False,
            Answered(stored, request["lag"]),
            frozenset(),
        )
        """Before any step, the client the request starts: clean, holding the stored message."""

    @property
    def sign_key(self) -> bytes | None:
        text = self.request.get("sign_key")
        return None if text is None else bytes.fromhex(text)

    @property
    def read_only(self) -> bool:
        return "verify_key" in self.request and "sign_key" not in self.request

    @property
    def message(self) -> Answered:
        return self.answer.message

    @property
    def state(self) -> Any:
        return _State("dirty" if self.answer.needs_push else "clean")

    @property
    def current_hash(self) -> bytes | None:
        return self.answer.current[0] if self.answer.current else None

    @property
    def to_delete(self) -> frozenset[bytes]:
        return self.answer.to_delete

    def needs_push(self) -> bool:
        return self.answer.needs_push

    def play(self, action: str, **fields: Any) -> dict[bytes, Any]:
        """Append a step, send the script, keep the last answer."""
        step = {b"do": action.encode(), **{key.encode(): value for key, value in fields.items()}}
        steps = (*self.steps, btcodec.encode(step).hex())
        request = {**self.request, "steps": list(steps)}
        [answer] = pooled(self.command, self.timeout).exchange([request])
        if isinstance(answer, ClientFailure) or "result" not in answer:
            reason = None if isinstance(answer, ClientFailure) else answer.get("reason")
            if isinstance(reason, str):
                raise Refused(reason, action)
            raise AdapterError(
                f"the adapter did not answer a client script: {answer}", self.stops(request)
            )
        try:
            answers = list(answer["result"]["answers"])
            last = btcodec.decode(bytes.fromhex(answers[-1]))
            self.answer = Answer(
                tuple(last[b"current"]),
                bool(last[b"needs_push"]),
                Answered(bytes(last[b"msg"]), self.request["lag"]),
                frozenset(last[b"to_delete"]),
            )
        except (KeyError, IndexError, TypeError, ValueError) as error:
            raise AdapterError(f"a malformed client answer: {answer}") from error
        self.steps, self.answers = steps, answers
        return last  # type: ignore[no-any-return]

    def stops(self, request: dict[str, Any]) -> str | None:
        """The declared quirk by which the deployed client (its emulation) aborts or hangs on
        `request`, if it does."""
        from .verdict import emulated

        stop = emulated(request).stop if self.quirks else None
        return stop.quirk if stop is not None and stop.quirk in self.quirks else None

    def as_deployed(self, finding: str) -> tuple[str, ...]:
        """`finding`, led by each quirk the deployed client (its emulation) meets on this
        client's script, where it answers the script as the adapter did and the client
        declared every such quirk (acceptable findings); else ()."""
        from .verdict import emulated

        if not self.quirks or not self.steps:
            return ()
        found = emulated({**self.request, "steps": list(self.steps)})
        result = (found.answer or {}).get("result") or {}
        same = [text.lower() for text in result.get("answers", [])] == [
            text.lower() for text in self.answers
        ]
        if not same or not found.fired or not found.fired <= self.quirks:
            return ()
        quirks = sorted(found.fired, key=lambda quirk: int(quirk[1:]))
        return tuple(f"{quirk} {finding} (as the deployed client answers)" for quirk in quirks)

    def receive(self, messages: list[bytes]) -> None:
        try:
            self.play("receive", msgs=list(messages))
        except Refused as refused:
            if refused.reason != CAUGHT_REASON or CAUGHT_QUIRK not in self.quirks:
                raise

    def edit(self, data: Any) -> None:
        self.play("edit", data=data)

    def push(self) -> Any:
        answer = self.play("push")
        if b"pushed" not in answer:
            return None
        return _Push(answer[b"pushed"], answer[b"hash"], list(answer[b"deleted"]))

    def confirm(self) -> None:
        self.play("confirm")


class _State:
    def __init__(self, value: str) -> None:
        self.value = value


class _Push:
    def __init__(self, message: bytes, digest: bytes, deleted: list[bytes]) -> None:
        self.message, self.hash, self.deleted = message, digest, deleted
