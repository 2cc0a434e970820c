"""What a campaign prints: its progress (partitions report finished tasks over UDP, the driver
sums them) and the sentence it ends with."""

from __future__ import annotations

import io
import socket
import time
from collections.abc import Callable

from swarmconf.fuzz.progress import DATAGRAM, Display, Tally, line, reported
from swarmconf.fuzz.report import cases_closing, hostile_closing


def eventually(condition: Callable[[], bool], deadline: float = 10.0) -> bool:
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        if condition():
            return True
        time.sleep(0.01)
    return condition()


def test_a_partition_reports_each_task_it_finished() -> None:
    tally = Tally("127.0.0.1")
    try:
        consumed = []
        for task in reported(range(5), tally.address):
            consumed.append(task)
        assert consumed == [0, 1, 2, 3, 4]
        assert eventually(lambda: tally.finished() == 5)
    finally:
        tally.close()


def test_a_retried_partition_counts_once_and_garbage_is_ignored() -> None:
    tally = Tally("127.0.0.1")
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sender:
            for partition, attempt, count in ((3, 0, 7), (4, 0, 2), (3, 1, 1), (3, 0, 9)):
                sender.sendto(DATAGRAM.pack(partition, attempt, count), tally.address)
            sender.sendto(b"not a count", tally.address)
            sender.sendto(DATAGRAM.pack(4, 0, 5), tally.address)
        # partition 3's latest attempt (1) has finished 1 task, partition 4 five
        assert eventually(lambda: tally.finished() == 6)
        time.sleep(0.1)
        assert tally.finished() == 6
    finally:
        tally.close()


def test_without_a_driver_the_tasks_pass_through() -> None:
    assert list(reported(iter("abc"), None)) == ["a", "b", "c"]


def test_an_unreachable_driver_costs_nothing() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        address = probe.getsockname()
    assert list(reported(range(3), address)) == [0, 1, 2]


def test_the_display_shows_the_share_of_units_of_the_finished_tasks() -> None:
    out = io.StringIO()
    finished = [0]
    with Display(lambda: finished[0], tasks=4, units=2000, unit="interleavings", out=out) as shown:
        finished[0] = 3
        assert shown.done() == 1500
    assert line(1500, 2000, "interleavings", 2.0) == "  1,500/2,000 interleavings (75%), 2 s, 750/s"
    assert "starting" in line(0, 2000, "interleavings", 2.0)


def summary(failing: int, violations: dict[str, int], acceptable: dict[str, int]) -> dict:
    return {
        "cases": 200_000,
        "failing_cases": failing,
        "seconds": 52.4,
        "interleavings_per_second": 3816.8,
        "violations": violations,
        "acceptable": acceptable,
    }


def test_a_clean_run_ends_with_a_sentence_naming_what_was_judged() -> None:
    closing = cases_closing("interleavings")(summary(0, {"P1": 0, "P4": 0}, {"X17": 778}))
    assert closing.failure is None
    [sentence] = closing.lines
    assert sentence.startswith("fuzz: 200,000 interleavings in ")
    assert "no property failed in any (P1, P4 judged)" in sentence
    assert sentence.endswith("Findings a declared quirk explains (acceptable): X17 778.")


def test_a_failing_run_says_which_properties_failed_in_how_many() -> None:
    closing = cases_closing("interleavings")(summary(3, {"P1": 1, "P4": 2, "P5": 0}, {}))
    [sentence] = closing.lines
    assert sentence.startswith("fuzz: 3 of 200,000 interleavings in ")
    assert sentence.endswith(" failed: P1 in 1, P4 in 2.")
    assert closing.failure == "3 failing interleavings (see the report)"


def test_a_hostile_run_ends_with_a_sentence_too() -> None:
    closing = hostile_closing(
        {
            "inputs": 5000,
            "distinct_inputs": 4693,
            "seconds": 11.1,
            "inputs_per_second": 449.2,
            "failing_inputs": 0,
            "violations": {"H1": 0, "C1": 0},
        }
    )
    [sentence] = closing.lines
    assert sentence.startswith("fuzz: 5,000 inputs (4,693 distinct) in ")
    assert sentence.endswith("and no property failed in any (H1, C1 judged).")
    assert closing.failure is None
