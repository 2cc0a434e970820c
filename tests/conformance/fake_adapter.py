"""An adapter process for the runner's tests: `hash` answers BLAKE2b-256 of any input.

Inputs starting with these bytes misbehave: `crash` exits, `hang` sleeps, `garbage` prints a
line that is not JSON. Every process start is counted in the file named by argv[1].
"""

import hashlib
import json
import sys
import time

with open(sys.argv[1], "a") as starts:
    starts.write("start\n")
for line in sys.stdin:
    request = json.loads(line)
    if request["op"] == "stop":
        break
    if request["op"] == "hello":
        answer = {"name": "fake", "language": "python", "protocol": 1, "ops": ["hash"]}
    else:
        msg = bytes.fromhex(request["msg"])
        if msg.startswith(b"crash"):
            print("dying on purpose", file=sys.stderr, flush=True)
            sys.exit(3)
        if msg.startswith(b"hang"):
            time.sleep(60)
        if msg.startswith(b"garbage"):
            print("this is not json", flush=True)
            continue
        answer = {"result": {"hash": hashlib.blake2b(msg, digest_size=32).hexdigest().upper()}}
    print(json.dumps({"id": request["id"], **answer}), flush=True)
