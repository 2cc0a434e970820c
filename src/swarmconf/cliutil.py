"""What every `swarmconf` command group shares: exit statuses, the one error line, inputs, keys.

A refusal is one line on stderr, `swarmconf: error: REASON: detail`, and an exit status from
`Exit`, whichever group refuses. Groups raise `CommandError`, or hand their library's errors to
`guarded` through a `Translate` function; they never print errors or pick statuses themselves.
This module imports nothing else of swarmconf, so every group can use it.
"""

from __future__ import annotations

import argparse
import os
import sys
import textwrap
from collections.abc import Callable, Sequence
from enum import Enum, IntEnum, StrEnum
from itertools import pairwise
from pathlib import Path
from types import ModuleType
from typing import Any, NoReturn

PROG = "swarmconf"


class Exit(IntEnum):
    """The exit statuses of every `swarmconf` command."""

    OK = 0
    """Done; every check passed."""
    FAILED = 1
    """The input was refused, or a check failed (a signature, a conformance run, a fuzz case)."""
    USAGE = 2
    """The command line is wrong: a bad option or argument, a file that cannot be read or
    written, a key that is not `HEX|@FILE`."""
    UNAVAILABLE = 3
    """Something the command needs is missing: an optional extra, a running node, a working
    conformance client."""
    INTERRUPTED = 130
    """Stopped by Ctrl-C."""


class CliReason(StrEnum):
    """The command line's own reason codes, beside those of the designs' specs."""

    USAGE = "USAGE"
    """The command line does not parse: an unknown option, a missing or malformed argument."""
    INPUT_UNREADABLE = "INPUT_UNREADABLE"
    """An input file could not be read."""
    INPUT_NOT_HEX = "INPUT_NOT_HEX"
    """Input read as hex text (`--hex`) is not hex."""
    OUTPUT_UNWRITABLE = "OUTPUT_UNWRITABLE"
    """An output file could not be written (or exists, where a command refuses to overwrite)."""
    KEY_NOT_HEX = "KEY_NOT_HEX"
    """A key argument is neither hex nor `@FILE`, or its file holds neither hex nor raw bytes."""
    MISSING_EXTRA = "MISSING_EXTRA"
    """The command needs an optional extra that is not installed (`pip install 'swarmconf[X]'`)."""
    BAD_VECTORS = "BAD_VECTORS"
    """The vector directory holds no vector file, or none of the suites asked for."""
    BAD_CLIENT = "BAD_CLIENT"
    """The conformance client's command line is empty or unknown."""
    CLIENT_FAILED = "CLIENT_FAILED"
    """The conformance client failed to start, crashed, hung or broke the adapter protocol."""
    CONFORMANCE_FAILED = "CONFORMANCE_FAILED"
    """The client disagreed with a vector, or skipped one."""
    COVERAGE_GAP = "COVERAGE_GAP"
    """The generated vectors leave a rule or a reason code without any case."""
    BAD_MUTANT = "BAD_MUTANT"
    """`--mutant` names no known mutant of the design being fuzzed."""
    BAD_CASE = "BAD_CASE"
    """A fuzz case is neither a readable case file nor `SEED:SCENARIO:SCHEDULE`."""
    FUZZ_FAILED = "FUZZ_FAILED"
    """A fuzz campaign found failing cases, or a replayed case still fails."""


class CommandError(Exception):
    """A refusal to report as `REASON: detail`, ending the command with `status`.

    Without a detail, the detail is the code's meaning: its docstring in its enum.
    """

    def __init__(self, reason: str, detail: str, status: Exit = Exit.FAILED) -> None:
        self.reason = str(reason)
        if not detail and isinstance(reason, Enum):
            detail = meaning(reason)
        self.detail = detail or "refused"
        self.status = status
        super().__init__(f"{self.reason}: {self.detail}")


def meaning(code: Enum) -> str:
    """The docstring that follows `code`'s member in its enum's source, on one line."""
    import ast  # read the source only when a meaning is asked for, not at every start
    import inspect

    try:
        (definition,) = ast.parse(textwrap.dedent(inspect.getsource(type(code)))).body
    except (OSError, TypeError, ValueError):
        return ""
    assert isinstance(definition, ast.ClassDef)
    body = definition.body
    for member, follower in pairwise(body):
        names = [t.id for t in getattr(member, "targets", []) if isinstance(t, ast.Name)]
        if code.name in names and isinstance(follower, ast.Expr):
            text = follower.value
            if isinstance(text, ast.Constant) and isinstance(text.value, str):
                return " ".join(text.value.split())
    return ""


Handler = Callable[[argparse.Namespace], int]
Translate = Callable[[Exception], CommandError | None]
"""A group's own errors as `CommandError`s; None for an error that is a bug, not a refusal."""


def error_line(reason: str, detail: str) -> str:
    """The one error line every command prints."""
    return f"{PROG}: error: {reason}: {detail}"


def report(error: CommandError) -> int:
    """Print `error` as the one error line; its exit status."""
    print(error_line(error.reason, error.detail), file=sys.stderr)
    return error.status


def _no_translation(error: Exception) -> CommandError | None:
    return None


def guarded(command: Handler, translate: Translate = _no_translation) -> Handler:
    """`command`, with every refusal reported as one line and its status (never a traceback)."""

    def run(args: argparse.Namespace) -> int:
        try:
            return int(command(args))
        except CommandError as error:
            return report(error)
        except BrokenPipeError:
            # The reader went away (`| head`): stop quietly, without a flush error at exit.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return Exit.FAILED
        except KeyboardInterrupt:
            return Exit.INTERRUPTED
        except Exception as error:
            refusal = translate(error)
            if refusal is None:
                raise
            return report(refusal)

    return run


def deferred(module: str, name: str) -> Handler:
    """The handler `name` of `module`, imported when its command runs, not when the command line
    is built: `--help` and every other command skip its machinery. Guarded like `guarded`, by the
    module's `refusal` translation where it has one."""

    def run(args: argparse.Namespace) -> int:
        import importlib

        loaded = importlib.import_module(module)
        translate = getattr(loaded, "refusal", _no_translation)
        return guarded(getattr(loaded, name), translate)(args)

    return run


class Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors speak the one voice; its sub-parsers inherit it."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(Exit.USAGE, error_line(CliReason.USAGE, message) + "\n")


def examples(*lines: str) -> dict[str, Any]:
    """`add_parser` keywords for a `--help` that ends with these example lines."""
    return {
        "epilog": "examples:\n" + "\n".join(f"  {line}" for line in lines),
        "formatter_class": argparse.RawDescriptionHelpFormatter,
    }


# Inputs, outputs and keys ----------------------------------------------------------------------


def read_file(name: str, limit: int | None = None) -> bytes:
    """The bytes of file `name` (`-`: stdin), at most `limit + 1` of them when a limit is given."""
    size = -1 if limit is None else limit + 1
    try:
        if name == "-":
            return sys.stdin.buffer.read(size)
        with open(name, "rb") as handle:
            return handle.read(size)
    except OSError as error:
        detail = f"cannot read {name}: {error.strerror or error}"
        raise CommandError(CliReason.INPUT_UNREADABLE, detail, Exit.USAGE) from error


def from_hex(text: bytes, name: str) -> bytes:
    """Hex text (whitespace allowed) as bytes, or INPUT_NOT_HEX naming `name`."""
    try:
        return bytes.fromhex(text.decode("ascii"))
    except (UnicodeDecodeError, ValueError) as error:
        raise CommandError(CliReason.INPUT_NOT_HEX, f"{name} is not hex text") from error


def write_file(
    name: str | None, data: bytes, *, exclusive: bool = False, mode: int = 0o644
) -> None:
    """`data` to file `name` (None or `-`: stdout); `exclusive` refuses to replace a file."""
    if name in (None, "-"):
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    flags = os.O_WRONLY | os.O_CREAT | (os.O_EXCL if exclusive else os.O_TRUNC)
    try:
        fd = os.open(name, flags, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
    except OSError as error:
        detail = f"cannot write {name}: {error.strerror or error}"
        raise CommandError(CliReason.OUTPUT_UNWRITABLE, detail, Exit.USAGE) from error


def output_dir(path: Path) -> Path:
    """`path`, created if missing, or OUTPUT_UNWRITABLE before any work is done."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / ".swarmconf-write-check"
        probe.touch()
        probe.unlink()
    except OSError as error:
        detail = f"cannot write in {path}: {error.strerror or error}"
        raise CommandError(CliReason.OUTPUT_UNWRITABLE, detail, Exit.USAGE) from error
    return path


KEY_HELP = "HEX|@FILE"
"""The metavar of every key argument: hex digits, or @ and a file holding hex text or raw bytes."""


def key_argument(text: str) -> bytes:
    """A key given as hex, or as `@FILE` naming a file of hex text or of the raw key bytes."""
    if text.startswith("@"):
        content = read_file(text[1:], 4096)
        try:
            return bytes.fromhex(content.decode("ascii"))
        except (UnicodeDecodeError, ValueError):
            return content
    try:
        return bytes.fromhex(text)
    except ValueError as error:
        detail = f"a key is HEX or @FILE, not {text!r}"
        raise CommandError(CliReason.KEY_NOT_HEX, detail, Exit.USAGE) from error


def optional_key(text: str | None) -> bytes | None:
    """`key_argument`, or None for an option that was not given."""
    return None if text is None else key_argument(text)


# Optional extras --------------------------------------------------------------------------------


def import_extra(extra: str, modules: Sequence[str]) -> list[ModuleType]:
    """Import `modules`, or refuse with the one line that names the extra that installs them."""
    import importlib

    loaded = []
    for name in modules:
        try:
            loaded.append(importlib.import_module(name))
        except ImportError as error:
            detail = f"{name} is not installed: pip install '{PROG}[{extra}]'"
            raise CommandError(CliReason.MISSING_EXTRA, detail, Exit.UNAVAILABLE) from error
    return loaded
