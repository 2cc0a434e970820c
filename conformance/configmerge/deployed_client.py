"""The deployed client's state machine (libsession-util 8762e9d33f6c, `ConfigBase` in
`src/config/base.cpp`, as `../shared/design/deployed-client-state.md` reads it), with the API
of `swarmconf.spec.configmerge.client.Client`, over the reference's messages.

Where it differs from the spec's client (D28..D32) it records the quirk in `fired`:
- X12: its hash bookkeeping after a merge. Every input's hash that parses joins the hashes to
  delete but the kept input's, found by its position among the inputs that parse used as an
  index among all inputs; the current hash it then reports is that index's (an unparseable
  input before the survivor is reported current, and deleted with the next push). A copy of its
  own message handed back joins the hashes to delete.
- X17: what it makes current and pushes after a merge. A clean or waiting client's conflict
  resolution lists every data key in `=` (the `libsession` profile does the same, D30); a
  dirty client that adopts another message keeps it incremented (a seqno burnt at its next
  edit); a merge that leaves its seqno unchanged changes nothing, so a read-only client keeps
  its own message beside a higher-ranked one of its seqno.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import swarmconf.reference.configmerge as reference
from swarmconf.reference.configmerge.client import Push, State, _every_key_set
from swarmconf.reference.configmerge.message import blake2b
from swarmconf.spec.configmerge.reasons import ConfigError, Reason, UsageError

CLIENT_QUIRK = "X17"
"""The deployed client's conflict push and what it makes current after a merge."""


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
    ) -> None:
        self.lag = lag
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
        """Its own message as the merge reads it: serialized (and signed), then parsed."""
        if not self.message.editable:
            return self.message
        return self.parse(self.message.serialize(self.sign_key))

    def receive(self, messages: list[bytes]) -> None:
        """`_merge` (104-265): its own message first, unless it has none (seqno 0, clean)."""
        old_seqno = 0 if self.message is None else self.message.seqno
        mine = self.message is not None and (old_seqno != 0 or self.state is State.DIRTY)
        hashes: list[bytes | None] = [self.current_hash] if mine else []
        valid: list[Any] = [self.serialized_copy()] if mine else []
        bad: set[int] = set()
        for raw in messages:
            try:
                valid.append(self.parse(raw))
            except ConfigError:
                bad.add(len(hashes))
            hashes.append(blake2b(raw))
        if not valid:
            return
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
        if made:
            if self.state is not State.DIRTY:
                result = _every_key_set(result)
                if self.profile == "spec":
                    self.fired.add(CLIENT_QUIRK)
            self.message = result
            self.set_state(State.DIRTY)
            return
        dirty = self.state is State.DIRTY
        # a dirty client's merge makes a mutable message: one seqno above the survivor's
        seqno = result.seqno + 1 if dirty else result.seqno
        if mine and seqno == old_seqno + (1 if dirty else 0) and (kept == 0 or not dirty):
            if kept != 0:
                self.fired.add(CLIENT_QUIRK)  # its seqno unchanged: it keeps its own message
            return
        if dirty:
            self.fired.add(CLIENT_QUIRK)  # adopted as a mutable copy, incremented
            result = result.increment()
        self.message = result
        self.set_state(State.CLEAN)
        self.current_hash = hashes[kept]

    def edit(self, data: Any) -> None:
        """`dirty()` (38-49): the first change increments the current message."""
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
