"""The sans-I/O sync session, protocol 2, both roles (notes 3.5; kv-sync 3.3; decisions K5-K8).

A `Session` never touches a socket or a clock: the driver feeds it each received frame with the
current time (`receive`) and sends the frames it returns, in order. It reads and changes the
local state only through the `Store` interface. A conversation:

    A: HELLO                          B: HELLO          (both hashes agree: A: BYE)
    A: REVS(ids)                      B: REVS(ids)      (only if the revset hashes differ)
    A: REVDATA(revs B lacks)          B: REVDATA(revs A lacks)
    pass (at most max_loops times):
    A: RECON  B: RECON  ...           until A's reconciliation step is done (K6)
    A: WANT(ids) ...                  B: RECORDS ...    one per WANT, A answers each: RESULTS
    A: RECORDS(still-current records B lacks) ...      B: RESULTS for each
    A: TREE(h, n)                     B: TREE(h, n)     (equal: A: BYE, end)
    (after the last allowed pass A sends BYE)

Revocations are settled before any record moves, so both sides judge records against the same
set (K5). A record that fails to verify gets a rejecting outcome inside its RESULTS and the pass
goes on; a protocol violation ends the session with `error` set to its reason.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from . import messages as m
from . import recon
from .push import Results, key_of
from .reasons import KvError, KvReason, require
from .records import decode_record
from .state import (
    DEFAULT_SKEW_MS,
    Outcome,
    Store,
    Verdict,
    apply_record,
    apply_revocation,
    receive_record,
)

DEFAULT_MAX_LOOPS = 3
MAX_RECON_ROUNDS = 32
"""Reconciliation messages either side may send in one pass (K6)."""
TRANSFER_BATCH = 256
"""Records per WANT or RECORDS this side sends (K8; the protocol allows up to 1,024): small
enough that applying one batch never holds a node for long, large enough to amortise a frame."""
SEND_WINDOW = 4
"""RECORDS batches the initiator keeps unanswered (K8): each RESULTS releases the next, so a
large transfer is read from the store batch by batch as the peer keeps up, never all at once."""

OUTCOMES = frozenset(Outcome)
REASONS = frozenset(KvReason)
"""The outcomes and reasons a RESULTS may name."""


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
    recon_rounds: int = 0
    """RECON messages received, over all passes."""


def batches(items: Sequence[Any], size: int = TRANSFER_BATCH) -> list[list[Any]]:
    """`items` cut into consecutive lists of at most `size`."""
    return [list(items[i : i + size]) for i in range(0, len(items), size)]


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
        self._items: list[recon.Item] = []
        self._rounds = 0
        self._in_pass = False
        self._have: list[bytes] = []
        self._unsent: deque[bytes] = deque()
        """Entry hashes the peer lacks whose records are not sent yet, in reconciliation order."""
        self._received_keys: set[str] = set()
        self._returned_keys: set[str] = set()
        self._wanted: deque[frozenset[bytes]] = deque()
        """Entry hashes of each WANT not yet answered, oldest first."""
        self._sent: deque[int] = deque()
        """Size of each RECORDS batch whose RESULTS has not come back, oldest first."""
        self._reconciling = self._haves_sent = self._tree_sent = False

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

    def _finish(self) -> list[bytes]:
        self.done = True
        return []

    def _hello(self) -> bytes:
        s = self.store
        tree, count = s.tree_hash(), s.count()
        return m.message(m.HELLO, m.PROTOCOL_VERSION, self.node_id, s.revset_hash(), tree, count)

    def _tree(self) -> bytes:
        return m.message(m.TREE, self.store.tree_hash(), self.store.count())

    def _on_first(self, msg: list[Any]) -> list[bytes]:
        raise KvError(KvReason.SESSION_UNEXPECTED_MESSAGE, "initiator has not started")

    @staticmethod
    def _want(msg: list[Any], *names: str) -> None:
        require(msg[0] in names, KvReason.SESSION_UNEXPECTED_MESSAGE, msg[0])

    def _revdata_for(self, peer_ids: frozenset[bytes]) -> bytes:
        revs = []
        for gid in sorted(self.store.revoked_ids()):
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
        return self._logged(key, verdict)

    def _logged(self, key: str, verdict: Verdict) -> Verdict:
        self.log.verdicts.append((key, verdict.outcome, verdict.reason))
        return verdict

    def _begin_pass(self) -> None:
        """A pass reconciles against a snapshot of the items taken at its start (K6)."""
        self.log.passes += 1
        self._in_pass = True
        self._rounds = 0
        self._items = self.store.sync_items()
        self._have = []
        self._unsent = deque()
        self._received_keys = set()
        self._returned_keys = set()

    def _count_round(self) -> None:
        self._rounds += 1
        self.log.recon_rounds += 1
        require(self._rounds <= MAX_RECON_ROUNDS, KvReason.SESSION_TOO_MANY_ROUNDS)

    def _results_for(self, records: list[bytes], wanted: frozenset[bytes] | None) -> bytes:
        """Apply a RECORDS batch, one record at a time; RESULTS with one outcome per record.

        A record that does not decode is REJECTED; a decoded one must be asked for (`wanted`,
        when the batch answers a WANT) and its key new to the pass.
        """
        results = Results(self.store, self._returned_keys)
        for data in records:
            try:
                record = decode_record(data)  # once: checks, then judged as received
            except KvError as err:
                results.add("", self._logged("", Verdict(Outcome.REJECTED, err.reason)))
                continue
            key = record.key
            require(wanted is None or record.entry_hash in wanted, KvReason.SESSION_NOT_REQUESTED)
            require(key not in self._received_keys, KvReason.SESSION_DUPLICATE_KEY, key)
            self._received_keys.add(key)
            verdict = apply_record(self.store, record, self.root, self._now, self.skew_ms)
            results.add(key, self._logged(key, verdict))
        return results.frame()

    def _on_results(self, msg: list[Any], sent: int) -> None:
        """Apply a peer's RESULTS for `sent` records: its revocations first, then its records."""
        _, outcomes, reasons, revs, own = msg
        require(len(outcomes) == sent, KvReason.SESSION_BAD_MESSAGE, "RESULTS count")
        require(all(o in OUTCOMES for o in outcomes), KvReason.SESSION_BAD_MESSAGE, "outcome")
        require(
            all(r == "" or r in REASONS for r in reasons), KvReason.SESSION_BAD_MESSAGE, "reason"
        )
        require(len(own) <= sent, KvReason.SESSION_BAD_MESSAGE, "RESULTS own records")
        self._apply_revocations(revs)
        for data in own:
            self._apply_record(key_of(data), data)

    # Both roles: HELLO and revocation exchange

    def _on_hello(self, msg: list[Any]) -> list[bytes]:
        self._want(msg, m.HELLO)
        _, proto, node_id, revset, tree, count = msg
        require(proto == m.PROTOCOL_VERSION, KvReason.SESSION_PROTOCOL_VERSION)
        self.peer_id = node_id
        same_revs = revset == self.store.revset_hash()
        same_tree = (tree, count) == (self.store.tree_hash(), self.store.count())
        if self.role is Role.RESPONDER:
            out = [self._hello()]
            if not same_revs:
                self._expect = self._r_on_revs
            elif same_tree:
                self._expect = self._r_on_bye
            else:
                self._expect = self._r_in_pass
            return out
        if not same_revs:
            self._expect = self._i_on_revs
            return [m.message(m.REVS, sorted(self.store.revoked_ids()))]
        if same_tree:
            return [m.message(m.BYE), *self._finish()]
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
            return [m.message(m.BYE), *self._finish()]
        self._begin_pass()
        self._reconciling, self._haves_sent, self._tree_sent = True, False, False
        self._expect = self._i_in_pass
        return [m.message(m.RECON, recon.initiate(self._items))]

    def _i_in_pass(self, msg: list[Any]) -> list[bytes]:
        """Within a pass the initiator takes each answer to what it has sent, in order."""
        name = msg[0]
        if name == m.RECON and self._reconciling:
            return self._i_on_recon(msg[1])
        if name == m.RECORDS and self._wanted:
            return [self._results_for(msg[1], self._wanted.popleft()), *self._i_progress()]
        if name == m.RESULTS and self._sent:
            self._on_results(msg, self._sent.popleft())
            return self._i_progress()
        if name == m.TREE and self._tree_sent:
            self._in_pass = False
            if (msg[1], msg[2]) == (self.store.tree_hash(), self.store.count()):
                return [m.message(m.BYE), *self._finish()]
            return self._i_begin_pass()
        raise KvError(KvReason.SESSION_UNEXPECTED_MESSAGE, name)

    def _i_on_recon(self, payload: bytes) -> list[bytes]:
        """One reconciliation round; the records found missing are asked for at once (K8)."""
        self._count_round()
        step = recon.step(self._items, payload, initiator=True)
        self._have += step.have
        wants = batches(step.need)
        self._wanted.extend(frozenset(batch) for batch in wants)
        out = [m.message(m.WANT, batch) for batch in wants]
        if step.reply is not None:
            return [*out, m.message(m.RECON, step.reply)]
        self._reconciling = False
        return [*out, *self._i_progress()]

    def _i_progress(self) -> list[bytes]:
        """Once every WANT is answered, send the records the peer lacks; then close the pass.

        At most `SEND_WINDOW` RECORDS batches wait for their RESULTS at a time. Only records
        still current when their batch is made are sent: one replaced by a fetched newer
        version is gone, and one already returned inside a RESULTS is skipped (K7).
        """
        if self._reconciling or self._wanted:
            return []
        if not self._haves_sent:
            self._haves_sent = True
            self._unsent = deque(self._have)
        out = []
        while self._unsent and len(self._sent) < SEND_WINDOW:
            batch = self._next_batch()
            if batch:
                self._sent.append(len(batch))
                out.append(m.message(m.RECORDS, batch))
        if not self._sent and not self._unsent and not self._tree_sent:
            self._tree_sent = True
            out.append(self._tree())
        return out

    def _next_batch(self) -> list[bytes]:
        """Up to `TRANSFER_BATCH` of the unsent records that are still current."""
        batch: list[bytes] = []
        while self._unsent and len(batch) < TRANSFER_BATCH:
            record = self.store.get_by_entry_hash(self._unsent.popleft())
            if record is not None and record.key not in self._returned_keys:
                batch.append(record.encode())
        return batch

    # Responder

    def _r_on_revs(self, msg: list[Any]) -> list[bytes]:
        self._want(msg, m.REVS)
        self._peer_revs = frozenset(msg[1])
        self._expect = self._r_on_revdata
        return [m.message(m.REVS, sorted(self.store.revoked_ids()))]

    def _r_on_revdata(self, msg: list[Any]) -> list[bytes]:
        self._want(msg, m.REVDATA)
        self._apply_revocations(msg[1])
        self._expect = self._r_in_pass
        return [self._revdata_for(self._peer_revs)]

    def _r_on_bye(self, msg: list[Any]) -> list[bytes]:
        self._want(msg, m.BYE)
        return self._finish()

    def _r_in_pass(self, msg: list[Any]) -> list[bytes]:
        """Between HELLO (or REVDATA) and BYE the responder answers whatever A sends."""
        name = msg[0]
        if name == m.BYE:
            return self._finish()
        if name == m.RECON:
            if not self._in_pass:
                require(self.log.passes < self.max_loops, KvReason.SESSION_TOO_MANY_PASSES)
                self._begin_pass()
            self._count_round()
            reply = recon.step(self._items, msg[1], initiator=False).reply
            return [m.message(m.RECON, reply)]
        require(self._in_pass, KvReason.SESSION_UNEXPECTED_MESSAGE, name)
        if name == m.WANT:
            found = [self.store.get_by_entry_hash(i) for i in msg[1]]
            records = [r.encode() for r in found if r is not None]
            self._sent.append(len(records))
            return [m.message(m.RECORDS, records)]
        if name == m.RESULTS:
            require(bool(self._sent), KvReason.SESSION_UNEXPECTED_MESSAGE, "RESULTS")
            self._on_results(msg, self._sent.popleft())
            return []
        if name == m.RECORDS:
            return [self._results_for(msg[1], None)]
        self._want(msg, m.TREE)
        require(not self._sent, KvReason.SESSION_UNEXPECTED_MESSAGE, "TREE before RESULTS")
        self._in_pass = False
        return [self._tree()]
