"""What the clients of a fault run saw, and the checker that judges it.

Clients record every operation with when it started and ended (seconds since the run began)
and its outcome: `ok` (the node acknowledged it), `fail` (the node refused it) or `unknown`
(no answer: it may or may not have been applied). A monitor records each node's revocation
count as it polls. The checker then holds the history to three rules:

1. every acknowledged write is on every node at the end, unless its grant was revoked (or may
   have been: a revocation that got no answer);
2. no read ever returned a value no client wrote, or a forged one, and no forged write was
   acknowledged; no read on a node returned a value under a grant that node had already
   revoked (from the first poll showing the revocation there, or its acknowledgement there),
   and no such value is left anywhere at the end;
3. all nodes end on one tree hash (and one revocation-set hash).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

WRITE = "write"
GRANTED = "grant-write"
FORGED = "forged-write"
REVOKE = "revoke"
READ = "read"


@dataclass(frozen=True)
class Op:
    """One client operation on node `node` (`key` is the revoked grant's prefix for REVOKE)."""

    schedule: int
    kind: str
    node: int
    key: str
    value: bytes | None
    start: float
    end: float
    outcome: str
    size: int = 0
    """Bytes of the record written (writes only)."""


@dataclass(frozen=True)
class Sample:
    """A node's revocation count seen by the monitor at `time`."""

    node: int
    time: float
    revocations: int


@dataclass
class History:
    """Every operation and sample of a run."""

    ops: list[Op] = field(default_factory=list)
    samples: list[Sample] = field(default_factory=list)


@dataclass(frozen=True)
class Final:
    """One node's state at the end: its values by key (None: deleted), and its tree and
    revocation-set hashes."""

    values: dict[str, bytes | None]
    hashes: tuple[str, str]


def revoked_prefixes(ops: Iterable[Op]) -> dict[str, float]:
    """Each revoked grant's key prefix and when its revocation was first acknowledged."""
    revoked: dict[str, float] = {}
    for op in ops:
        if op.kind == REVOKE and op.outcome == "ok":
            revoked[op.key] = min(revoked.get(op.key, op.end), op.end)
    return revoked


def lost_writes(history: History, finals: dict[int, Final]) -> list[str]:
    """Rule 1: the acknowledged writes missing from a node at the end."""
    revoked = {op.key for op in history.ops if op.kind == REVOKE and op.outcome != "fail"}
    lost = []
    for op in history.ops:
        if op.kind not in (WRITE, GRANTED) or op.outcome != "ok":
            continue
        if any(op.key.startswith(prefix) for prefix in revoked):
            continue
        for node, final in finals.items():
            if final.values.get(op.key) != op.value:
                lost.append(f"acknowledged write {op.key} missing on n{node}")
    return lost


def violations(history: History, finals: dict[int, Final]) -> list[str]:
    """Everything the history and the final states break, rule by rule."""
    found = lost_writes(history, finals)
    written = {op.key: op.value for op in history.ops if op.kind in (WRITE, GRANTED)}
    forged = {op.key for op in history.ops if op.kind == FORGED}
    found += [f"forged write {op.key} acknowledged on n{op.node}" for op in history.ops
              if op.kind == FORGED and op.outcome == "ok"]  # fmt: skip
    revoked = revoked_prefixes(history.ops)
    since = _revoked_since(history, revoked)
    for op in history.ops:
        if op.kind != READ or op.value is None:
            continue
        if op.key in forged or written.get(op.key) != op.value:
            found.append(f"n{op.node} returned {op.key}={op.value!r}, which no client wrote")
        for prefix, times in since.items():
            if op.key.startswith(prefix) and op.start > times.get(op.node, float("inf")):
                found.append(f"n{op.node} returned {op.key} after revoking {prefix}")
    for node, final in finals.items():
        for key, value in final.values.items():
            if value is None:
                continue
            if key in forged or written.get(key) != value:
                found.append(f"n{node} holds {key}={value!r}, which no client wrote")
            if any(key.startswith(prefix) for prefix in revoked):
                found.append(f"n{node} still holds {key}, whose grant was revoked")
    if len({final.hashes for final in finals.values()}) > 1:
        found.append("the nodes end on different tree or revocation-set hashes")
    return found


def _revoked_since(history: History, revoked: dict[str, float]) -> dict[str, dict[int, float]]:
    """For each revoked prefix, when each node is known to hold its revocation: where it was
    acknowledged, or the first sample showing as many revocations as had been acknowledged."""
    order = sorted(revoked, key=revoked.__getitem__)
    since: dict[str, dict[int, float]] = {prefix: {} for prefix in order}
    for op in history.ops:
        if op.kind == REVOKE and op.outcome == "ok":
            seen = since[op.key]
            seen[op.node] = min(seen.get(op.node, op.end), op.end)
    for sample in sorted(history.samples, key=lambda s: s.time):
        for count, prefix in enumerate(order, start=1):
            if sample.revocations >= count and sample.time >= revoked[prefix]:
                seen = since[prefix]
                seen[sample.node] = min(seen.get(sample.node, sample.time), sample.time)
    return since
