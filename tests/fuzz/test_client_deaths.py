"""A client that really dies: the aborting adapter exits where its quirks say it aborts and
spins where they say it loops; the pooled client replays on a new process what it had sent
after the fatal request, a window at a time."""

import json
import subprocess
import sys
import time

import pytest

from swarmconf.conformance.client import ClientFailure
from swarmconf.conformance.configmerge.deployed import ABORT_STATUS
from swarmconf.fuzz import client as pooled_client
from swarmconf.fuzz.configmerge.hostile import HostileTask, hostile_inputs, parse_request
from swarmconf.fuzz.configmerge.verdict import emulated

ABORTING = f"{sys.executable} -m swarmconf.fuzz.configmerge.aborting_adapter"
FATAL = {"op": "parse", "msg": "6c65", "lag": 0}
"""X4 fires (a lag below 1): fatal with `--abort-on X4`."""
DEADLINE = 60.0


def adapter(*arguments: str) -> subprocess.Popen[str]:
    command = [sys.executable, "-m", "swarmconf.fuzz.configmerge.aborting_adapter", *arguments]
    return subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


def test_it_exits_with_the_abort_status_where_a_quirk_it_is_told_fires() -> None:
    process = adapter("--abort-on", "X4")
    try:
        out, _ = process.communicate(json.dumps({"id": 1, **FATAL}) + "\n", timeout=DEADLINE)
    finally:
        process.kill()
    assert process.returncode == ABORT_STATUS and out == ""


def test_it_spins_without_answering_where_the_emulation_hangs() -> None:
    hang = next(
        request
        for request in map(parse_request, hostile_inputs(HostileTask(3, 0, 3000)))
        if (stop := emulated(request).stop) is not None and stop.result == "hang"
    )
    process = adapter()
    assert process.stdin is not None
    try:
        process.stdin.write(json.dumps({"id": 1, **hang}) + "\n")
        process.stdin.flush()
        deadline = time.monotonic() + DEADLINE
        while time.monotonic() < deadline and cpu_ticks(process.pid) < 20:
            time.sleep(0.05)  # until it has spun a while (import included)
        assert process.poll() is None and cpu_ticks(process.pid) >= 20
    finally:
        process.kill()
        process.wait()


def cpu_ticks(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


@pytest.mark.parametrize("window", [2, 64])
def test_requests_sent_after_a_death_are_answered_by_the_next_process(
    monkeypatch: pytest.MonkeyPatch, window: int
) -> None:
    monkeypatch.setattr(pooled_client, "REPLAY_WINDOW", window)
    fine = [{"op": "parse", "msg": "6c65", "lag": 5 + n % 3} for n in range(9)]
    batch = [fine[0], FATAL, *fine[1:6], FATAL, FATAL, *fine[6:]]
    client = pooled_client.start(f"{ABORTING} --abort-on X4", 30.0)
    try:
        answers = client.exchange(batch)
    finally:
        client.close()
    fatal = [n for n, request in enumerate(batch) if request is FATAL]
    assert client.restarts == len(fatal) == 3
    for number, (request, answer) in enumerate(zip(batch, answers, strict=True)):
        if number in fatal:
            assert isinstance(answer, ClientFailure) and answer.kind == "crashed"
            assert answer.detail.startswith(f"exit status {ABORT_STATUS}")
        else:
            assert answer == {"id": answer["id"], **emulated(request).answer}  # type: ignore[index,dict-item]


def test_each_window_a_new_process_answers_whole_doubles_the_next(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pooled_client, "REPLAY_WINDOW", 2)
    written: list[int] = []
    write = pooled_client.PooledClient.write

    def counted(self: pooled_client.PooledClient, bodies: list[str]) -> int:
        written.append(len(bodies))
        return write(self, bodies)

    monkeypatch.setattr(pooled_client.PooledClient, "write", counted)
    fine = [{"op": "parse", "msg": "6c65", "lag": 5 + n % 3} for n in range(20)]
    client = pooled_client.start(f"{ABORTING} --abort-on X4", 30.0)
    try:
        answers = client.exchange([FATAL, *fine])
    finally:
        client.close()
    assert written == [21, 2, 4, 8, 6, 0]  # the batch, then windows of 2, 4, 8 and the rest
    assert not any(isinstance(answer, ClientFailure) for answer in answers[1:])
