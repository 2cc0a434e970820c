"""An adapter process whose `hello` answer is given on its command line, for the runner's tests.

python hello_adapter.py HELLO LOG

HELLO is the JSON object it answers `hello` with (its `id` added); every other request is
logged to the file LOG (one op a line) and answered `hash` would be: BLAKE2b-256 of `msg`.
"""

import hashlib
import json
import sys

hello, log = json.loads(sys.argv[1]), sys.argv[2]
for line in sys.stdin:
    request = json.loads(line)
    if request["op"] == "stop":
        break
    if request["op"] == "hello":
        answer = hello
    else:
        with open(log, "a") as sent:
            sent.write(request["op"] + "\n")
        digest = hashlib.blake2b(bytes.fromhex(request["msg"]), digest_size=32).hexdigest()
        answer = {"result": {"hash": digest}}
    print(json.dumps({"id": request["id"], **answer}), flush=True)
