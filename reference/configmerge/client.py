"""The client around the message layer (D28..D32), as `swarmconf.spec.configmerge.client`
states it: `Client` with `receive`, `edit`, `push`, `confirm`, `needs_push` and
`current_hashes`, under the profile `spec` (rule 8) or `libsession` (the deployed client's
conflict push, no-op edits and verifying signer: X17, X18, X20)."""

from __future__ import annotations

import contextlib
from enum import Enum
from typing import Any, NamedTuple

from swarmconf.spec.configmerge.reasons import ConfigError, Reason, UsageError

from . import crypto
from .merge import merge_parsed
from .message import ConfigMessage, blake2b, check_lag, parse
from .payload import obsolete_after_merge

PROFILES = ("spec", "libsession")


class State(Enum):
    CLEAN = "clean"
    DIRTY = "dirty"
    WAITING = "waiting"


class Push(NamedTuple):
    message: bytes
    seqno: int
    hash: bytes
    deleted: list[bytes]


class Client:
    """One client: its state, current message and hash, and hashes to delete (D28)."""

    def __init__(
        self,
        *,
        lag: int = 5,
        profile: str = "spec",
        verify_key: bytes | None = None,
        sign_key: bytes | None = None,
        current: ConfigMessage | None = None,
    ) -> None:
        if profile not in PROFILES:
            raise UsageError(Reason.BAD_PROFILE, f"no client profile {profile!r}")
        if verify_key is not None:
            crypto.check_verify_key(verify_key)
        if sign_key is not None:
            crypto.signing_secret(sign_key)
        self.lag = check_lag(lag)
        self.profile = profile
        self.verify_key = _verifier(profile, verify_key, sign_key)
        self.sign_key = sign_key
        self.state = State.CLEAN
        self.message = current
        self.current_hash = current.hash if current is not None else None
        self.to_delete: set[bytes] = set()
        self.last_push: Push | None = None

    @property
    def read_only(self) -> bool:
        return self.sign_key is None and self.verify_key is not None

    def current_hashes(self) -> list[bytes]:
        return [self.current_hash] if self.current_hash else []

    def needs_push(self) -> bool:
        return self.state is not State.CLEAN

    def _parsed(self, messages: list[bytes]) -> list[ConfigMessage]:
        parsed = []
        for raw in messages:
            with contextlib.suppress(ConfigError):
                parsed.append(parse(raw, lag=self.lag, verify_key=self.verify_key))
        return parsed

    def _parse_own(self, raw: bytes) -> ConfigMessage:
        return parse(raw, lag=self.lag, verify_key=self.verify_key)

    def _merge(self, valid: list[ConfigMessage]) -> ConfigMessage:
        return merge_parsed(valid, lag=self.lag, verify_key=self.verify_key, sign_key=self.sign_key)

    def _obsolete(
        self, messages: list[bytes], result: ConfigMessage, valid: list[ConfigMessage]
    ) -> list[bytes]:
        return obsolete_after_merge(messages, result, lag=self.lag, valid=valid)

    def receive(self, messages: list[bytes]) -> None:
        """Merge a poll with the current message (D29); obsolete stored inputs (D27) join the
        hashes to delete."""
        mine = self.message
        signs_stored = self.profile == "libsession" and self.sign_key is not None
        if mine is not None and (mine.editable or signs_stored):
            mine = self._parse_own(mine.serialize(self.sign_key))
        valid = ([mine] if mine is not None else []) + self._parsed(messages)
        if not valid:
            return
        result = self._merge(valid)
        stored = {blake2b(raw) for raw in messages}
        if self.current_hash is not None:
            stored.add(self.current_hash)
        for digest in self._obsolete(messages, result, valid):
            if digest in stored:
                self.to_delete.add(digest)
        if all(result is not message for message in valid):
            if self.profile == "libsession" and self.state is not State.DIRTY:
                result = _every_key_set(result)
            self.message = result
            self._dirty()
        elif mine is None or result.hash != mine.hash:
            self.message, self.state, self.current_hash = result, State.CLEAN, result.hash

    def _dirty(self) -> None:
        """Leave the clean state: the stored message's hash is to be deleted (D31)."""
        if self.state is State.CLEAN:
            if self.current_hash is not None:
                self.to_delete.add(self.current_hash)
            self.current_hash = None
        self.state = State.DIRTY

    def edit(self, data: Any) -> None:
        if self.profile == "libsession" and _pruned(data) == _pruned(
            self.message.data if self.message is not None else {}
        ):
            return  # an edit that changes nothing (X18)
        if self.read_only:
            raise UsageError(Reason.BAD_KEY, "a read-only client cannot edit")
        if self.state is not State.DIRTY:
            base = self.message or ConfigMessage.new(0, lag=self.lag)
            self.message = base.increment()
            self._dirty()
        assert self.message is not None
        self.message.data = _copy(data)

    def push(self) -> Push | None:
        if self.state is State.CLEAN:
            return None
        assert self.message is not None
        serialized = self.message.serialize(self.sign_key)
        deleted = sorted(self.to_delete) if not self.read_only else []
        self.to_delete.clear()
        self.state = State.WAITING
        self.last_push = Push(serialized, self.message.seqno, blake2b(serialized), deleted)
        return self.last_push

    def confirm(self) -> None:
        pushed = self.last_push
        if self.state is not State.WAITING or pushed is None or self.message is None:
            return
        if pushed.seqno == self.message.seqno:
            self.state, self.current_hash = State.CLEAN, pushed.hash


def _verifier(profile: str, verify_key: bytes | None, sign_key: bytes | None) -> bytes | None:
    """Under `libsession` a signer verifies with its public half (X20)."""
    if profile == "spec" or sign_key is None:
        return verify_key
    public = crypto.signing_secret(sign_key)[32:]
    if verify_key is not None and verify_key != public:
        raise UsageError(Reason.BAD_KEY, "the verification key is not the signing key's")
    return public


def _pruned(value: Any) -> Any:
    """Data without empty sets and dicts, recursively."""
    if isinstance(value, dict):
        kept = {key: _pruned(item) for key, item in value.items()}
        return {key: item for key, item in kept.items() if item != {} and item != set()}
    return value


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _copy(item) for key, item in value.items()}
    if isinstance(value, set):
        return set(value)
    return value


def _every_key_set(merged: ConfigMessage) -> ConfigMessage:
    """The merge message as the deployed client pushes it when clean (D30): created from empty
    data, so its `=` lists every data key."""
    everything = ConfigMessage(merged.seqno, {}, merged.lagged, lag=merged.lag, merged=True)
    everything.data = _copy(merged.data)
    everything._sign_secret = merged._sign_secret
    return everything
