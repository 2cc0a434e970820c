#!/usr/bin/env python3
"""A conformance adapter to copy: it speaks the protocol and implements no operation yet.

Copy this file (or translate it, some forty lines, into your client's language), fill in
`OPERATIONS` with functions calling your client, and run:

    swarmconf conformance run --client "python3 my_adapter.py"

Each operation receives the request (a dict; bytes arrive as lowercase hex strings, see
PROTOCOL.md for each op's fields) and returns the result dict. To refuse an input, raise
`Refused("REASON_CODE")` with one of the reason codes in PROTOCOL.md. `hello` lists the ops
in `OPERATIONS`, so the runner counts the cases of every other op as not applicable; a run
passes once at least one case was checked and none failed. Fill in `QUIRKS` with the deployed
client's quirks (X1..X20 of the errata) your client shares, to have its cases graded
acceptable where it behaves as the quirk says, and `LIMITS` with what a typed API cannot even
express (`wide-data-integers`, `container-set-elements`), whose cases are then not applicable.

`wrap` and `unwrap` check the payload layer: what your client stores in the swarm for a
message (compressed, padded, encrypted, split into parts) and how it reads such blobs back.
"""

import json
import sys
from collections.abc import Callable
from typing import Any

Request = dict[str, Any]


class Refused(Exception):
    """The client refuses the input; the argument is the reason code."""


# Fill in as you go. For example, with a `hash` function:
#     def hash_op(request: Request) -> dict[str, Any]:
#         message = my_client.parse(bytes.fromhex(request["msg"]), lag=request["lag"])
#         return {"hash": message.hash.hex()}
#     OPERATIONS = {"hash": hash_op}
# and with functions that push and read swarm blobs:
#     def wrap_op(request: Request) -> dict[str, Any]:
#         blobs = my_client.push_blobs(bytes.fromhex(request["message"]), ...)
#         return {"blobs": [blob.hex() for blob in blobs]}
#     def unwrap_op(request: Request) -> dict[str, Any]:
#         message = my_client.read_blobs([bytes.fromhex(b) for b in request["blobs"]], ...)
#         return {"msg": message.hex()}
OPERATIONS: dict[str, Callable[[Request], dict[str, Any]]] = {}
PROFILES: list[str] = ["libsession", "spec"]  # the encryption profiles the client supports
QUIRKS: list[str] = []  # e.g. ["X1", "X3"]
LIMITS: list[str] = []  # e.g. ["wide-data-integers"] for an API whose integers are int64


def answer(request: Request) -> dict[str, Any]:
    op = request.get("op")
    if op == "hello":
        return {
            "name": "my-client",
            "version": "0.0.1",
            "language": "python",
            "protocol": 1,
            "ops": list(OPERATIONS),
            "profiles": PROFILES,
            "quirks": QUIRKS,
            "limits": LIMITS,
        }
    if op not in OPERATIONS:
        return {"skipped": f"op {op} not implemented"}
    try:
        return {"result": OPERATIONS[op](request)}
    except Refused as refusal:
        return {"reason": str(refusal)}
    except Exception as error:  # a bug in the client, not a refusal
        return {"errored": repr(error)}


def main() -> None:
    for line in sys.stdin:
        request = json.loads(line)
        if request.get("op") == "stop":
            break
        print(json.dumps({"id": request.get("id"), **answer(request)}), flush=True)


if __name__ == "__main__":
    main()
