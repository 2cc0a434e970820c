"""Foreign clients in a campaign: one adapter process per Python worker, requests pipelined.

A Spark Python worker is reused across tasks (`spark.python.worker.reuse`), so `pooled(command)`
keeps its adapter alive from one task to the next. `PooledClient.exchange` writes a whole batch
of requests ahead on a writer thread and reads the answers in order, each within the timeout: a
crash, a hang (the process is killed) or a garbled line is that request's answer, the adapter is
restarted (sending `hello` again) and the requests already sent after the fatal one are sent to
the new process again, `REPLAY_WINDOW` at a time (`SPARES_AHEAD` processes started ahead once
a process has failed, so that a client failing often is not waited for). After
`MAX_CONSECUTIVE_CLIENT_FAILURES` failures in a row the rest of the batch fails unsent, as the
conformance runner gives up on a run; the next batch tries again.

A client that declares a quirk by which the deployed client loops forever (X3) does so on every
request that triggers it, and each such hang would cost the whole timeout. The campaign may
name those requests (`send(..., hangs=...)`, asked only of an answer that is late): one on
which the client has burnt `HANG_CPU` seconds of CPU without answering (it spins), or that is
`HANG_GRACE` seconds late, then counts as the hang it declared.

Any other hang is cut too, within a bound taken from the client's own answer times: the pool
keeps the time it waited for each of the client's last `LATENCY_WINDOW` answers, and a request
with no answer after `SPIN_FACTOR` times their median (`SPIN_FLOOR` at least; `SPIN_UNKNOWN`
while fewer than `SPIN_SAMPLES` answers were timed) on which the client has burnt `SPIN_CPU`
seconds of CPU since it was `SPIN_FLOOR` late fails as `SPINNING` (C2 by that cause where no
declared quirk says the client hangs there). The process is killed and replaced as after any
failure. A client that is slow without spinning (sleeping, waiting on I/O) burns no CPU and
has the whole timeout.
"""

from __future__ import annotations

import atexit
import collections
import concurrent.futures
import contextlib
import functools
import json
import os
import queue
import shlex
import statistics
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from swarmconf.conformance.client import ClientFailure, Message, ProcessClient, make_client
from swarmconf.conformance.runner import MAX_CONSECUTIVE_CLIENT_FAILURES

DEFAULT_TIMEOUT = 10.0
START_TIMEOUT = 60.0
"""Seconds a starting adapter may take to answer `hello` (an interpreter starting on a loaded
machine), whatever the per-request timeout."""
REPLAY_WINDOW = 64
"""Requests written ahead to a process started after a failure: a client that dies often then
costs its start and the requests it dies on, not the rewriting of the whole rest of a batch
at every death. Each window answered whole doubles the next, so a process that lives on is
soon written to as far ahead as before the failure, and rewrites after its death at most
about as many requests as it answered."""
HANG_GRACE = 0.25
"""Seconds after which a request the client declared it loops on counts as that hang."""
HANG_CPU = 0.03
"""CPU seconds a client may spend on a request it declared it loops on, without answering,
before that counts as the hang (sooner than `HANG_GRACE`: a spinning client shows it by the
CPU it burns, however loaded the machine; the emulation answers a request in well under a
millisecond, a compiled client in microseconds)."""
EXIT_WAIT = 1.0
"""Seconds a client whose output ended may take to exit, for its status in the failure."""
HANG_POLL = 0.01
"""Seconds between two looks at a late client's CPU time."""
SPIN_FACTOR = 100
"""A request is late once not answered within this many times the client's median answer time."""
SPIN_FLOOR = 0.02
"""Seconds a request may always take, and from which the CPU a late client burns is counted (a
client answering in microseconds pauses too: its collector, a page fault, a core another job
holds)."""
SPIN_UNKNOWN = 1.0
"""Seconds a request may take while the client's answer times are not known yet."""
SPIN_SAMPLES = 16
"""Answers timed before their median bounds a request."""
SPIN_CPU = 0.05
"""CPU seconds a late client burns without answering before it counts as spinning: a client
that is slow but not spinning (sleeping, waiting on I/O) never does, a loaded machine only
makes it take longer, and no answer that takes less CPU is ever cut (the emulation's slowest
hostile inputs take 40 to 60 ms of CPU on a loaded machine: one of them is cut only if it
burnt under 10 ms in its first `SPIN_FLOOR`)."""
LATENCY_WINDOW = 256
"""The client's last answers whose times bound a request."""
SPINNING = "spinning"
"""The kind of failure of a request a client spun on without answering, no hang declared."""
CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
"""/proc's unit of CPU time, per second."""
Answer = Message | ClientFailure
T = TypeVar("T")
GIVEN_UP = "given up"
"""The kind of failure of a request left unsent after too many failures in a row."""


def client_did(answer: Answer) -> bool:
    """Whether the client did what `answer` reports: not a request left unsent (`GIVEN_UP`),
    which fails C2 but is grouped by no cause of its own."""
    return not (isinstance(answer, ClientFailure) and answer.kind == GIVEN_UP)


@dataclass
class PooledClient:
    """A started adapter process, its `hello`, and what it has cost so far."""

    command: str
    timeout: float
    client: ProcessClient
    hello: Message
    restarts: int = 0
    waiting: float = 0.0
    """Seconds spent waiting for answers (the adapter's answering time, seen from here)."""
    in_a_row: int = field(default=0)
    """Failures in a row; at `MAX_CONSECUTIVE_CLIENT_FAILURES` the rest of a batch is not sent."""
    dead: bool = False
    """The adapter could not be restarted: nothing more is sent."""
    spares: collections.deque[concurrent.futures.Future[tuple[ProcessClient, Message]]] = field(
        default_factory=collections.deque
    )
    """Processes started ahead (`SPARES_AHEAD`, once one has failed), oldest first, to replace
    the next ones that fail."""
    latencies: collections.deque[float] = field(
        default_factory=lambda: collections.deque(maxlen=LATENCY_WINDOW)
    )
    """Seconds waited for each of the client's last answers, across its processes (near
    nothing for an answer already there when it is read)."""

    def late(self) -> float:
        """Seconds after which a request the client spins on counts as `SPINNING`."""
        if len(self.latencies) < SPIN_SAMPLES:
            return SPIN_UNKNOWN
        return max(SPIN_FACTOR * statistics.median(self.latencies), SPIN_FLOOR)

    @property
    def ops(self) -> frozenset[str] | None:
        ops = self.hello.get("ops")
        return frozenset(ops) if isinstance(ops, list) else None

    @property
    def quirks(self) -> frozenset[str]:
        quirks = self.hello.get("quirks")
        return frozenset(quirks) if isinstance(quirks, list) else frozenset()

    def exchange(self, requests: list[Message]) -> list[Answer]:
        """Every request's answer, in order, read on this thread (see `sending`)."""
        return self.sending(requests)()

    def send(
        self, requests: list[Message], hangs: Callable[[Message], bool] | None = None
    ) -> Callable[[], list[Answer]]:
        """Start sending `requests` and reading their answers on a reader thread; the returned
        call waits for every answer, in order (see `sending`). The caller works meanwhile (the
        campaign asks the oracle), and a hang is cut and its process replaced as it happens,
        not once the caller comes to its answer."""
        return in_background(self.sending(requests, hangs))

    def sending(
        self, requests: list[Message], hangs: Callable[[Message], bool] | None = None
    ) -> Callable[[], list[Answer]]:
        """Start sending `requests`; the returned call collects every answer, in order.

        Unsupported ops are answered `skipped` unsent. `hangs` says of a late request whether
        the client declared it loops on it (see `HANG_GRACE`).
        """
        if not self.dead:
            self.in_a_row = 0  # a new batch tries again
        answers: list[Answer | None] = [None] * len(requests)
        supported = self.ops
        todo = []
        for index, request in enumerate(requests):
            if supported is not None and request["op"] not in supported:
                answers[index] = {"skipped": f"client does not support op {request['op']!r}"}
            else:
                todo.append(index)
        # Each request is written as JSON once; what a restarted process is sent again only
        # gets new ids
        bodies = {index: json.dumps(requests[index]) for index in todo}
        first = self.write([bodies[index] for index in todo])

        def collect() -> list[Answer]:
            nonlocal todo, first
            window = len(todo)  # the whole batch was written ahead
            while todo:
                if self.in_a_row >= MAX_CONSECUTIVE_CLIENT_FAILURES:
                    for index in todo:
                        answers[index] = ClientFailure(
                            GIVEN_UP,
                            f"not sent: the client failed {self.in_a_row} times in a row",
                        )
                    break
                said = None if hangs is None else functools.partial(declared, requests, todo, hangs)
                count = min(window, len(todo))
                done, failure = self.read(first, count, said)
                for index, answer in zip(todo, done, strict=False):
                    answers[index] = answer
                if done:
                    self.in_a_row = 0  # an answer since the last failure
                if failure is None:
                    todo = todo[count:]
                    window *= 2  # a process that answers a window whole gets a larger one
                else:
                    answers[todo[len(done)]] = failure
                    todo = todo[len(done) + 1 :]
                    self.in_a_row += 1
                    self.restart()
                    window = REPLAY_WINDOW
                first = self.write([bodies[index] for index in todo[:window]])
            return [answer for answer in answers if answer is not None]

        return collect

    def write(self, bodies: list[str]) -> int:
        """Number the requests (each a JSON object, never empty: it has an `op`) and write them
        on a writer thread; the first one's id."""
        client = self.client
        first = client.next_id + 1
        client.next_id += len(bodies)
        text = "".join(f'{{"id": {first + i}, {body[1:]}\n' for i, body in enumerate(bodies))
        if text and self.in_a_row < MAX_CONSECUTIVE_CLIENT_FAILURES:
            threading.Thread(target=write_batch, args=(client, text), daemon=True).start()
        return first

    def read(
        self, first: int, count: int, hangs: Callable[[int], bool] | None = None
    ) -> tuple[list[Message], ClientFailure | None]:
        """Answers to ids first.. in order, and the failure that ended them early (or None);
        `hangs(n)` says whether the n-th may count as a declared hang once `HANG_GRACE` late."""
        started = last = time.perf_counter()
        answers: list[Message] = []
        try:
            for number, expected_id in enumerate(range(first, first + count)):
                declares = None if hangs is None else functools.partial(hangs, number)
                answer = read_answer(self.client, expected_id, declares, self.late)
                if isinstance(answer, ClientFailure):
                    return answers, answer
                answers.append(answer)
                now = time.perf_counter()
                self.latencies.append(now - last)
                last = now
            return answers, None
        finally:
            self.waiting += time.perf_counter() - started

    def restart(self) -> None:
        """Replace the failed process by the oldest spare (a client that failed once may fail
        again: its next processes start while this one works), or by a new one; then start
        spares up to `SPARES_AHEAD`."""
        self.restarts += 1
        stop(self.client)
        spare = self.spares.popleft() if self.spares else None
        try:
            self.client, self.hello = spare.result() if spare is not None else self.fresh()
        except ClientFailure:
            self.dead = True
            self.in_a_row = MAX_CONSECUTIVE_CLIENT_FAILURES
            return
        while len(self.spares) < SPARES_AHEAD:
            self.spares.append(SPARES.submit(self.fresh))

    def fresh(self) -> tuple[ProcessClient, Message]:
        """A newly started process of the adapter, and its `hello`."""
        client = make_client(self.command, self.timeout)
        assert isinstance(client, ProcessClient)
        return client, started(client, client.start)

    def close(self) -> None:
        self.client.close()
        while self.spares:
            with contextlib.suppress(ClientFailure):
                self.spares.popleft().result()[0].close()


SPARES_AHEAD = 2
"""Spare processes kept started once a process has failed: hangs and deaths close together
(a spinning client is cut within a tenth of a second) then find one ready."""
SPARES = concurrent.futures.ThreadPoolExecutor(
    max_workers=SPARES_AHEAD, thread_name_prefix="spare-adapter"
)
"""Starts spare adapter processes in the background."""


def in_background(work: Callable[[], T]) -> Callable[[], T]:
    """`work()` started on a thread; the returned call waits for its result (or raises what it
    raised)."""
    future: concurrent.futures.Future[T] = concurrent.futures.Future()

    def run() -> None:
        try:
            future.set_result(work())
        except BaseException as error:
            future.set_exception(error)

    threading.Thread(target=run, name="adapter-reader", daemon=True).start()
    return future.result


def stop(client: ProcessClient) -> None:
    """Kill a failed adapter process at once (it may be looping)."""
    process = client.process
    if process is not None and process.poll() is None:
        process.kill()
        process.wait()


def write_batch(client: ProcessClient, text: str) -> None:
    """Write the batch's lines in one write (the stream is line-buffered: line by line, each
    line would be a system call and wake the adapter); a killed or dead process ends it (its
    readers report the failure)."""
    stream = client.process.stdin if client.process is not None else None
    if stream is None:
        return
    with contextlib.suppress(BrokenPipeError, OSError, ValueError):
        stream.write(text)
        stream.flush()


def declared(
    requests: list[Message], todo: list[int], hangs: Callable[[Message], bool], number: int
) -> bool:
    """`hangs` of the `number`-th request still to answer."""
    return hangs(requests[todo[number]])


def read_answer(
    client: ProcessClient,
    expected_id: int,
    hangs: Callable[[], bool] | None = None,
    late: Callable[[], float] | None = None,
) -> Message | ClientFailure:
    """The next answer line, judged as `ProcessClient.request` judges it; a hang ends the wait
    early (see `next_line`)."""
    try:
        line = next_line(client, hangs, late)
    except queue.Empty:
        return ClientFailure("timeout", f"no answer within {client.timeout:g} s")
    except Declared as how:
        return ClientFailure("timeout", f"{how}, a declared hang")
    except Spinning as how:
        return ClientFailure(SPINNING, str(how))
    if line is None:
        process = client.process
        code = exit_status(process) if process is not None else None
        tail = "".join(client.stderr_tail).strip().splitlines()[-3:]
        return ClientFailure("crashed", f"exit status {code}" + "".join(f"; {t}" for t in tail))
    try:
        answer = json.loads(line)
    except json.JSONDecodeError:
        answer = None
    if not isinstance(answer, dict):
        return ClientFailure("garbage", f"not a JSON object: {line.strip()[:200]!r}")
    if answer.get("id") != expected_id:
        return ClientFailure("garbage", f"answer id {answer.get('id')!r} != {expected_id}")
    return answer


def exit_status(process: subprocess.Popen[str]) -> int | None:
    """The status of a process whose output has ended, waited for `EXIT_WAIT` seconds at most
    (its output closes a moment before it exits), or None if it lives on."""
    with contextlib.suppress(subprocess.TimeoutExpired):
        return process.wait(timeout=EXIT_WAIT)
    return None


class Declared(Exception):
    """A late answer to a request the client declared it loops on; the message says how the
    hang showed."""


class Spinning(Exception):
    """A client that spins on a request it declared no hang for; the message says how long."""


def next_line(
    client: ProcessClient,
    hangs: Callable[[], bool] | None,
    late: Callable[[], float] | None = None,
) -> str | None:
    """The next line (None at the end of the output), within the timeout (`queue.Empty`). A
    hang ends the wait sooner: `Declared` on a request `hangs()` says the client declared it
    loops on, once the client has spent `HANG_CPU` seconds of CPU on it without answering (it
    spins) or once it is `HANG_GRACE` late; `Spinning` on any other once it is `late()` seconds
    late and the client has burnt `SPIN_CPU` seconds of CPU since it was `SPIN_FLOOR` late."""
    timeout = client.timeout
    first = HANG_POLL if hangs is not None else SPIN_FLOOR
    if (hangs is None and late is None) or timeout <= first:
        return client.lines.get(timeout=timeout)
    started = time.monotonic()
    try:
        return client.lines.get(timeout=first)
    except queue.Empty:
        pass
    if hangs is not None and hangs():
        if timeout <= HANG_GRACE:
            return client.lines.get(timeout=left(started, timeout))
        return declared_wait(client, started)
    if late is None:
        return client.lines.get(timeout=left(started, timeout))
    return spin_wait(client, started, late())


def left(started: float, seconds: float) -> float:
    """Seconds left of `seconds` from `started` (none, when they are over)."""
    return max(0.0, started + seconds - time.monotonic())


def declared_wait(client: ProcessClient, started: float) -> str | None:
    """The next line, or `Declared` once the client has spent `HANG_CPU` seconds of CPU
    without answering or once `HANG_GRACE` has passed since `started`."""
    process = client.process
    before = cpu_seconds(process.pid) if process is not None else None
    while (waited := time.monotonic() - started) < HANG_GRACE:
        try:
            return client.lines.get(timeout=min(HANG_POLL, HANG_GRACE - waited))
        except queue.Empty:
            now = cpu_seconds(process.pid) if process is not None else None
            if before is not None and now is not None and now - before >= HANG_CPU:
                raise Declared(f"spinning: {now - before:.2f} s of CPU and no answer") from None
    raise Declared(f"no answer within {HANG_GRACE:g} s")


def spin_wait(client: ProcessClient, started: float, late: float) -> str | None:
    """The next line within the timeout from `started`, or `Spinning` once `late` seconds have
    passed and the client has burnt `SPIN_CPU` seconds of CPU since `SPIN_FLOOR` had (where
    /proc does not say, only the timeout ends the wait)."""
    timeout = client.timeout
    process = client.process
    if process is None or late >= timeout:
        return client.lines.get(timeout=left(started, timeout))
    with contextlib.suppress(queue.Empty):
        return client.lines.get(timeout=left(started, SPIN_FLOOR))
    before = cpu_seconds(process.pid)
    if before is None:
        return client.lines.get(timeout=left(started, timeout))
    with contextlib.suppress(queue.Empty):
        return client.lines.get(timeout=left(started, late))
    while (remaining := left(started, timeout)) > 0:
        now = cpu_seconds(process.pid)
        if now is not None and now - before >= SPIN_CPU:
            waited = time.monotonic() - started
            raise Spinning(f"no answer after {waited:.2f} s, {now - before:.2f} s of CPU burnt")
        with contextlib.suppress(queue.Empty):
            return client.lines.get(timeout=min(HANG_POLL, remaining))
    raise queue.Empty


def cpu_seconds(pid: int) -> float | None:
    """The CPU time process `pid` has used (user and system), or None where /proc does not
    say (another system, or the process is gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def replay_line(request: Message, command: str) -> str:
    """The shell line that sends `request` to the adapter `command` again and shows its answer."""
    return f"printf '%s\\n' {shlex.quote(json.dumps({'id': 1, **request}))} | {command}"


def start(command: str, timeout: float = DEFAULT_TIMEOUT) -> PooledClient:
    """Start `command` as an adapter process and read its `hello` (raising `ClientFailure`)."""
    client = make_client(command, timeout)
    if not isinstance(client, ProcessClient):
        raise ClientFailure("not a process", f"{command!r}: a campaign runs an adapter command")
    return PooledClient(command, timeout, client, started(client, client.start))


def started(client: ProcessClient, start: Callable[[], Message]) -> Message:
    """`start()`'s `hello` (without its id), allowed `START_TIMEOUT` seconds."""
    timeout, client.timeout = client.timeout, max(client.timeout, START_TIMEOUT)
    try:
        hello = start()
    finally:
        client.timeout = timeout
    return {key: value for key, value in hello.items() if key != "id"}


_POOL: dict[tuple[str, float], PooledClient] = {}


def pooled(command: str, timeout: float = DEFAULT_TIMEOUT) -> PooledClient:
    """This process's adapter for `command`, started on first use and kept for later tasks."""
    key = (command, timeout)
    if key not in _POOL:
        _POOL[key] = start(command, timeout)
    return _POOL[key]


@atexit.register
def close_pool() -> None:
    while _POOL:
        _POOL.popitem()[1].close()
