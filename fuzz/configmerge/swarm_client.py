"""A swarm client answered by a conformance adapter: the `client` behaviour of a swarm.

The adapter protocol's `client` operation plays a script of steps on a client it starts from a
stored message, and answers each step (what it pushed and deleted, its current hashes, whether
it needs a push). It holds no state between requests, so a client through an adapter keeps its
script: each step it takes sends the whole script again and reads the last answer. Its state
key (`world.Key`) is what its answers say (needs a push, its current hash) beside what the
shadow holds: scripts that lead there are one state.

What an edit changes is the data the client holds, which no answer tells: a reference client of
the same profile, fed the same steps, holds it (`shadow`); the edit sends that data with the
batch applied, the adapter's answers decide everything the swarm sees.
"""

from __future__ import annotations

import hashlib
from typing import Any

from swarmconf.conformance import btcodec
from swarmconf.conformance.client import ClientFailure

from ..client import pooled


class AdapterError(Exception):
    """The adapter failed a `client` request, refused it or answered something malformed."""


class AdapterClient:
    """One client of a swarm, played through `command`'s `client` operation."""

    def __init__(self, command: str, timeout: float, request: dict[str, Any], shadow: Any) -> None:
        self.command = command
        self.timeout = timeout
        self.request = request
        """The `client` request without its steps: lag, profile, keys, the stored message."""
        self.shadow = shadow
        self.steps: tuple[str, ...] = ()
        self.current: list[bytes] = [
            hashlib.blake2b(bytes.fromhex(request["msg"]), digest_size=32).digest()
        ]
        self.pushing = False
        self.answer: dict[str, Any] = {}
        """The adapter's reply to the whole script so far."""

    @property
    def message(self) -> Any:
        return self.shadow.message

    @property
    def sign_key(self) -> bytes | None:
        return self.shadow.sign_key  # type: ignore[no-any-return]

    @property
    def read_only(self) -> bool:
        return self.shadow.read_only  # type: ignore[no-any-return]

    @property
    def state(self) -> Any:
        return _State("dirty" if self.pushing else "clean")

    @property
    def current_hash(self) -> bytes | None:
        return self.current[0] if self.current else None

    @property
    def to_delete(self) -> set[bytes]:
        """Unknown until it pushes: the shadow's, which took the same steps, stands in. Two
        scripts whose answers agree and whose shadows agree are one state of the checker's
        search (the client's twin judges every answer, C1)."""
        return set(self.shadow.to_delete)

    @property
    def script(self) -> dict[str, Any]:
        """The `client` request of every step taken so far."""
        return {**self.request, "steps": list(self.steps)}

    def needs_push(self) -> bool:
        return self.pushing

    def play(self, action: str, **fields: Any) -> dict[bytes, Any]:
        """Append a step, send the script, keep the last answer."""
        step = {b"do": action.encode(), **{key.encode(): value for key, value in fields.items()}}
        self.steps = (*self.steps, btcodec.encode(step).hex())
        [answer] = pooled(self.command, self.timeout).exchange(
            [{**self.request, "steps": list(self.steps)}]
        )
        if isinstance(answer, ClientFailure) or "result" not in answer:
            raise AdapterError(f"the adapter did not answer a client script: {answer}")
        self.answer = answer
        try:
            last = btcodec.decode(bytes.fromhex(answer["result"]["answers"][-1]))
            self.current = list(last[b"current"])
            self.pushing = bool(last[b"needs_push"])
        except (KeyError, IndexError, TypeError, ValueError) as error:
            raise AdapterError(f"a malformed client answer: {answer}") from error
        return last  # type: ignore[no-any-return]

    def receive(self, messages: list[bytes]) -> None:
        self.shadow.receive(messages)
        self.play("receive", msgs=list(messages))

    def edit(self, data: Any) -> None:
        self.shadow.edit(data)
        self.play("edit", data=data)

    def push(self) -> Any:
        self.shadow.push()
        answer = self.play("push")
        if b"pushed" not in answer:
            return None
        return _Push(answer[b"pushed"], answer[b"hash"], list(answer[b"deleted"]))

    def confirm(self) -> None:
        self.shadow.confirm()
        self.play("confirm")


class _State:
    def __init__(self, value: str) -> None:
        self.value = value


class _Push:
    def __init__(self, message: bytes, digest: bytes, deleted: list[bytes]) -> None:
        self.message, self.hash, self.deleted = message, digest, deleted
