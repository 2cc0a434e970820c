"""Push and fetch outside sessions (kv-sync 3.1; decisions K9, K10).

A node sends each record it accepts from a local write as `PUSH([record])` to its peers, and
answers a peer's `PUSH` with the same `RESULTS` a session gives: one outcome and reason per
record, the revocations that voided any, and its own record where it refused one as stale or
rejected. A node that sees a newer version announced by Serf asks the origin for that key with
`FETCH([key])`, answered by `RECORDS` holding the stored records (none for an absent key). Both
are sans-I/O: one frame in, one frame out, every record judged by `receive_record`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from . import messages as m
from .reasons import KvError, KvReason, require
from .records import decode_record
from .state import DEFAULT_SKEW_MS, Outcome, Store, Verdict, receive_record


@dataclass
class Results:
    """A RESULTS frame being filled, one verdict at a time (K7).

    Each record gets its outcome and reason; the revocations that voided it go back once; the
    local record goes back where one was refused as stale or rejected, once per key in
    `returned` (shared by a whole session pass).
    """

    store: Store
    returned: set[str] = field(default_factory=set)
    outcomes: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    revocations: list[bytes] = field(default_factory=list)
    own: list[bytes] = field(default_factory=list)
    _revoked: set[bytes] = field(default_factory=set)

    def add(self, key: str, verdict: Verdict) -> None:
        """Record the verdict on one record of `key` (`""` when it did not decode)."""
        self.outcomes.append(verdict.outcome.value)
        self.reasons.append(verdict.reason.value if verdict.reason is not None else "")
        for gid in verdict.revoked_ids:
            revocation = self.store.get_revocation(gid)
            if revocation is not None and gid not in self._revoked:
                self._revoked.add(gid)
                self.revocations.append(revocation.encode())
        if verdict.outcome in (Outcome.STALE, Outcome.REJECTED) and key not in self.returned:
            local = self.store.get(key) if key else None
            if local is not None:
                self.returned.add(key)
                self.own.append(local.encode())

    def frame(self) -> bytes:
        """The RESULTS message."""
        return m.message(m.RESULTS, self.outcomes, self.reasons, self.revocations, self.own)


@dataclass
class Answer:
    """The reply to one PUSH or FETCH frame, and what the push did to the store."""

    reply: bytes
    verdicts: list[tuple[str, Verdict]] = field(default_factory=list)
    """Each pushed record's key (`""` if it did not decode) and verdict, in order."""

    @property
    def accepted(self) -> list[str]:
        """Keys whose pushed record was new here and stored (the ones worth relaying)."""
        return [key for key, v in self.verdicts if v.outcome is Outcome.ACCEPTED]


def answer(
    store: Store, frame: bytes, root: bytes, now_ms: int, skew_ms: int = DEFAULT_SKEW_MS
) -> Answer:
    """Answer one PUSH or FETCH frame; any other frame raises `KvError` with its reason."""
    msg = m.decode_message(frame)
    require(msg[0] in (m.PUSH, m.FETCH), KvReason.SESSION_UNEXPECTED_MESSAGE, msg[0])
    if msg[0] == m.FETCH:
        found = (store.get(key) for key in msg[1])
        return Answer(m.message(m.RECORDS, [r.encode() for r in found if r is not None]))
    results, verdicts = Results(store), []
    for data in msg[1]:
        key = key_of(data)
        verdict = receive_record(store, data, root, now_ms, skew_ms)
        verdicts.append((key, verdict))
        results.add(key, verdict)
    return Answer(results.frame(), verdicts)


def key_of(data: bytes) -> str:
    """The key of record bytes, or `""` when they do not decode (a per-record rejection)."""
    try:
        return decode_record(data).key
    except KvError:
        return ""
