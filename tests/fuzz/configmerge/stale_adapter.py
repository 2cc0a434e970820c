"""The reference's adapter whose `client` answers give, as the client's message (`msg`), the
stored message it started from, whatever it holds: a client that misreports its own state,
pushing what the reference pushes (for the tests)."""

import json
import sys

from swarmconf.conformance import btcodec
from swarmconf.conformance.adapter import builtin_adapter

adapter = builtin_adapter("reference")
for line in sys.stdin:
    request = json.loads(line)
    if request["op"] == "stop":
        break
    answer = adapter.handle(request)
    if request["op"] == "client" and "result" in answer:
        stale = []
        for text in answer["result"]["answers"]:
            step = btcodec.decode(bytes.fromhex(text))
            step[b"msg"] = bytes.fromhex(request["msg"])
            stale.append(btcodec.encode(step).hex())
        answer = {"result": {"answers": stale}}
    print(json.dumps({"id": request["id"], **answer}), flush=True)
