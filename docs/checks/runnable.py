"""Run the code blocks of the pages marked `tested: true`, as a reader would.

Each page's fenced blocks run in order, in one scratch directory:

- `sh` blocks run with `bash -e`, with the current interpreter's `bin` directory first on `PATH`
  (so `swarmconf` is the one under test); processes they leave in the background are killed
  when the page is done;
- `python` blocks run with the Python of the `venv` the page itself created (the quickstart
  installs swarmconf into `./venv` first), or the current interpreter if there is none;
- a `text` block right after one of those is the exact standard output it must print.

Any other kind of block on a tested page is an error, so nothing on it escapes the test.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

FENCE = re.compile(r"^```([a-z]*)[^\n]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
FRONT_MATTER = re.compile(r"\A---\n(.*?)\n---\n", re.DOTALL)
RUNNERS = ("sh", "python")


@dataclass
class Block:
    language: str
    code: str
    line: int
    expected: str | None = None


def is_tested(markdown: str) -> bool:
    match = FRONT_MATTER.match(markdown)
    if match is None:
        return False
    return re.search(r"^tested:\s*true\s*$", match.group(1), re.MULTILINE) is not None


def blocks(markdown: str) -> list[Block]:
    """The runnable blocks of a page, each with the output block that follows it, if any."""
    found: list[Block] = []
    for match in FENCE.finditer(markdown):
        language, code = match.group(1), match.group(2)
        line = markdown.count("\n", 0, match.start()) + 1
        if language in RUNNERS:
            found.append(Block(language, code, line))
        elif language == "text" and found and found[-1].expected is None:
            between = markdown[markdown.rfind("```", 0, match.start() - 1) : match.start()]
            if between.strip("`\n "):
                raise ValueError(f"line {line}: output block not right after a code block")
            found[-1].expected = code
        else:
            raise ValueError(f"line {line}: block of kind {language!r} cannot be run")
    return found


def run_block(block: Block, workdir: Path, timeout: float, sessions: list[int]) -> str:
    """Run one block in `workdir`; return its standard output or raise with the details.

    Each block runs in a new session; its id is added to `sessions` for the final cleanup.
    """
    if block.language == "sh":
        command = ["bash", "-e", "-c", block.code]
    else:
        venv_python = workdir / "venv" / "bin" / "python"
        python = str(venv_python) if venv_python.exists() else sys.executable
        command = [python, "-c", block.code]
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    with subprocess.Popen(
        command,
        cwd=workdir,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PATH": path},
        start_new_session=True,
    ) as process:
        sessions.append(process.pid)
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            stop_session(process.pid)
            raise
    result = subprocess.CompletedProcess(command, process.returncode, stdout, stderr)
    if result.returncode != 0:
        raise AssertionError(
            f"block at line {block.line} exited with {result.returncode}:\n"
            f"{block.code}\n--- stdout\n{result.stdout}\n--- stderr\n{result.stderr}"
        )
    if block.expected is not None and result.stdout.rstrip() != block.expected.rstrip():
        raise AssertionError(
            f"block at line {block.line} printed\n{result.stdout}\ninstead of\n{block.expected}"
        )
    return result.stdout


def stop_session(session: int, grace: float = 10.0) -> None:
    """Stop every process left in a block's session (its process group): SIGTERM first, so
    that a process can stop its own children, then SIGKILL for whatever is left."""
    deadline = time.monotonic() + grace
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(session, signal.SIGTERM)
        while time.monotonic() < deadline:
            time.sleep(0.1)
            os.killpg(session, 0)
        os.killpg(session, signal.SIGKILL)


def run_page(markdown: str, workdir: Path, timeout: float = 600) -> int:
    """Run every block of a page in order; return how many ran."""
    page_blocks = blocks(markdown)
    sessions: list[int] = []
    try:
        for block in page_blocks:
            run_block(block, workdir, timeout, sessions)
    finally:
        for session in sessions:
            stop_session(session)
    return len(page_blocks)
