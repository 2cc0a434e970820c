"""A pooled adapter: failures with answers between them are not "in a row", a request the
client declared it loops on counts as that hang once the client has burnt `HANG_CPU` seconds of
CPU on it or once it is `HANG_GRACE` late, and an adapter that answers `hung` is judged as that
hang without being waited for or restarted."""

import sys
import time

import pytest

from swarmconf.conformance.client import ClientFailure
from swarmconf.fuzz import client as pooled_client
from swarmconf.fuzz.client import start
from swarmconf.fuzz.configmerge.verdict import FAILED, QUIRK, declared_hang, judge

from .adapters import WRONG

EMULATION = f"{sys.executable} -m swarmconf.conformance.configmerge.deployed"
LOOPING_EMULATION = f"{EMULATION} --loop"
"""Never answers where the deployed client loops, blocked without spending CPU."""
SPINNING = f"{sys.executable} -m swarmconf.fuzz.configmerge.aborting_adapter"
"""Spins where the deployed client loops, as the deployed client does."""
PARSE = {"op": "parse", "msg": b"de".hex(), "lag": 5}
# A diff holding an integer value: the deployed client's parser loops forever on it (X3)
LOOPING = {"op": "parse", "msg": b"d1:#i1e1:&de1:=d1:ai1eee".hex(), "lag": 5}


def test_failures_with_answers_between_them_never_give_up_the_batch() -> None:
    client = start(f"{WRONG} crash-after 3")
    try:
        answers = client.exchange([PARSE] * 36)
    finally:
        client.close()
    failures = [answer for answer in answers if isinstance(answer, ClientFailure)]
    assert len(failures) == 12 and client.restarts == 12
    assert {failure.kind for failure in failures} == {"crashed"}


def test_a_declared_hang_ends_the_wait_after_the_grace() -> None:
    client = start(LOOPING_EMULATION, timeout=60.0)
    try:
        hangs = declared_hang(client.quirks)
        assert hangs is not None and hangs(LOOPING) and not hangs(PARSE)
        started = time.perf_counter()
        answers = client.send([PARSE, LOOPING, PARSE], hangs)()
        waited = time.perf_counter() - started
    finally:
        client.close()
    assert waited < 30  # the timeout is 60 s
    first, hung, last = answers
    assert not isinstance(first, ClientFailure) and first["reason"] == "MSG_MISSING_SEQNO"
    assert not isinstance(last, ClientFailure) and last["reason"] == "MSG_MISSING_SEQNO"
    assert isinstance(hung, ClientFailure) and hung.kind == "timeout"
    assert hung.detail.startswith("no answer within")  # blocked: the grace cuts it
    verdict = judge(LOOPING, {"reason": "DIFF_INTEGER"}, hung, client.quirks)
    assert verdict.status == QUIRK and verdict.quirks == ("X3",)
    assert client.restarts == 1
    assert declared_hang(frozenset({"X1"})) is None


def test_a_declared_hang_that_spins_is_cut_by_the_cpu_it_burns(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(pooled_client, "HANG_GRACE", 50.0)
    client = start(SPINNING, timeout=60.0)
    try:
        [hung] = client.send([LOOPING], declared_hang(client.quirks))()
    finally:
        client.close()
    assert isinstance(hung, ClientFailure) and hung.kind == "timeout"
    assert hung.detail.startswith("spinning: ") and hung.detail.endswith(", a declared hang")


def test_a_hung_answer_is_the_declared_hang_at_once_and_fails_where_undeclared() -> None:
    client = start(EMULATION, timeout=60.0)
    try:
        answers = client.send([PARSE, LOOPING, PARSE], declared_hang(client.quirks))()
    finally:
        client.close()
    first, hung, last = answers
    assert not isinstance(first, ClientFailure) and first["reason"] == "MSG_MISSING_SEQNO"
    assert not isinstance(hung, ClientFailure) and "X3" in hung["hung"]
    assert not isinstance(last, ClientFailure) and last["reason"] == "MSG_MISSING_SEQNO"
    assert client.restarts == 0
    expected = {"reason": "DIFF_INTEGER"}
    verdict = judge(LOOPING, expected, hung, client.quirks)
    assert verdict.status == QUIRK and verdict.quirks == ("X3",)
    undeclared = judge(LOOPING, expected, hung, frozenset({"X1"}))
    assert undeclared.status == FAILED and "hangs" in undeclared.detail
    assert judge(PARSE, {"reason": "MSG_MISSING_SEQNO"}, hung, client.quirks).status == FAILED
