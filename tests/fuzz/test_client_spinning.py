"""A hang the client declared no quirk for: cut once the client, late past a bound taken from
its own answer times, has burnt `SPIN_CPU` seconds of CPU without answering, and reported as
C2 under its `spinning` cause; the restarted process answers the rest, and a client slow
without spinning keeps the whole timeout."""

import json
import sys
from pathlib import Path

from swarmconf.conformance.client import ClientFailure
from swarmconf.fuzz.client import (
    SPIN_FACTOR,
    SPIN_FLOOR,
    SPIN_SAMPLES,
    SPIN_UNKNOWN,
    SPINNING,
    Answer,
    start,
)
from swarmconf.fuzz.configmerge.hostile import (
    CauseProbe,
    HostileTask,
    hostile_inputs,
    input_of,
    parse_request,
    run_hostile_task,
    shrink_failure,
)
from swarmconf.fuzz.configmerge.verdict import FAILED, declared_hang, emulated, failure_cause, judge

UNDECLARED = f"{sys.executable} -m swarmconf.fuzz.configmerge.aborting_adapter --undeclared X3"
"""Spins where the deployed client loops, X3 left out of its `hello`."""
BLOCKED = f"{sys.executable} -m swarmconf.conformance.configmerge.deployed --loop"
"""Never answers where the deployed client loops, blocked without spending CPU."""
SLOW = f"{sys.executable} {Path(__file__).with_name('slow_adapter.py')}"
PARSE = {"op": "parse", "msg": b"de".hex(), "lag": 5}
SLOW_PARSE = {**PARSE, "lag": 7}
"""The slow adapter sleeps a second before answering it."""
# A diff holding an integer value: the deployed client's parser loops forever on it (X3)
LOOPING = {"op": "parse", "msg": b"d1:#i1e1:&de1:=d1:ai1eee".hex(), "lag": 5}
WARM = [PARSE] * SPIN_SAMPLES
"""Enough answers for their median to bound a request."""
TIMEOUT = 120.0
"""Far beyond any cut: a hang not cut fails as a timeout."""


def refused(answer: Answer) -> bool:
    return not isinstance(answer, ClientFailure) and answer["reason"] == "MSG_MISSING_SEQNO"


def test_an_undeclared_spinning_hang_is_cut_and_the_next_process_answers() -> None:
    client = start(UNDECLARED, TIMEOUT)
    try:
        assert "X3" not in client.quirks and declared_hang(client.quirks) is None
        # The first hang comes before any answer time is known, the second after
        batch = [LOOPING, *WARM, LOOPING, PARSE]
        answers = client.send(batch, declared_hang(client.quirks))()
    finally:
        client.close()
    assert len(answers) == len(batch) and client.restarts == 2
    hung_at = {0, len(WARM) + 1}
    assert all(refused(answer) for n, answer in enumerate(answers) if n not in hung_at)
    expected = {"reason": "DIFF_INTEGER"}
    for hung in (answers[n] for n in hung_at):
        assert isinstance(hung, ClientFailure) and hung.kind == SPINNING
        assert hung.detail.startswith("no answer after ") and "of CPU burnt" in hung.detail
        assert judge(LOOPING, expected, hung, client.quirks).status == FAILED
        assert failure_cause(LOOPING, expected, hung) == (
            "parse: client spinning where the spec refuses with DIFF_INTEGER"
        )


def test_a_client_blocked_without_spinning_keeps_the_whole_timeout() -> None:
    client = start(BLOCKED, timeout=5.0)
    try:
        answers = client.exchange([*WARM, LOOPING, PARSE])  # its X3 hang not named
    finally:
        client.close()
    *warm, hung, last = answers
    assert isinstance(hung, ClientFailure) and hung.kind == "timeout"
    assert hung.detail == "no answer within 5 s"
    assert all(refused(answer) for answer in [*warm, last])


def test_a_client_sleeping_long_past_its_median_answers() -> None:
    client = start(SLOW, TIMEOUT)
    try:
        answers = client.exchange([*WARM, SLOW_PARSE, PARSE])
    finally:
        client.close()
    assert all(refused(answer) for answer in answers) and client.restarts == 0


def test_the_bound_is_a_hundred_medians_once_enough_answers_are_timed() -> None:
    client = start(SLOW, TIMEOUT)
    client.close()
    client.latencies.clear()
    client.latencies.extend([0.001] * (SPIN_SAMPLES - 1))
    assert client.late() == SPIN_UNKNOWN
    client.latencies.append(0.003)
    assert client.late() == SPIN_FACTOR * 0.001
    client.latencies.extend([0.0] * SPIN_SAMPLES * 2)
    assert client.late() == SPIN_FLOOR


def test_a_campaign_reports_every_undeclared_hang_by_cause_and_shrinks_one() -> None:
    task = HostileTask(3, 0, 3000, UNDECLARED, lenient=True)
    distinct = {(i.message, i.lag, i.verify_key): i for i in hostile_inputs(task)}.values()
    hangs = sum(
        (stop := emulated(parse_request(item)).stop) is not None and stop.result == "hang"
        for item in distinct
    )
    row = run_hostile_task(task)
    causes = json.loads(row.client_failure_causes)
    assert hangs and row.client_requests == len(distinct)
    assert sum(found["count"] for found in causes.values()) == hangs
    assert json.loads(row.violations) == {"C2": hangs}  # every hang, nothing else
    assert all(cause.startswith("parse: client spinning where the spec ") for cause in causes)
    cause, found = next(iter(causes.items()))
    shrunk = shrink_failure(found["example"], cause, UNDECLARED, 10.0, True)
    assert shrunk["bytes"] <= len(found["example"]["msg"]) // 2
    client = start(UNDECLARED, TIMEOUT)
    try:
        assert CauseProbe(client, True).cause(input_of(shrunk)) == cause
    finally:
        client.close()
