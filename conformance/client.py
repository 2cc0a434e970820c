"""Clients under test: an adapter process spoken to in JSON lines, or a built-in adapter.

A process client is started once; each request waits at most `timeout` seconds for its answer.
A client that dies or hangs raises `ClientFailure` (the hung process is killed); the runner
reports the case and calls `restart()`.
"""

from __future__ import annotations

import collections
import contextlib
import json
import queue
import shlex
import subprocess
import threading
from typing import IO, Any, Protocol

from swarmconf.conformance.adapter import IMPLEMENTATIONS, Adapter, builtin_adapter
from swarmconf.conformance.protocol import PROTOCOL_VERSION

Message = dict[str, Any]
BUILTIN_PREFIX = "builtin:"


class ClientFailure(Exception):
    """The client died, hung, or answered something that is not a JSON object."""

    def __init__(self, kind: str, detail: str) -> None:
        self.kind = kind
        self.detail = detail
        super().__init__(f"{kind}: {detail}")


class Client(Protocol):
    def start(self) -> Message:
        """Start the client and return its `hello` answer."""

    def request(self, message: Message, timeout: float | None = None) -> Message:
        """Send one request and return the answer (raising `ClientFailure`); `timeout`
        overrides the client's own limit for this request."""

    def restart(self) -> Message: ...

    def close(self) -> None: ...


def hello_request() -> Message:
    return {"op": "hello", "protocol": PROTOCOL_VERSION}


class InProcessClient:
    """A built-in adapter called directly (no process, no timeout)."""

    def __init__(self, adapter: Adapter) -> None:
        self.adapter = adapter

    def start(self) -> Message:
        return self.adapter.handle(hello_request())

    def request(self, message: Message, timeout: float | None = None) -> Message:
        return self.adapter.handle(message)

    def restart(self) -> Message:
        return self.start()

    def close(self) -> None:
        pass


class ProcessClient:
    """An adapter process speaking JSON lines on stdin/stdout."""

    def __init__(self, argv: list[str], timeout: float) -> None:
        self.argv = argv
        self.timeout = timeout
        self.process: subprocess.Popen[str] | None = None
        self.lines: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self.stderr_tail: collections.deque[str] = collections.deque(maxlen=20)
        self.next_id = 0
        self.stderr_reader: threading.Thread | None = None

    def start(self) -> Message:
        try:
            self.process = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                errors="replace",
                bufsize=1,
            )
        except OSError as error:
            raise ClientFailure("failed to start", str(error)) from error
        self.lines = queue.SimpleQueue()
        self.stderr_tail.clear()
        assert self.process.stdout is not None and self.process.stderr is not None
        _drain(self.process.stdout, self.lines.put, end=None)
        self.stderr_reader = _drain(self.process.stderr, self.stderr_tail.append)
        return self.request(hello_request())

    def request(self, message: Message, timeout: float | None = None) -> Message:
        process = self.process
        assert process is not None and process.stdin is not None
        self.next_id += 1
        try:
            process.stdin.write(json.dumps({"id": self.next_id, **message}) + "\n")
            process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise ClientFailure("crashed", self._exit_detail()) from None
        try:
            limit = self.timeout if timeout is None else timeout
            line = self.lines.get(timeout=limit)
        except queue.Empty:
            self._kill()
            raise ClientFailure("timeout", f"no answer within {limit:g} s") from None
        if line is None:
            raise ClientFailure("crashed", self._exit_detail())
        try:
            answer = json.loads(line)
        except json.JSONDecodeError:
            answer = None
        if not isinstance(answer, dict):
            self._kill()
            raise ClientFailure("garbage", f"not a JSON object: {line.strip()[:200]!r}")
        if answer.get("id") != self.next_id:
            self._kill()
            raise ClientFailure("garbage", f"answer id {answer.get('id')!r} != {self.next_id}")
        return answer

    def restart(self) -> Message:
        self._kill()
        return self.start()

    def close(self) -> None:
        process = self.process
        if process is None:
            return
        if process.poll() is None:
            with contextlib.suppress(BrokenPipeError, OSError):
                assert process.stdin is not None
                process.stdin.write(json.dumps({"op": "stop"}) + "\n")
                process.stdin.close()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=self.timeout)
        self._kill()

    def _kill(self) -> None:
        process = self.process
        if process is None:
            return
        if process.poll() is None:
            process.kill()
        process.wait()
        for stream in (process.stdin, process.stdout, process.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    def _exit_detail(self) -> str:
        process = self.process
        code = None
        if process is not None:
            try:
                code = process.wait(timeout=2)
            except subprocess.TimeoutExpired:
                self._kill()
        if self.stderr_reader is not None:
            self.stderr_reader.join(timeout=2)
        tail = "".join(self.stderr_tail).strip()
        return f"exit status {code}" + (f"; stderr ends:\n{tail}" if tail else "")


def _drain(stream: IO[str], sink: Any, end: object = ...) -> threading.Thread:
    """Copy lines from `stream` to `sink` on a daemon thread; then `sink(end)` if given."""

    def pump() -> None:
        with contextlib.suppress(ValueError, OSError):
            for line in stream:
                sink(line)
        if end is not ...:
            sink(end)

    thread = threading.Thread(target=pump, daemon=True)
    thread.start()
    return thread


def make_client(spec: str, timeout: float) -> Client:
    """`builtin:spec`, `builtin:reference`, or a command line for an adapter process."""
    if spec.startswith(BUILTIN_PREFIX):
        impl = spec.removeprefix(BUILTIN_PREFIX)
        if impl not in IMPLEMENTATIONS:
            raise ValueError(
                f"unknown built-in adapter {spec!r}: use builtin:spec or builtin:reference"
            )
        return InProcessClient(builtin_adapter(impl))
    argv = shlex.split(spec)
    if not argv:
        raise ValueError("empty client command")
    return ProcessClient(argv, timeout)
