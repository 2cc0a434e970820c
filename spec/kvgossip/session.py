"""The sans-I/O sync session, both roles (notes 3.5; table rows 24-26).

A `Session` never touches a socket or a clock: the driver feeds it each received frame with the
current time (`receive`) and sends the frames it returns, in order. It reads and changes the
local state only through the `Store` interface. A conversation:

    A: HELLO                      B: HELLO                  (if both hashes agree: A: BYE)
    A: REVS(ids)                  B: REVS(ids)              (only if the revset hashes differ)
    A: REVDATA(revs B lacks)      B: REVDATA(revs A lacks)
    pass (at most max_loops times):
    A: TREE(h)                    B: TREE(h)                (equal: A: BYE, end)
    A: KEYHASH(k, ts, eh)  ...    B: AGREE | MINE(rec) | YOURS
      after MINE:  A: RESULT;  after YOURS:  A: RECORD(rec), B: RESULT
    A: DONE                       B: RECORD(rec) ... each answered by A: RESULT, then B: END
    (after the last allowed pass A sends BYE)

A record that fails to verify is answered with a rejecting RESULT and the pass goes on; a
protocol violation ends the session with `error` set to its reason. Keys are offered newest
first, `(ts desc, key asc)`, and every pass covers all keys.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from . import messages as m
from .keys import check_key
from .reasons import KvError, KvReason, require
from .records import decode_record, lww_greater
from .state import (
    DEFAULT_SKEW_MS,
    Outcome,
    Store,
    Verdict,
    apply_revocation,
    receive_record,
)

DEFAULT_MAX_LOOPS = 3


class Role(StrEnum):
    """Which side of the session this is."""

    INITIATOR = "initiator"
    RESPONDER = "responder"


@dataclass
class SessionLog:
    """What a session did to the local store, for drivers, tests and the simulation."""

    passes: int = 0
    verdicts: list[tuple[str, Outcome, KvReason | None]] = field(default_factory=list)
    revocations_applied: int = 0


class Session:
    """One sync session; `receive(frame, now_ms)` returns the frames to send back."""

    def __init__(
        self,
        role: Role,
        store: Store,
        root: bytes,
        node_id: bytes,
        *,
        skew_ms: int = DEFAULT_SKEW_MS,
        max_loops: int = DEFAULT_MAX_LOOPS,
    ) -> None:
        self.role = role
        self.store = store
        self.root = root
        self.node_id = node_id
        self.skew_ms = skew_ms
        self.max_loops = max_loops
        self.done = False
        self.error: KvReason | None = None
        self.peer_id: bytes | None = None
        self.log = SessionLog()
        self._now = 0
        self._expect: Callable[[list[Any]], list[bytes]] = (
            self._on_first if role is Role.INITIATOR else self._on_hello
        )
        self._peer_revs: frozenset[bytes] = frozenset()
        self._listed: set[str] = set()
        self._to_offer: list[str] = []
        self._offered: str = ""
        self._to_push: list[str] = []

    # Driver interface

    def start(self, now_ms: int) -> list[bytes]:
        """The initiator's opening frames (HELLO); the responder starts by receiving."""
        self._now = now_ms
        if self.role is Role.RESPONDER:
            return []
        self._expect = self._on_hello
        return [self._hello()]

    def receive(self, frame: bytes, now_ms: int) -> list[bytes]:
        """Handle one frame from the peer; return the frames to send, in order."""
        if self.done:
            self._fail(KvReason.SESSION_CLOSED)
            return []
        self._now = now_ms
        try:
            msg = m.decode_message(frame)
            return self._expect(msg)
        except KvError as err:
            self._fail(err.reason)
            return []

    def timeout(self) -> None:
        """The peer stayed silent past the idle timeout (5 s): abort."""
        if not self.done:
            self._fail(KvReason.SESSION_TIMEOUT)

    # Helpers

    def _fail(self, reason: KvReason) -> None:
        self.done = True
        if self.error is None:
            self.error = reason

    def _finish(self) -> None:
        self.done = True

    def _hello(self) -> bytes:
        s = self.store
        return m.message(m.HELLO, m.PROTOCOL_VERSION, self.node_id, s.revset_hash(), s.tree_hash())

    def _on_first(self, msg: list[Any]) -> list[bytes]:
        raise KvError(KvReason.SESSION_UNEXPECTED_MESSAGE, "initiator has not started")

    @staticmethod
    def _want(msg: list[Any], *names: str) -> None:
        require(msg[0] in names, KvReason.SESSION_UNEXPECTED_MESSAGE, msg[0])

    def _my_rev_ids(self) -> list[bytes]:
        return sorted(self.store.revoked_ids())

    def _revdata_for(self, peer_ids: frozenset[bytes]) -> bytes:
        revs = []
        for gid in self._my_rev_ids():
            revocation = self.store.get_revocation(gid)
            if gid not in peer_ids and revocation is not None:
                revs.append(revocation.encode())
        return m.message(m.REVDATA, revs)

    def _apply_revocations(self, revs: list[bytes]) -> None:
        for data in revs:
            if apply_revocation(self.store, data, self.root).new:
                self.log.revocations_applied += 1

    def _apply_record(self, key: str, data: bytes) -> Verdict:
        verdict = receive_record(self.store, data, self.root, self._now, self.skew_ms)
        self.log.verdicts.append((key, verdict.outcome, verdict.reason))
        return verdict

    def _result_for(self, key: str, verdict: Verdict) -> bytes:
        """RESULT for a record received: revocations attached, own record when refused."""
        revs = []
        for gid in verdict.revoked_ids:
            revocation = self.store.get_revocation(gid)
            if revocation is not None:
                revs.append(revocation.encode())
        own = b""
        if verdict.outcome in (Outcome.STALE, Outcome.REJECTED) and key:
            local = self.store.get(key)
            own = local.encode() if local is not None else b""
        reason = verdict.reason.value if verdict.reason is not None else ""
        return m.message(m.RESULT, verdict.outcome.value, reason, revs, own)

    def _on_result(self, msg: list[Any]) -> None:
        """Apply a peer's RESULT: its revocations first, then its own record if any."""
        _, outcome, reason, revs, own = msg
        require(outcome in set(Outcome), KvReason.SESSION_BAD_MESSAGE, "RESULT outcome")
        require(reason == "" or reason in set(KvReason), KvReason.SESSION_BAD_MESSAGE, "reason")
        self._apply_revocations(revs)
        if own:
            self._apply_record(self._record_key(own) or "", own)

    def _record_key(self, data: bytes) -> str | None:
        """The key of record bytes, or None when they do not decode (a per-record rejection)."""
        try:
            return decode_record(data).key
        except KvError:
            return None

    # Both roles: HELLO and revocation exchange

    def _on_hello(self, msg: list[Any]) -> list[bytes]:
        self._want(msg, m.HELLO)
        _, proto, node_id, revset, tree = msg
        require(proto == m.PROTOCOL_VERSION, KvReason.SESSION_PROTOCOL_VERSION)
        self.peer_id = node_id
        same_revs = revset == self.store.revset_hash()
        same_tree = tree == self.store.tree_hash()
        if self.role is Role.RESPONDER:
            out = [self._hello()]
            if not same_revs:
                self._expect = self._r_on_revs
            elif same_tree:
                self._expect = self._r_on_bye
            else:
                self._expect = self._r_on_tree
            return out
        if not same_revs:
            self._expect = self._i_on_revs
            return [m.message(m.REVS, self._my_rev_ids())]
        if same_tree:
            self._finish()
            return [m.message(m.BYE)]
        return self._i_begin_pass()

    # Initiator

    def _i_on_revs(self, msg: list[Any]) -> list[bytes]:
        self._want(msg, m.REVS)
        self._expect = self._i_on_revdata
        return [self._revdata_for(frozenset(msg[1]))]

    def _i_on_revdata(self, msg: list[Any]) -> list[bytes]:
        self._want(msg, m.REVDATA)
        self._apply_revocations(msg[1])
        return self._i_begin_pass()

    def _i_begin_pass(self) -> list[bytes]:
        if self.log.passes >= self.max_loops:
            self._finish()
            return [m.message(m.BYE)]
        self.log.passes += 1
        self._expect = self._i_on_tree
        return [m.message(m.TREE, self.store.tree_hash())]

    def _i_on_tree(self, msg: list[Any]) -> list[bytes]:
        self._want(msg, m.TREE)
        if msg[1] == self.store.tree_hash():
            self._finish()
            return [m.message(m.BYE)]
        self._to_offer = [key for key, _, _ in self.store.entries_newest_first()]
        self._to_offer.reverse()
        self._listed = set()
        return self._i_offer_next()

    def _i_offer_next(self) -> list[bytes]:
        while self._to_offer:
            key = self._to_offer.pop()
            record = self.store.get(key)
            if record is None:
                continue
            self._offered = key
            self._listed.add(key)
            self._expect = self._i_on_answer
            return [m.message(m.KEYHASH, key, record.ts, record.entry_hash)]
        self._expect = self._i_on_push
        return [m.message(m.DONE)]

    def _i_on_answer(self, msg: list[Any]) -> list[bytes]:
        self._want(msg, m.AGREE, m.MINE, m.YOURS)
        if msg[0] == m.AGREE:
            return self._i_offer_next()
        if msg[0] == m.YOURS:
            record = self.store.get(self._offered)
            if record is None:
                raise KvError(KvReason.SESSION_UNEXPECTED_MESSAGE, "offered key gone")
            self._expect = self._i_on_result
            return [m.message(m.RECORD, record.encode())]
        key = self._record_key(msg[1])
        require(key in (None, self._offered), KvReason.SESSION_KEY_MISMATCH)
        verdict = self._apply_record(self._offered, msg[1])
        return [self._result_for(self._offered, verdict), *self._i_offer_next()]

    def _i_on_result(self, msg: list[Any]) -> list[bytes]:
        self._want(msg, m.RESULT)
        self._on_result(msg)
        return self._i_offer_next()

    def _i_on_push(self, msg: list[Any]) -> list[bytes]:
        self._want(msg, m.RECORD, m.END)
        if msg[0] == m.END:
            return self._i_begin_pass()
        key = self._record_key(msg[1])
        if key is not None:
            require(key not in self._listed, KvReason.SESSION_DUPLICATE_KEY, key)
            self._listed.add(key)
        verdict = self._apply_record(key or "", msg[1])
        return [self._result_for(key or "", verdict)]

    # Responder

    def _r_on_revs(self, msg: list[Any]) -> list[bytes]:
        self._want(msg, m.REVS)
        self._peer_revs = frozenset(msg[1])
        self._expect = self._r_on_revdata
        return [m.message(m.REVS, self._my_rev_ids())]

    def _r_on_revdata(self, msg: list[Any]) -> list[bytes]:
        self._want(msg, m.REVDATA)
        self._apply_revocations(msg[1])
        self._expect = self._r_on_tree
        return [self._revdata_for(self._peer_revs)]

    def _r_on_bye(self, msg: list[Any]) -> list[bytes]:
        self._want(msg, m.BYE)
        self._finish()
        return []

    def _r_on_tree(self, msg: list[Any]) -> list[bytes]:
        self._want(msg, m.TREE, m.BYE)
        if msg[0] == m.BYE:
            self._finish()
            return []
        require(self.log.passes < self.max_loops, KvReason.SESSION_TOO_MANY_PASSES)
        self.log.passes += 1
        mine = self.store.tree_hash()
        self._expect = self._r_on_bye if msg[1] == mine else self._r_on_keyhash
        self._listed = set()
        return [m.message(m.TREE, mine)]

    def _r_on_keyhash(self, msg: list[Any]) -> list[bytes]:
        self._want(msg, m.KEYHASH, m.DONE)
        if msg[0] == m.DONE:
            self._to_push = [
                key for key, _, _ in self.store.entries_newest_first() if key not in self._listed
            ]
            self._to_push.reverse()
            return self._r_push_next()
        _, key, ts, entry_hash = msg
        try:
            check_key(key)
        except KvError as err:
            raise KvError(KvReason.SESSION_BAD_MESSAGE, err.reason.value) from err
        require(key not in self._listed, KvReason.SESSION_DUPLICATE_KEY, key)
        self._listed.add(key)
        self._offered = key
        local = self.store.get(key)
        if local is not None and local.lww_key == (ts, entry_hash):
            return [m.message(m.AGREE)]
        if local is not None and lww_greater(local.lww_key, (ts, entry_hash)):
            self._expect = self._r_on_result
            return [m.message(m.MINE, local.encode())]
        self._expect = self._r_on_record
        return [m.message(m.YOURS)]

    def _r_on_record(self, msg: list[Any]) -> list[bytes]:
        self._want(msg, m.RECORD)
        key = self._record_key(msg[1])
        require(key in (None, self._offered), KvReason.SESSION_KEY_MISMATCH)
        verdict = self._apply_record(self._offered, msg[1])
        self._expect = self._r_on_keyhash
        return [self._result_for(self._offered, verdict)]

    def _r_on_result(self, msg: list[Any]) -> list[bytes]:
        self._want(msg, m.RESULT)
        self._on_result(msg)
        self._expect = self._r_on_keyhash
        return []

    def _r_push_next(self) -> list[bytes]:
        while self._to_push:
            record = self.store.get(self._to_push.pop())
            if record is None:
                continue
            self._expect = self._r_on_push_result
            return [m.message(m.RECORD, record.encode())]
        self._expect = self._r_on_tree
        return [m.message(m.END)]

    def _r_on_push_result(self, msg: list[Any]) -> list[bytes]:
        self._want(msg, m.RESULT)
        self._on_result(msg)
        return self._r_push_next()
