"""A running campaign's progress, as each task ends rather than as each Spark partition ends.

Spark tells the driver of a partition only once it has finished, and a partition holds many
tasks: the count would sit at 0 for the first partition's whole run, then jump. So every
partition reports its own count of finished tasks in a UDP datagram to the driver
(`reported`, at most one every `REPORT_EVERY` seconds, and one at its end), and the driver
sums the latest count of each partition's latest attempt (`Tally`): a retried partition
counts once. A datagram is fire and forget: one lost, or a worker that cannot reach the driver,
costs the display its precision, never the campaign anything, and finished partitions are
counted from Spark's own status as well.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TextIO

REPORT_EVERY = 0.2
"""Seconds between two datagrams of one partition."""
DATAGRAM = struct.Struct("!III")
"""partition, attempt, finished tasks."""
TTY_EVERY = 0.5
"""Seconds between two redraws of the progress line on a terminal."""
LOG_EVERY = 5.0
"""Seconds between two progress lines written to a file or pipe."""

Address = tuple[str, int]


def reported(tasks: Iterable[Any], address: Address | None) -> Iterator[Any]:
    """`tasks` as they are, telling the driver at `address` how many the consumer has finished
    (a task counts as finished once the next one is asked for, or the tasks run out)."""
    if address is None:
        yield from tasks
        return
    from pyspark import TaskContext

    context = TaskContext.get()
    partition, attempt = (
        (0, 0) if context is None else (context.partitionId(), context.attemptNumber())
    )
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sender:
        sender.setblocking(False)

        def send(count: int) -> None:
            with contextlib.suppress(OSError):
                sender.sendto(DATAGRAM.pack(partition, attempt, count), address)

        finished, sent = 0, time.monotonic()
        for task in tasks:
            now = time.monotonic()
            if finished and now - sent >= REPORT_EVERY:
                send(finished)
                sent = now
            yield task
            finished += 1
        send(finished)


class Tally:
    """The driver's end: receives the partitions' counts on a UDP socket of `host`."""

    def __init__(self, host: str) -> None:
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.socket.bind((host, 0))
        self.socket.settimeout(0.2)
        self.counts: dict[int, tuple[int, int]] = {}
        self.lock = threading.Lock()
        self.closed = threading.Event()
        self.thread = threading.Thread(target=self.receive, daemon=True)
        self.thread.start()

    @property
    def address(self) -> Address:
        host, port = self.socket.getsockname()[:2]
        return str(host), int(port)

    def receive(self) -> None:
        while not self.closed.is_set():
            try:
                data = self.socket.recv(64)
            except TimeoutError:
                continue
            except OSError:
                return
            if len(data) != DATAGRAM.size:
                continue
            partition, attempt, count = DATAGRAM.unpack(data)
            with self.lock:
                known = self.counts.get(partition, (-1, 0))
                if (attempt, count) > known:
                    self.counts[partition] = (attempt, count)

    def finished(self) -> int:
        """Tasks finished, summed over the partitions' latest attempts."""
        with self.lock:
            return sum(count for _, count in self.counts.values())

    def close(self) -> None:
        self.closed.set()
        self.socket.close()
        self.thread.join()


def line(done: float, total: int, unit: str, elapsed: float) -> str:
    """`  41,500/200,000 interleavings (21%), 12 s, 3,458/s`; before any task has finished,
    what the job waits for."""
    if not done:
        return f"  0/{total:,} {unit}, {elapsed:.0f} s: Spark is starting the first tasks"
    rate = done / elapsed if elapsed > 0 else 0.0
    share = 100 * done / total if total else 100.0
    return f"  {round(done):,}/{total:,} {unit} ({share:.0f}%), {elapsed:.0f} s, {rate:,.0f}/s"


class Display:
    """Draws the progress line from `finished()` (tasks) while the job runs: redrawn in place
    on a terminal, a line every LOG_EVERY seconds otherwise."""

    def __init__(
        self,
        finished: Callable[[], int],
        tasks: int,
        units: int,
        unit: str,
        out: TextIO = sys.stdout,
    ) -> None:
        self.finished, self.tasks, self.units, self.unit = finished, tasks, units, unit
        self.out = out
        self.tty = out.isatty()
        self.started = time.monotonic()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.loop, daemon=True)

    def __enter__(self) -> Display:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        self.thread.join()
        if self.tty:
            self.draw()
            self.out.write("\n")
            self.out.flush()

    def done(self) -> float:
        """Units finished: the tasks' share of all units."""
        return self.units * min(self.tasks, self.finished()) / max(1, self.tasks)

    def loop(self) -> None:
        every = TTY_EVERY if self.tty else LOG_EVERY
        while not self.stop.wait(every):
            self.draw()

    def draw(self) -> None:
        text = line(self.done(), self.units, self.unit, time.monotonic() - self.started)
        self.out.write(f"\r{text}\033[K" if self.tty else f"{text}\n")
        self.out.flush()
