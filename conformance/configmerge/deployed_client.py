"""The deployed client's state machine (libsession-util 8762e9d33f6c, `ConfigBase` in
`src/config/base.cpp`, as `../shared/design/deployed-client-state.md` reads it), with the API
of `swarmconf.spec.configmerge.client.Client`, over the reference's messages.

Where it differs from the spec's client (D28..D32) it records the quirk in `fired`:
- X12: its hash bookkeeping after a merge. The hash at every position of an input that parses
  joins the hashes to delete but the kept input's position, found by its position among the
  inputs that parse used as an index among all inputs; the current hash it then reports is that
  index's (an unparseable input before the survivor is reported current, and deleted with the
  next push). A repeated input's hash joins them even when it is the survivor's: a copy of its
  own message handed back does.
- X17: what it makes current and pushes after a merge. A clean or waiting client's conflict
  resolution lists every data key in `=` (the `libsession` profile does the same, D30); a
  dirty client that adopts another message keeps it incremented (a seqno burnt at its next
  edit); a merge that leaves its seqno unchanged changes nothing, and asserts that its own
  message was kept: a read-only client holding one racer that polls a higher-ranked one of
  its seqno aborts (debug build, base.cpp:256), or keeps its own (release).
- X18: an edit that changes nothing does not dirty it (base.hpp:344-361), so it neither
  increments nor pushes, and a read-only client's is not refused.
- X19: a client with no message (seqno 0, clean) merges the poll alone, so the poll's first
  input is at index 0, which must parse: one that does not aborts (debug, base.cpp:211); a
  poll with nothing valid throws (release; debug, an empty poll) `NO_VALID_MESSAGE`
  (config.cpp:588-589).
- X20: a signing key also verifies (base.cpp:567-570): an unsigned input is dropped, and its
  own stored message enters the merge signed.

`debug` picks the build: with it (as the vectors expect) an assertion aborts (`Abort`), without
it the release build goes on. `catches` says whether the app around it catches what `merge()`
throws, leaving the client unchanged, as apps do, or lets it through (the `client` operation).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

import swarmconf.reference.configmerge as reference
from swarmconf.reference.configmerge.client import Push, State, _every_key_set, _pruned
from swarmconf.reference.configmerge.message import blake2b
from swarmconf.spec.configmerge.reasons import ConfigError, Reason, UsageError

CLIENT_QUIRK = "X17"
"""The deployed client's conflict push and what it makes current after a merge."""
NO_OP_EDIT = "X18"
FRESH_POLL = "X19"
SIGNER_VERIFIES = "X20"


class Abort(Exception):
    """An assertion of a debug build fails: the deployed client's process ends."""

    def __init__(self, quirk: str, where: str) -> None:
        super().__init__(f"{where} ({quirk})")
        self.quirk = quirk


class DeployedClient:
    """`ConfigBase`'s state (`_state`, `_config`, `_curr_hash`, `_old_hashes`) and steps."""

    def __init__(
        self,
        *,
        lag: int,
        profile: str,
        parse: Callable[[bytes], Any],
        verify_key: bytes | None = None,
        sign_key: bytes | None = None,
        current: Any = None,
        debug: bool = False,
        catches: bool = True,
        read: Callable[[bytes], Any] | None = None,
    ) -> None:
        self.lag = lag
        self.debug = debug
        self.catches = catches
        """The app catches what `merge()` throws, the client unchanged (the `client` operation
        answers the throw as a refusal instead)."""
        self.read = read
        """How a client that does not verify would parse: set where a signer verifies (X20),
        to tell the inputs it drops for that."""
        self.profile = profile
        self.parse = parse
        self.verify_key = verify_key
        self.sign_key = sign_key
        self.state = State.CLEAN
        self.message = current
        self.current_hash: bytes | None = None if current is None else current.hash
        self.old_hashes: set[bytes] = set()
        self.last_push: Push | None = None
        self.fired: set[str] = set()

    @property
    def read_only(self) -> bool:
        return self.verify_key is not None and self.sign_key is None

    @property
    def to_delete(self) -> set[bytes]:
        """The hashes its next push deletes (`_old_hashes`), as the spec's client names them."""
        return self.old_hashes

    def current_hashes(self) -> list[bytes]:
        return [] if self.current_hash is None else [self.current_hash]

    def needs_push(self) -> bool:
        return self.state is not State.CLEAN

    def set_state(self, state: State) -> None:
        """Leaving (or staying) clean moves the current hash to the old hashes (26-36)."""
        if self.state is State.CLEAN and self.current_hash is not None:
            self.old_hashes.add(self.current_hash)
            self.current_hash = None
        self.state = state

    def serialized_copy(self) -> Any:
        """Its own message as the merge reads it: serialized (signed if it signs: X20, a
        stored message too), then parsed."""
        if not self.message.editable and self.sign_key is None:
            return self.message
        copy = self.parse(self.message.serialize(self.sign_key))
        if self.profile == "spec" and copy.hash != self.message.hash:
            self.fired.add(SIGNER_VERIFIES)  # its stored message signed anew
        return copy

    def parsed(self, raw: bytes) -> Any:
        """An input as the merge parses it; a signer's drop of an unsigned input is X20's."""
        try:
            return self.parse(raw)
        except ConfigError:
            if self.read is not None and self.profile == "spec":
                with contextlib.suppress(ConfigError):
                    self.read(raw)
                    self.fired.add(SIGNER_VERIFIES)
            raise

    def assertion(self, holds: bool, quirk: str, where: str) -> None:
        """An `assert` of the source: a debug build aborts where it fails."""
        if self.debug and not holds:
            raise Abort(quirk, where)
        if not holds:
            self.fired.add(quirk)

    def receive(self, messages: list[bytes]) -> None:
        """`_merge` (104-265): its own message first, unless it has none (seqno 0, clean)."""
        old_seqno = 0 if self.message is None else self.message.seqno
        mine = self.message is not None and (old_seqno != 0 or self.state is State.DIRTY)
        hashes: list[bytes | None] = [self.current_hash] if mine else []
        valid: list[Any] = [self.serialized_copy()] if mine else []
        bad: set[int] = set()
        for raw in messages:
            try:
                valid.append(self.parsed(raw))
            except ConfigError:
                # its own serialization, index 0, must parse (211)
                self.assertion(len(hashes) > 0, FRESH_POLL, "base.cpp:211 assert(i > 0)")
                bad.add(len(hashes))
            hashes.append(blake2b(raw))
        if not valid:
            self.fired.add(FRESH_POLL)
            if self.catches:
                return
            raise ConfigError(Reason.NO_VALID_MESSAGE, "no valid config messages given")
        result = reference.merge_parsed(
            valid, lag=self.lag, verify_key=self.verify_key, sign_key=self.sign_key
        )
        made = all(result is not message for message in valid)
        kept = -1 if made else [m.hash for m in valid].index(result.hash)
        # unmerged_index() counts among the inputs that parse and indexes all inputs (219-224)
        for index, digest in enumerate(hashes):
            if index != kept and index not in bad and digest:
                self.old_hashes.add(digest)
        parsed_at = [index for index in range(len(hashes)) if index not in bad]
        if kept >= 0 and (parsed_at[kept] != kept or result.hash in self.old_hashes):
            self.fired.add("X12")
        dirty = self.state is State.DIRTY
        # a dirty client's merge that keeps one input makes a mutable copy, incremented
        seqno = result.seqno + 1 if dirty and not made else result.seqno
        if seqno == old_seqno:
            # nothing changed; its own message must be the one kept (256): with none, a
            # poll's survivor of seqno 0 is not adopted
            self.assertion(kept == 0, CLIENT_QUIRK, "base.cpp:256 assert(unmerged_index() == 0)")
            if not mine:
                self.fired.add(FRESH_POLL)
            return
        if made:
            if not dirty:
                result = _every_key_set(result)
                if self.profile == "spec":
                    self.fired.add(CLIENT_QUIRK)
            self.message = result
            self.set_state(State.DIRTY)
            return
        if dirty and kept == 0 and seqno == old_seqno + 1:
            return  # its own edit kept
        if dirty:
            self.fired.add(CLIENT_QUIRK)  # adopted as a mutable copy, incremented
            result = result.increment()
        self.message = result
        self.set_state(State.CLEAN)
        self.current_hash = hashes[kept]

    def edit(self, data: Any) -> None:
        """`dirty()` (38-49), reached only through a setter that changes a value: an edit that
        changes nothing changes nothing (X18). The first change increments the current
        message."""
        current = {} if self.message is None else self.message.data
        if _pruned(data) == _pruned(current):
            if self.profile == "spec":
                self.fired.add(NO_OP_EDIT)
            return
        if self.read_only:
            raise UsageError(Reason.BAD_KEY, "a read-only config object cannot change")
        if self.state is not State.DIRTY:
            self.set_state(State.DIRTY)
            base = self.message or reference.ConfigMessage.new(0, lag=self.lag)
            self.message = base.increment()
        self.message.data = data

    def push(self) -> Push | None:
        """`push()` (291-325), taken by the app when `needs_push()`."""
        if not self.needs_push():
            return None
        serialized = self.message.serialize(self.sign_key)
        if self.state is State.DIRTY:
            self.set_state(State.WAITING)
        deleted = [] if self.read_only else sorted(self.old_hashes)
        self.old_hashes.clear()
        self.last_push = Push(serialized, self.message.seqno, blake2b(serialized), deleted)
        return self.last_push

    def confirm(self) -> None:
        """`confirm_pushed` (327-334)."""
        pushed = self.last_push
        if self.state is State.WAITING and pushed and pushed.seqno == self.message.seqno:
            self.set_state(State.CLEAN)
            self.current_hash = pushed.hash
