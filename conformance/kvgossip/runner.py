"""The K/V Gossip operations of the adapter protocol, answered by the spec:
`run(op, group, input) -> Outcome`.

The generator computes every case's `result`, `reason` and `expected` with these functions, and
the built-in adapters answer the `kv_*` requests with them; an implementation under test must
produce the same three things.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from swarmconf.spec.kvgossip import push, recon
from swarmconf.spec.kvgossip.chain import authorize
from swarmconf.spec.kvgossip.grants import (
    check_grant_for,
    decode_grant,
    decode_revocation,
)
from swarmconf.spec.kvgossip.keys import check_key, check_pattern, matches
from swarmconf.spec.kvgossip.reasons import KvError
from swarmconf.spec.kvgossip.records import decode_record
from swarmconf.spec.kvgossip.session import Role, Session
from swarmconf.spec.kvgossip.state import MemoryStore, apply_revocation, receive_record
from swarmconf.spec.kvgossip.treehash import entry_sum, revset_hash, tree_hash_of

Json = dict[str, Any]


@dataclass(frozen=True)
class Outcome:
    """What the spec says about a case."""

    result: str
    reason: str | None
    expected: Json | None


def valid(expected: Json) -> Outcome:
    return Outcome("valid", None, expected)


def invalid(err: KvError, expected: Json | None = None) -> Outcome:
    return Outcome("invalid", err.reason.value, expected)


def h(data: bytes) -> str:
    return data.hex()


def b(text: str) -> bytes:
    return bytes.fromhex(text)


def run_decode(group: Json, data: Json) -> Outcome:
    """Encoding suite: decode a grant, revocation or record and name its id."""
    raw, root = b(data["bytes"]), b(group["rootKey"])
    try:
        if data["kind"] == "grant":
            return valid({"id": h(decode_grant(raw).id)})
        if data["kind"] == "revocation":
            return valid({"id": h(decode_revocation(raw, root).grant_id)})
        return valid({"id": h(decode_record(raw).entry_hash)})
    except KvError as err:
        return invalid(err)


def run_key(group: Json, data: Json) -> Outcome:
    try:
        check_key(data["key"])
    except KvError as err:
        return invalid(err)
    return valid({})


def run_pattern(group: Json, data: Json) -> Outcome:
    try:
        check_pattern(data["pattern"])
    except KvError as err:
        return invalid(err)
    return valid({})


def run_match(group: Json, data: Json) -> Outcome:
    return valid({"matches": matches(data["pattern"], data["key"])})


def run_grant_for_key(group: Json, data: Json) -> Outcome:
    """Grants suite: may this grant stand on a chain for `key` at record time `ts`?"""
    revoked = {b(x) for x in data["revokedIds"]}
    try:
        grant = decode_grant(b(data["grant"]))
        check_grant_for(grant, data["key"], data["ts"], b(group["rootKey"]), revoked)
    except KvError as err:
        return invalid(err)
    return valid({"grantId": h(grant.id)})


def run_revocation(group: Json, data: Json) -> Outcome:
    try:
        revocation = decode_revocation(b(data["revocation"]), b(group["rootKey"]))
    except KvError as err:
        return invalid(err)
    return valid({"grantId": h(revocation.grant_id), "revoker": h(revocation.revoker)})


def run_authorize(group: Json, data: Json) -> Outcome:
    """Chains suite: decode a record and authorise it under a revocation set."""
    revoked = {b(x) for x in data["revokedIds"]}
    try:
        record = decode_record(b(data["record"]))
    except KvError as err:
        return invalid(err)
    auth = authorize(
        record.key, record.ts, record.signer, record.chain, b(group["rootKey"]), revoked
    )
    if auth.chain is None:
        assert auth.reason is not None
        return Outcome(
            "invalid", auth.reason.value, {"revokedIds": [h(x) for x in auth.revoked_ids]}
        )
    return valid({"chain": [h(g.id) for g in auth.chain], "entryHash": h(record.entry_hash)})


def store_summary(store: MemoryStore) -> Json:
    return {
        "records": {key: h(r.entry_hash) for key, r in sorted(store.records.items())},
        "treeHash": h(store.tree_hash()),
        "revsetHash": h(store.revset_hash()),
    }


def run_apply(group: Json, data: Json) -> Outcome:
    """Store suite: apply records and revocations in order; each outcome and the end state."""
    store, root, skew = MemoryStore(), b(group["rootKey"]), group["skewMs"]
    outcomes: list[Json] = []
    for op in data["ops"]:
        if op["op"] == "record":
            verdict = receive_record(store, b(op["bytes"]), root, op["now"], skew)
            reason = verdict.reason.value if verdict.reason is not None else None
            outcomes.append({"outcome": verdict.outcome.value, "reason": reason, "purged": []})
        else:
            rv = apply_revocation(store, b(op["bytes"]), root)
            outcome = "rejected" if rv.reason is not None else ("new" if rv.new else "known")
            reason = rv.reason.value if rv.reason is not None else None
            outcomes.append({"outcome": outcome, "reason": reason, "purged": list(rv.purged)})
    return valid({"outcomes": outcomes, **store_summary(store)})


def run_tree(group: Json, data: Json) -> Outcome:
    """Treehash suite: the running sum, count and tree hash of a set of records."""
    records = [decode_record(b(x)) for x in data["records"]]
    total = entry_sum(r.entry_hash for r in records)
    return valid(
        {
            "entrySum": h(total.to_bytes(32, "little")),
            "count": len(records),
            "treeHash": h(tree_hash_of(records)),
        }
    )


def run_revset(group: Json, data: Json) -> Outcome:
    return valid({"revsetHash": h(revset_hash(b(x) for x in data["grantIds"]))})


def load_store(snapshot: Json, root: bytes) -> MemoryStore:
    """A store holding exactly the snapshot's records and revocations (trusted, not re-judged)."""
    records = [decode_record(b(x)) for x in snapshot["records"]]
    revocations = [decode_revocation(b(x), root) for x in snapshot["revocations"]]
    return MemoryStore(records, revocations)


def session_summary(session: Session, store: MemoryStore) -> Json:
    error = session.error.value if session.error is not None else None
    return {"error": error, "passes": session.log.passes, **store_summary(store)}


def run_transcript(group: Json, data: Json) -> Outcome:
    """Sessions suite: two honest sessions talk until neither sends; the full transcript."""
    root = b(group["rootKey"])
    stores = {role: load_store(data[role], root) for role in ("initiator", "responder")}
    sessions = {
        role: Session(
            Role(role),
            stores[role],
            root,
            role.encode(),
            skew_ms=group["skewMs"],
            max_loops=group["maxLoops"],
        )
        for role in stores
    }
    now = data["now"]
    frames: list[Json] = []
    out, sender = sessions["initiator"].start(now), "initiator"
    while out:
        peer = "responder" if sender == "initiator" else "initiator"
        replies: list[bytes] = []
        for frame in out:
            frames.append({"from": sender, "frame": h(frame)})
            replies += sessions[peer].receive(frame, now)
        out, sender = replies, peer
    return valid(
        {
            "frames": frames,
            **{role: session_summary(sessions[role], stores[role]) for role in sessions},
        }
    )


def run_scripted(group: Json, data: Json) -> Outcome:
    """Sessions suite: one role fed scripted peer frames; its replies and how it ends."""
    root = b(group["rootKey"])
    store = load_store(data["store"], root)
    session = Session(
        Role(data["role"]),
        store,
        root,
        data["role"].encode(),
        skew_ms=group["skewMs"],
        max_loops=group["maxLoops"],
    )
    replies = [[h(f) for f in session.start(data["now"])]]
    for frame in data["frames"]:
        replies.append([h(f) for f in session.receive(b(frame), data["now"])])
    if data["timeout"]:
        session.timeout()
    expected = {"replies": replies, "done": session.done, **session_summary(session, store)}
    if session.error is not None:
        return Outcome("invalid", session.error.value, expected)
    return valid(expected)


def load_items(listed: list[Json]) -> list[recon.Item]:
    return sorted((int(x["ts"]), b(x["id"])) for x in listed)


def run_reconcile(group: Json, data: Json) -> Outcome:
    """Recon suite: both sides' steps to the end; every message, and what the initiator found."""
    mine, theirs, limit = (
        load_items(data["initiator"]),
        load_items(data["responder"]),
        data["limit"],
    )
    message: bytes | None = recon.initiate(mine)
    messages, have, need = [], [], []
    while message is not None:
        messages.append(message)
        reply = recon.step(theirs, message, initiator=False, limit=limit).reply
        assert reply is not None
        messages.append(reply)
        step = recon.step(mine, reply, initiator=True, limit=limit)
        have += step.have
        need += step.need
        message = step.reply
    return valid(
        {
            "messages": [h(x) for x in messages],
            "have": [h(x) for x in have],
            "need": [h(x) for x in need],
        }
    )


def run_step(group: Json, data: Json) -> Outcome:
    """Recon suite: one step over the given items."""
    try:
        step = recon.step(load_items(data["items"]), b(data["message"]), data["initiator"])
    except KvError as err:
        return invalid(err)
    reply = None if step.reply is None else h(step.reply)
    return valid(
        {"reply": reply, "have": [h(x) for x in step.have], "need": [h(x) for x in step.need]}
    )


def run_push(group: Json, data: Json) -> Outcome:
    """Sessions suite: a PUSH or FETCH answered outside a session."""
    root = b(group["rootKey"])
    store = load_store(data["store"], root)
    try:
        got = push.answer(store, b(data["frame"]), root, data["now"], group["skewMs"])
    except KvError as err:
        return invalid(err)
    return valid({"reply": h(got.reply), **store_summary(store)})


RUNNERS: dict[str, Callable[[Json, Json], Outcome]] = {
    "kv_decode": run_decode,
    "kv_key": run_key,
    "kv_pattern": run_pattern,
    "kv_match": run_match,
    "kv_grant_for_key": run_grant_for_key,
    "kv_revocation": run_revocation,
    "kv_authorize": run_authorize,
    "kv_apply": run_apply,
    "kv_tree": run_tree,
    "kv_revset": run_revset,
    "kv_reconcile": run_reconcile,
    "kv_step": run_step,
    "kv_transcript": run_transcript,
    "kv_scripted": run_scripted,
    "kv_push": run_push,
}
"""The spec's answer to each `kv_*` operation of `ops.OPS`."""


def run(op: str, group: Json, data: Json) -> Outcome:
    """Run one case's input (with its group's shared fields) through the spec."""
    return RUNNERS[op](group, data)
