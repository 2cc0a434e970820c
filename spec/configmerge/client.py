"""The client around the message layer (D28..D32): its state, the steps an app takes with it,
and what each step changes, pushes and deletes; design text "Overview" (a client pushes its
new message and deletes the messages it obsoletes in one request) and "Conflict resolution"
(rule 8).

A client holds a current message (none before its first poll or edit), the swarm hash of that
message when the swarm stores it, and the hashes it will delete with its next push. The swarm
names a message by the hash it was stored under; here that is the message's hash (D1), which
the client learns from a poll or from the confirmation of its own push.

Two profiles differ in three places, each where the `libsession` profile does what the deployed
client (libsession-util 8762e9d33f6c) does, so that it publishes the same messages as the
deployed clients beside it:
- the message a clean client pushes after a conflict (D30): `spec` follows rule 8 (`=` empty);
  `libsession` lists every data key in `=` as set (X17);
- an edit that changes nothing (D29): under `spec` an edit like any other; under `libsession`
  it changes nothing, refused on a read-only client neither (X18);
- a signing key (D28): under `spec` it signs; under `libsession` it also verifies, with its own
  public half (X20).
The deployed client's other client-layer quirks (its aborts, X17 and X19, and its bookkeeping of
a repeated input, X12) no profile follows.
"""

from __future__ import annotations

from enum import Enum
from typing import NamedTuple

from .data import Data, deep_copy, pruned
from .merge import merge_parsed, parse_valid
from .message import DEFAULT_LAG, ConfigMessage, message_hash, parse
from .obsolete import obsolete_after_merge
from .reasons import Reason, UsageError
from .signing import check_verify_key, signing_key

PROFILES = ("spec", "libsession")


class State(Enum):
    """Clean: the current message is the one stored. Dirty: it has changes not pushed.
    Waiting: it was pushed and the push is not confirmed yet (D28)."""

    CLEAN = "clean"
    DIRTY = "dirty"
    WAITING = "waiting"


class Push(NamedTuple):
    """One push: the message's bytes, seqno and hash, and the hashes deleted with it (D31)."""

    message: bytes
    seqno: int
    hash: bytes
    deleted: list[bytes]


class Client:
    """One client of a swarm (D28). `current`, if given, is a stored message it starts from,
    clean; otherwise it starts with no message. With a verification key it drops every input
    not signed under it (D17); without a signing key and with a verification key it is
    read-only (D32)."""

    def __init__(
        self,
        *,
        lag: int = DEFAULT_LAG,
        profile: str = "spec",
        verify_key: bytes | None = None,
        sign_key: bytes | None = None,
        current: ConfigMessage | None = None,
    ) -> None:
        if profile not in PROFILES:
            raise UsageError(Reason.BAD_PROFILE, f"no client profile {profile!r}")
        if verify_key is not None:
            check_verify_key(verify_key)
        if sign_key is not None:
            signing_key(sign_key)
        self.lag = lag
        self.profile = profile
        self.verify_key = verifier(profile, verify_key, sign_key)
        self.sign_key = sign_key
        self.state = State.CLEAN
        self.message = current
        self.current_hash = None if current is None else current.hash
        self.to_delete: set[bytes] = set()
        self.last_push: Push | None = None

    @property
    def read_only(self) -> bool:
        """A client that verifies but cannot sign publishes nothing (D32, D17)."""
        return self.verify_key is not None and self.sign_key is None

    def current_hashes(self) -> list[bytes]:
        """The swarm hash of the current message, when the swarm stores it (D28)."""
        return [] if self.current_hash is None else [self.current_hash]

    def needs_push(self) -> bool:
        """A client that is not clean has a message the swarm does not hold yet (D31)."""
        return self.state != State.CLEAN

    def receive(self, messages: list[bytes]) -> None:
        """Merge a poll (D29, D14, D15, D27): the current message is an input beside `messages`.

        A new merge message becomes current and the client dirty (D30); a message of the poll
        that survives alone becomes current and the client clean; the current message surviving
        changes nothing. Of the inputs the result makes obsolete (D27), those the swarm stores
        (the poll's and the current hash) join the hashes to delete.
        """
        own = [] if self.message is None else [self.as_pushed(self.message)]
        polled = self.parse_polled(messages)
        valid = own + polled
        if not valid:
            return
        result = self.merged(valid)
        stored = {message_hash(message) for message in messages} | set(self.current_hashes())
        obsolete = self.obsolete(messages, result, valid)
        self.to_delete |= stored & set(obsolete)
        if all(result is not message for message in valid):
            self.message = self.resolution(result)
            self.leave_clean(State.DIRTY)
        elif own and result.hash == own[0].hash:
            return
        else:
            self.message = result
            self.state = State.CLEAN
            self.current_hash = result.hash

    def as_pushed(self, message: ConfigMessage) -> ConfigMessage:
        """The current message as an input of a merge (D29): a stored message as stored (its
        bytes, signed or not), an edited or merged one as the client would push it, signed if
        it signs. A `libsession` signer's stored message enters signed too (X20)."""
        if not message.editable and (self.profile == "spec" or self.sign_key is None):
            return message
        return self.parse_own(self.serialized(message))

    def parse_polled(self, messages: list[bytes]) -> list[ConfigMessage]:
        """The messages of a poll that parse; the others are ignored (D14)."""
        return parse_valid(messages, self.lag, self.verify_key)

    def parse_own(self, data: bytes) -> ConfigMessage:
        """The client's own message, serialized, parsed again (D29)."""
        return parse(data, lag=self.lag, verify_key=self.verify_key)

    def merged(self, valid: list[ConfigMessage]) -> ConfigMessage:
        """The merge of a poll's valid inputs, the current message first (D14, D15)."""
        return merge_parsed(valid, lag=self.lag, verify_key=self.verify_key, sign_key=self.sign_key)

    def obsolete(
        self, messages: list[bytes], result: ConfigMessage, valid: list[ConfigMessage]
    ) -> list[bytes]:
        """The hashes of the inputs `result` makes obsolete (D27)."""
        return obsolete_after_merge(messages, result, lag=self.lag, valid=valid)

    def serialized(self, message: ConfigMessage) -> bytes:
        """`message` as the client pushes it: signed if it signs (D17)."""
        return message.serialize(self.sign_key)

    def resolution(self, merged: ConfigMessage) -> ConfigMessage:
        """The conflict resolution the client will push (D30): rule 8's (`=` empty), except a
        clean or waiting client of the `libsession` profile lists every data key in `=`."""
        if self.profile == "spec" or self.state == State.DIRTY:
            return merged
        everything = ConfigMessage(
            seqno=merged.seqno,
            data={},
            lagged=merged.lagged,
            lag=merged.lag,
            merged=True,
            sign_key=self.sign_key,
        )
        everything.data.update(deep_copy(merged.data))
        return everything

    def leave_clean(self, state: State) -> None:
        """A clean client's stored message is obsoleted by what it will push: its hash joins
        the hashes to delete (D31, D27)."""
        if self.state == State.CLEAN and self.current_hash is not None:
            self.to_delete.add(self.current_hash)
        if self.state == State.CLEAN:
            self.current_hash = None
        self.state = state

    def edit(self, data: Data) -> None:
        """Change the data to `data` (D29, D13). A client that is not dirty (clean or waiting)
        increments its current message, or with none the empty message of seqno 0, and becomes
        dirty; a dirty client's message, edited or merged, is edited in place. Under
        `libsession` an edit that changes nothing changes nothing (X18). A read-only client
        cannot edit (D32)."""
        if self.profile == "libsession" and self.unchanged(data):
            return
        if self.read_only:
            raise UsageError(Reason.BAD_KEY, "a read-only client (no signing key) cannot edit")
        if self.state != State.DIRTY:
            base = self.message if self.message is not None else ConfigMessage.new(0, lag=self.lag)
            self.message = base.increment()
            self.leave_clean(State.DIRTY)
        assert self.message is not None
        self.message.data.clear()
        self.message.data.update(deep_copy(data))

    def unchanged(self, data: Data) -> bool:
        """`data` is the current data (with no message, empty), empty sets and dicts pruned."""
        current = {} if self.message is None else self.message.data
        return pruned(data) == pruned(current)

    def push(self) -> Push | None:
        """What the app pushes, which it does only when the client needs a push (D31): the
        current message, with every hash to delete (none from a read-only client, D32)."""
        if not self.needs_push():
            return None
        assert self.message is not None
        serialized = self.serialized(self.message)
        deleted = [] if self.read_only else sorted(self.to_delete)
        self.to_delete = set()
        self.state = State.WAITING
        self.last_push = Push(serialized, self.message.seqno, message_hash(serialized), deleted)
        return self.last_push

    def confirm(self) -> None:
        """The swarm stored the last push (D31): a waiting client whose message is still the
        one pushed becomes clean, its current hash the stored message's."""
        pushed, message = self.last_push, self.message
        if self.state == State.WAITING and pushed and message and pushed.seqno == message.seqno:
            self.state = State.CLEAN
            self.current_hash = pushed.hash


def verifier(profile: str, verify_key: bytes | None, sign_key: bytes | None) -> bytes | None:
    """The key a client verifies with (D28, D17): the verification key given. Under
    `libsession` a signing key verifies too, with its public half (X20), and a verification key
    given beside it must be that half."""
    if profile == "spec" or sign_key is None:
        return verify_key
    public = bytes(signing_key(sign_key).verify_key)
    if verify_key is not None and verify_key != public:
        raise UsageError(Reason.BAD_KEY, "the verification key is not the signing key's")
    return public
