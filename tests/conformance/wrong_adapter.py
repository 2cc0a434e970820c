"""An adapter process over the spec that misbehaves on purpose, for the runner's tests.

python wrong_adapter.py crash-after N     die after answering N-1 cases (each process), at once
                                          as a crash does, not through the interpreter's shutdown
python wrong_adapter.py hang-on-inputs N  never answer a merge of exactly N messages
"""

import json
import os
import sys
import time

from swarmconf.conformance.adapter import builtin_adapter

mode, number = sys.argv[1], int(sys.argv[2])
adapter = builtin_adapter("spec")
answered = 0
for line in sys.stdin:
    request = json.loads(line)
    if request["op"] == "stop":
        break
    if request["op"] != "hello":
        answered += 1
        if mode == "crash-after" and answered == number:
            print("simulated crash", file=sys.stderr, flush=True)
            os._exit(70)
        if mode == "hang-on-inputs" and len(request.get("msgs", [])) == number:
            time.sleep(3600)
    print(json.dumps({"id": request["id"], **adapter.handle(request)}), flush=True)
