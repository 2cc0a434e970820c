#!/usr/bin/env python3
"""A complete conformance adapter for a Python client, here `swarmconf.reference.configmerge`.

Run it with:  swarmconf conformance run --client "python3 docs/examples/conformance_adapter.py"

It reads one JSON request per line on stdin and writes one JSON answer per line on stdout.
Byte fields travel as lowercase hex; `bt` fields hold bt-encoded bytes. A client in another
language follows the same shape: decode the request, call the client, encode the answer.
"""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Callable
from typing import Any

from swarmconf.conformance import btcodec
from swarmconf.reference import configmerge as client
from swarmconf.reference.configmerge.client import Client

Request = dict[str, Any]
Result = dict[str, Any]


# Between the wire's bt values and the client's own types ------------------------------------
# btcodec is a lenient bt codec: it reads what a client must refuse (integers beyond 64 bits,
# lists of dicts), so that the refusal comes from the client, and writes sets in set order.


def to_client(value: Any) -> Any:
    """bt lists of scalars are sets in the client; dicts recurse."""
    if isinstance(value, dict):
        return {key: to_client(item) for key, item in value.items()}
    if isinstance(value, list) and all(isinstance(item, (int, bytes)) for item in value):
        return set(value)
    return value  # a list holding containers stays a list: the client must refuse it


def bt_hex(value: Any) -> str:
    """Client values (sets, lagged entries, set diffs) as bt-encoded hex."""
    return btcodec.encode(value).hex()


def raw(request: Request, name: str) -> bytes:
    """A required byte field of the request."""
    return bytes.fromhex(request[name])


def field(request: Request, name: str) -> bytes | None:
    """An optional byte field of the request."""
    return bytes.fromhex(request[name]) if request.get(name) is not None else None


def data_field(request: Request, name: str) -> Any:
    return to_client(btcodec.decode(bytes.fromhex(request[name])))


def set_data(message: Any, data: dict[bytes, Any]) -> None:
    """Replace the message's data; the client records the edit as the message's diff."""
    message.data.clear()
    message.data.update(data)


def published(message: Any, sign_key: bytes | None) -> Result:
    return {"msg": message.serialize(sign_key).hex(), "hash": message.hash.hex()}


def parsed(request: Request, verify: bool = True) -> Any:
    verify_key = field(request, "verify_key") if verify else None
    return client.parse(raw(request, "msg"), lag=request["lag"], verify_key=verify_key)


# The operations ------------------------------------------------------------------------------


def op_parse(request: Request) -> Result:
    message = parsed(request)
    extra = b"".join(btcodec.encode(key) + value for key, value in sorted(message.extra.items()))
    return {
        "seqno": message.seqno,
        "hash": message.hash.hex(),
        "data": bt_hex(message.data),
        "diff": bt_hex(message.diff),
        "lagged": bt_hex([[e.seqno, e.hash, e.diff] for e in message.lagged]),
        "extra": (b"d" + extra + b"e").hex(),
        "signature": message.signature.hex() if message.signature is not None else None,
    }


def op_hash(request: Request) -> Result:
    return {"hash": parsed(request).hash.hex()}


def op_new(request: Request) -> Result:
    message = client.ConfigMessage.new(request["seqno"], lag=request["lag"])
    set_data(message, data_field(request, "data"))
    return {**published(message, field(request, "sign_key")), "diff": bt_hex(message.diff)}


def op_serialize(request: Request) -> Result:
    return published(parsed(request), field(request, "sign_key"))


def op_diff(request: Request) -> Result:
    before = client.ConfigMessage.new(0)
    set_data(before, data_field(request, "old"))
    after = client.parse(before.serialize()).increment()
    set_data(after, data_field(request, "new"))
    return {"diff": bt_hex(after.diff)}


def op_increment(request: Request) -> Result:
    message = parsed(request).increment()
    if "data" in request:
        set_data(message, data_field(request, "data"))
    return published(message, field(request, "sign_key"))


def op_merge(request: Request) -> Result:
    sign_key = field(request, "sign_key")
    message = client.merge(
        [bytes.fromhex(text) for text in request["msgs"]],
        lag=request["lag"],
        verify_key=field(request, "verify_key"),
        sign_key=sign_key,
    )
    # What the push of this result deletes (D27), before any edit changes the result
    obsolete = client.obsolete_after_merge(
        [bytes.fromhex(text) for text in request["msgs"]],
        message,
        lag=request["lag"],
        verify_key=field(request, "verify_key"),
    )
    deleted = {"obsolete": [digest.hex() for digest in obsolete]}
    if not message.merged:  # one message survived: it is returned as it was
        return {"merged": False, **published(message, None), **deleted}
    if "data" in request:
        set_data(message, data_field(request, "data"))
    return {"merged": True, **published(message, sign_key), **deleted}


def play_step(swarm_client: Client, step: dict[bytes, Any]) -> dict[bytes, Any]:
    """One client step (`receive`, `edit`, `push` or `confirm`) and what the client says after
    it: what the step pushes and deletes, its current hashes, whether it needs a push, its
    message as it would push it and the hashes its next push deletes."""
    pushed = None
    if step[b"do"] == b"receive":
        swarm_client.receive(list(step[b"msgs"]))
    elif step[b"do"] == b"edit":
        swarm_client.edit(to_client(step[b"data"]))
    elif step[b"do"] == b"push":
        pushed = swarm_client.push()  # None when the client needs no push
    elif step[b"do"] == b"confirm":
        swarm_client.confirm()
    else:
        raise client.UsageError(client.Reason.BAD_VALUE_TYPE, "unknown step")
    message = swarm_client.message
    answer = {
        b"current": swarm_client.current_hashes(),
        b"deleted": pushed.deleted if pushed is not None else [],
        b"msg": message.serialize(swarm_client.sign_key) if message is not None else b"",
        b"needs_push": int(swarm_client.needs_push()),
        # A read-only client deletes nothing (D32)
        b"to_delete": [] if swarm_client.read_only else sorted(swarm_client.to_delete),
    }
    if pushed is not None:
        answer[b"hash"], answer[b"pushed"] = pushed.hash, pushed.message
    return answer


def op_client(request: Request) -> Result:
    swarm_client = Client(
        lag=request["lag"],
        profile=request["profile"],  # `libsession` to push what deployed clients push
        verify_key=field(request, "verify_key"),
        sign_key=field(request, "sign_key"),
        current=parsed(request) if "msg" in request else None,
    )
    steps = [btcodec.decode(bytes.fromhex(text)) for text in request["steps"]]
    return {"answers": [bt_hex(play_step(swarm_client, step)) for step in steps]}


def op_sign(request: Request) -> Result:
    return published(parsed(request, verify=False), field(request, "sign_key"))


def op_verify(request: Request) -> Result:
    message = parsed(request)
    return {"seqno": message.seqno, "hash": message.hash.hex()}


def op_encrypt(request: Request) -> Result:
    ciphertext = client.encrypt(
        raw(request, "plaintext"),
        raw(request, "key"),
        profile=request["profile"],
        domain=field(request, "domain"),
    )
    return {"ciphertext": ciphertext.hex()}


def op_decrypt(request: Request) -> Result:
    plaintext = client.decrypt(
        raw(request, "ciphertext"),
        raw(request, "key"),
        profile=request["profile"],
        domain=field(request, "domain"),
    )
    return {"plaintext": plaintext.hex()}


def op_pad(request: Request) -> Result:
    return {"padded": client.pad(raw(request, "plaintext"), request["overhead"]).hex()}


def op_unpad(request: Request) -> Result:
    return {"plaintext": client.unpad(raw(request, "padded")).hex()}


def op_wrap(request: Request) -> Result:
    blobs = client.wrap(
        raw(request, "message"),
        raw(request, "key"),
        raw(request, "domain"),
        level=request.get("level"),
    )
    return {"blobs": [blob.hex() for blob in blobs]}


def op_unwrap(request: Request) -> Result:
    message = client.unwrap(
        [bytes.fromhex(text) for text in request["blobs"]],
        [bytes.fromhex(text) for text in request["keys"]],
        raw(request, "domain"),
    )
    return {"msg": message.hex()}


OPERATIONS: dict[str, Callable[[Request], Result]] = {
    "parse": op_parse,
    "hash": op_hash,
    "new": op_new,
    "serialize": op_serialize,
    "diff": op_diff,
    "increment": op_increment,
    "merge": op_merge,
    "sign": op_sign,
    "verify": op_verify,
    "encrypt": op_encrypt,
    "decrypt": op_decrypt,
    "pad": op_pad,
    "unpad": op_unpad,
    "wrap": op_wrap,
    "unwrap": op_unwrap,
    "client": op_client,
}


# The protocol loop ---------------------------------------------------------------------------


def answer(request: Request) -> dict[str, Any]:
    op = request.get("op")
    if op == "hello":
        return {
            "name": "worked-example",
            "version": "1",
            "language": "python",
            "protocol": 1,
            "ops": [*OPERATIONS],
            "profiles": ["libsession", "spec"],
            "quirks": [],  # none: this client is swarmconf's reference
        }
    if op not in OPERATIONS:
        return {"skipped": f"op {op!r} is not implemented"}
    try:
        return {"result": OPERATIONS[op](request)}
    except (client.ConfigError, client.UsageError) as refusal:
        return {"reason": refusal.reason.value}  # the client refused the input
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
