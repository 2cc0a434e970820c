#!/usr/bin/env python3
"""A complete K/V Gossip conformance adapter: the K/V node's SQLite store under the design's
rules (`swarmconf.reference.kvgossip` and `swarmconf.spec.kvgossip`).

Run it with:
    swarmconf conformance run --client "python3 docs/examples/kvgossip_adapter.py" \
        --design kvgossip

It reads one JSON request per line on stdin and writes one JSON answer per line on stdout.
Byte fields travel as lowercase hex. Operations that keep state (apply, sessions, push) run on
a fresh in-memory SQLite store of the node, so the vectors check the node's running tree hash
and its LWW index, not only the functions that judge a record.
"""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Callable
from typing import Any

from swarmconf.reference.kvgossip.store import SqliteStore
from swarmconf.spec.kvgossip import push, recon
from swarmconf.spec.kvgossip.chain import authorize
from swarmconf.spec.kvgossip.grants import check_grant_for, decode_grant, decode_revocation
from swarmconf.spec.kvgossip.keys import check_key, check_pattern, matches
from swarmconf.spec.kvgossip.reasons import KvError
from swarmconf.spec.kvgossip.records import decode_record
from swarmconf.spec.kvgossip.session import Role, Session
from swarmconf.spec.kvgossip.state import apply_revocation, receive_record
from swarmconf.spec.kvgossip.treehash import entry_sum, revset_hash, tree_hash_of

Request = dict[str, Any]
Result = dict[str, Any]


class Refused(Exception):
    """The client refuses the input; `state` is what the refusal leaves, where the op has one."""

    def __init__(self, reason: str, state: Result | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.state = state


def raw(request: Request, name: str) -> bytes:
    return bytes.fromhex(request[name])


def hexes(values: list[bytes] | tuple[bytes, ...]) -> list[str]:
    return [value.hex() for value in values]


# A node's store -------------------------------------------------------------------------------


def store_of(snapshot: Request, root: bytes) -> SqliteStore:
    """A fresh store holding the snapshot's records and revocations (trusted, not re-judged)."""
    store = SqliteStore(":memory:", root)
    with store.transaction():
        for text in snapshot["revocations"]:
            store.add_revocation(decode_revocation(bytes.fromhex(text), root))
        for text in snapshot["records"]:
            store.put(decode_record(bytes.fromhex(text)))
    return store


def summary(store: SqliteStore) -> Result:
    records = {record.key: record.entry_hash.hex() for record in store.records_under("")}
    return {
        "records": dict(sorted(records.items())),
        "treeHash": store.tree_hash().hex(),
        "revsetHash": store.revset_hash().hex(),
    }


# Operations -----------------------------------------------------------------------------------


def op_decode(request: Request) -> Result:
    data = raw(request, "bytes")
    if request["kind"] == "grant":
        return {"id": decode_grant(data).id.hex()}
    if request["kind"] == "revocation":
        return {"id": decode_revocation(data, raw(request, "rootKey")).grant_id.hex()}
    return {"id": decode_record(data).entry_hash.hex()}


def op_key(request: Request) -> Result:
    check_key(request["key"])
    return {}


def op_pattern(request: Request) -> Result:
    check_pattern(request["pattern"])
    return {}


def op_match(request: Request) -> Result:
    return {"matches": matches(request["pattern"], request["key"])}


def op_grant_for_key(request: Request) -> Result:
    grant = decode_grant(raw(request, "grant"))
    revoked = {bytes.fromhex(text) for text in request["revokedIds"]}
    check_grant_for(grant, request["key"], request["ts"], raw(request, "rootKey"), revoked)
    return {"grantId": grant.id.hex()}


def op_revocation(request: Request) -> Result:
    revocation = decode_revocation(raw(request, "revocation"), raw(request, "rootKey"))
    return {"grantId": revocation.grant_id.hex(), "revoker": revocation.revoker.hex()}


def op_authorize(request: Request) -> Result:
    record = decode_record(raw(request, "record"))
    revoked = {bytes.fromhex(text) for text in request["revokedIds"]}
    root = raw(request, "rootKey")
    found = authorize(record.key, record.ts, record.signer, record.chain, root, revoked)
    if found.chain is None:
        assert found.reason is not None
        raise Refused(found.reason.value, {"revokedIds": hexes(found.revoked_ids)})
    chain = [grant.id.hex() for grant in found.chain]
    return {"chain": chain, "entryHash": record.entry_hash.hex()}


def op_apply(request: Request) -> Result:
    root = raw(request, "rootKey")
    store = SqliteStore(":memory:", root)
    outcomes = []
    for step in request["ops"]:
        data = bytes.fromhex(step["bytes"])
        with store.transaction():
            if step["op"] == "record":
                verdict = receive_record(store, data, root, step["now"], request["skewMs"])
                outcome, why, purged = verdict.outcome.value, verdict.reason, []
            else:
                revoked = apply_revocation(store, data, root)
                outcome = "rejected" if revoked.reason else ("new" if revoked.new else "known")
                why, purged = revoked.reason, list(revoked.purged)
        reason = why.value if why is not None else None
        outcomes.append({"outcome": outcome, "reason": reason, "purged": purged})
    return {"outcomes": outcomes, **summary(store)}


def op_tree(request: Request) -> Result:
    records = [decode_record(bytes.fromhex(text)) for text in request["records"]]
    total = entry_sum(record.entry_hash for record in records)
    return {
        "entrySum": total.to_bytes(32, "little").hex(),
        "count": len(records),
        "treeHash": tree_hash_of(records).hex(),
    }


def op_revset(request: Request) -> Result:
    return {"revsetHash": revset_hash(bytes.fromhex(text) for text in request["grantIds"]).hex()}


def items(listed: list[Request]) -> list[recon.Item]:
    return sorted((int(item["ts"]), bytes.fromhex(item["id"])) for item in listed)


def op_reconcile(request: Request) -> Result:
    mine, theirs = items(request["initiator"]), items(request["responder"])
    messages: list[bytes] = []
    have: list[bytes] = []
    need: list[bytes] = []
    message: bytes | None = recon.initiate(mine)
    while message is not None:
        reply = recon.step(theirs, message, initiator=False, limit=request["limit"]).reply
        assert reply is not None, "a responder always answers"
        messages += [message, reply]
        step = recon.step(mine, reply, initiator=True, limit=request["limit"])
        have, need, message = have + step.have, need + step.need, step.reply
    return {"messages": hexes(messages), "have": hexes(have), "need": hexes(need)}


def op_step(request: Request) -> Result:
    step = recon.step(items(request["items"]), raw(request, "message"), request["initiator"])
    reply = None if step.reply is None else step.reply.hex()
    return {"reply": reply, "have": hexes(step.have), "need": hexes(step.need)}


def session(request: Request, role: str, store: SqliteStore) -> Session:
    return Session(
        Role(role),
        store,
        raw(request, "rootKey"),
        role.encode(),
        skew_ms=request["skewMs"],
        max_loops=request["maxLoops"],
    )


def session_summary(talker: Session, store: SqliteStore) -> Result:
    error = talker.error.value if talker.error is not None else None
    return {"error": error, "passes": talker.log.passes, **summary(store)}


def op_transcript(request: Request) -> Result:
    root, now = raw(request, "rootKey"), request["now"]
    stores = {role: store_of(request[role], root) for role in ("initiator", "responder")}
    talkers = {role: session(request, role, store) for role, store in stores.items()}
    frames, sender = [], "initiator"
    out = talkers[sender].start(now)
    while out:
        peer = "responder" if sender == "initiator" else "initiator"
        replies: list[bytes] = []
        for frame in out:
            frames.append({"from": sender, "frame": frame.hex()})
            replies += talkers[peer].receive(frame, now)
        out, sender = replies, peer
    ends = {role: session_summary(talkers[role], stores[role]) for role in talkers}
    return {"frames": frames, **ends}


def op_scripted(request: Request) -> Result:
    store = store_of(request["store"], raw(request, "rootKey"))
    talker = session(request, request["role"], store)
    replies = [hexes(talker.start(request["now"]))]
    for frame in request["frames"]:
        replies.append(hexes(talker.receive(bytes.fromhex(frame), request["now"])))
    if request["timeout"]:
        talker.timeout()
    state = {"replies": replies, "done": talker.done, **session_summary(talker, store)}
    if talker.error is not None:
        raise Refused(talker.error.value, state)
    return state


def op_push(request: Request) -> Result:
    root = raw(request, "rootKey")
    store = store_of(request["store"], root)
    with store.transaction():
        got = push.answer(store, raw(request, "frame"), root, request["now"], request["skewMs"])
    return {"reply": got.reply.hex(), **summary(store)}


OPERATIONS: dict[str, Callable[[Request], Result]] = {
    "kv_decode": op_decode,
    "kv_key": op_key,
    "kv_pattern": op_pattern,
    "kv_match": op_match,
    "kv_grant_for_key": op_grant_for_key,
    "kv_revocation": op_revocation,
    "kv_authorize": op_authorize,
    "kv_apply": op_apply,
    "kv_tree": op_tree,
    "kv_revset": op_revset,
    "kv_reconcile": op_reconcile,
    "kv_step": op_step,
    "kv_transcript": op_transcript,
    "kv_scripted": op_scripted,
    "kv_push": op_push,
}


# The protocol loop ----------------------------------------------------------------------------


def answer(request: Request) -> dict[str, Any]:
    op = request.get("op")
    if op == "hello":
        return {
            "name": "worked-kv-example",
            "version": "1",
            "language": "python",
            "protocol": 1,
            "ops": [*OPERATIONS],
            "quirks": [],
        }
    if op not in OPERATIONS:
        return {"skipped": f"op {op!r} is not implemented"}
    try:
        return {"result": OPERATIONS[op](request)}
    except KvError as refusal:
        return {"reason": refusal.reason.value}
    except Refused as refusal:
        state = {} if refusal.state is None else {"result": refusal.state}
        return {"reason": refusal.reason, **state}
    except Exception as error:  # anything else is a bug in the client
        return {"errored": "".join(traceback.format_exception(error))}


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("op") == "stop":
            break
        print(json.dumps({"id": request.get("id"), **answer(request)}), flush=True)


if __name__ == "__main__":
    main()
