"""The spec's adapter declaring only `parse` and `hash`, and the X3 quirk (for the tests)."""

import json
import sys

from swarmconf.conformance.adapter import builtin_adapter

adapter = builtin_adapter("spec")
for line in sys.stdin:
    request = json.loads(line)
    if request["op"] == "stop":
        break
    answer = adapter.handle(request)
    if request["op"] == "hello":
        answer = {**answer, "version": "0.1", "ops": ["parse", "hash"], "quirks": ["X3"]}
    print(json.dumps({"id": request["id"], **answer}), flush=True)
