"""The spec's adapter, sleeping a second before it answers a request at lag 7: a client slow
without spinning (for the tests)."""

import json
import sys
import time

from swarmconf.conformance.adapter import builtin_adapter

SLOW_LAG = 7
adapter = builtin_adapter("spec")
for line in sys.stdin:
    request = json.loads(line)
    if request["op"] == "stop":
        break
    if request.get("lag") == SLOW_LAG:
        time.sleep(1.0)
    print(json.dumps({"id": request["id"], **adapter.handle(request)}), flush=True)
