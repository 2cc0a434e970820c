"""What every hostile-input campaign shares, whatever the design: the byte-level mutations, the
tally of outcomes and violations a task keeps, its result row, and the split into tasks.

A design's campaign (`configmerge.hostile`, `kvgossip.hostile`) builds real messages, mutates
them with these and its own format-aware mutations, runs each distinct input through its
decoders and notes what disagrees, raises or is slow in a `Tally`, which becomes one row.
"""

from __future__ import annotations

import json
import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from .rows import schema_of

if TYPE_CHECKING:
    from pyspark.sql.types import StructType

SLOW_SECONDS = 2.0
"""An input taking a decoder longer than this (CPU time) is a hang (H3)."""
EXAMPLES = 5
"""Failing inputs a task keeps, as examples for the report."""

Mutation = Callable[[random.Random, bytes, bytes], bytes]
"""`(rng, message, another message) -> mutated message`."""
Outcome = tuple[str, ...]
"""("valid", ...) or ("invalid", reason code) or ("raised", exception type), per design."""
CauseShrinker = Callable[[dict[str, Any], str, str, float, bool], dict[str, Any]]
"""`(first input, cause, client command, timeout, lenient) -> smallest input found` still
failing through the client with that cause, with its replay line (see `CAUSE_SHRINKERS`)."""
CAUSE_SHRINKERS: dict[str, CauseShrinker] = {}
"""Each hostile campaign's shrinker of its C2 groups' inputs, by `--system` name: a design's
campaign module registers its own, which the shared report calls on each group."""


def truncate(rng: random.Random, message: bytes, other: bytes) -> bytes:
    return message[: rng.randrange(len(message))]


def splice(rng: random.Random, message: bytes, other: bytes) -> bytes:
    return message[: rng.randrange(len(message) + 1)] + other[rng.randrange(len(other) + 1) :]


def byte_editor(alphabet: bytes) -> Mutation:
    """A byte replaced, inserted (from `alphabet`, the format's structural bytes), removed, or a
    run of bytes repeated."""

    def byte_edit(rng: random.Random, message: bytes, other: bytes) -> bytes:
        i = rng.randrange(len(message))
        choice = rng.randrange(4)
        if choice == 0:
            return message[:i] + bytes([rng.randrange(256)]) + message[i + 1 :]
        if choice == 1:
            return message[:i] + bytes([rng.choice(alphabet)]) + message[i:]
        if choice == 2:
            return message[:i] + message[i + 1 :]
        j = rng.randrange(i, len(message) + 1)
        return message[:j] + message[i:j] + message[j:]

    return byte_edit


def mutated(
    rng: random.Random,
    message: bytes,
    others: Sequence[Any],
    mutations: dict[str, Mutation],
    empty: bytes,
    pick: Callable[[Any], bytes] = bytes,
    weights: Sequence[int] | None = None,
) -> tuple[bytes, str]:
    """`message` mutated one to three times (another message drawn from `others` for splices;
    `empty` stands in for a message cut to nothing), and the mutations' names joined by `+`.
    Mutations are drawn alike, or by `weights` (one per mutation) when given."""
    names = list(mutations)
    applied = []
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        name = rng.choice(names) if weights is None else rng.choices(names, weights)[0]
        message = mutations[name](rng, message or empty, pick(rng.choice(others)))
        applied.append(name)
    return message, "+".join(applied)


def timed(
    call: Callable[[], Outcome],
    refusal: type[Exception] | tuple[type[Exception], ...],
    reason: Callable[[Any], str],
) -> tuple[Outcome, float]:
    """`call()`'s outcome and its CPU time: a `refusal` becomes ("invalid", its reason code),
    any other exception ("raised", its type), which is what H2 reports."""
    started = time.thread_time()
    try:
        found = call()
    except refusal as error:
        found = ("invalid", reason(error))
    except Exception as error:
        found = ("raised", type(error).__name__)
    return found, time.thread_time() - started


class Tally:
    """A task's outcome counts, violations by property, first failing inputs, slowest input,
    a client's answers acceptable as a declared quirk, by quirk, and its refusals accepted
    with another reason code (`--lenient-reasons`), by pair of reasons."""

    def __init__(self) -> None:
        self.outcomes: Counter[str] = Counter()
        self.violations: Counter[str] = Counter()
        self.quirks: Counter[str] = Counter()
        self.reasons: Counter[str] = Counter()
        self.causes: dict[str, dict[str, Any]] = {}
        self.examples: list[dict[str, Any]] = []
        self.slowest = 0.0

    def note(self, name: str, detail: str, example: dict[str, Any]) -> None:
        """Property `name` failed on the input `example` describes."""
        self.violations[name] += 1
        if len(self.examples) < EXAMPLES:
            self.examples.append({"property": name, "detail": detail, **example})

    def cause(self, cause: str, example: dict[str, Any]) -> None:
        """A client failure no declared quirk explains, counted by `cause`, with its first
        input."""
        found = self.causes.setdefault(cause, {"count": 0, "example": example})
        found["count"] += 1

    def slow(self, seconds: float) -> bool:
        """Keep one input's slowest decoder time; True if it is over `SLOW_SECONDS` (H3)."""
        self.slowest = max(self.slowest, seconds)
        return seconds > SLOW_SECONDS

    def row(
        self,
        campaign_seed: int,
        task: int,
        inputs: int,
        distinct: int,
        started: float,
        client: tuple[int, int, int] = (0, 0, 0),
    ) -> HostileRow:
        """The task's row; `client` is (requests, skipped, quirks)."""
        return HostileRow(
            campaign_seed,
            task,
            inputs,
            distinct,
            json.dumps(dict(sorted(self.outcomes.items()))),
            json.dumps(dict(sorted(self.violations.items()))),
            json.dumps(self.examples),
            *client,
            json.dumps(dict(sorted(self.quirks.items()))),
            time.perf_counter() - started,
            self.slowest,
            json.dumps(dict(sorted(self.reasons.items()))),
            json.dumps(self.causes),
        )


class HostileRow(NamedTuple):
    """A task's row."""

    campaign_seed: int
    task: int
    inputs: int
    distinct: int
    outcomes: str
    """JSON: each outcome ("valid", "raised" or a reason code, prefixed by the decoder in K/V
    Gossip's campaign) to its count."""
    violations: str
    """JSON: each violated property to its count."""
    examples: str
    """JSON: the first failing inputs."""
    client_requests: int
    client_skipped: int
    client_quirks: int
    client_quirk_counts: str
    """JSON: each declared quirk to the client's answers it made acceptable."""
    seconds: float
    slowest: float
    client_reason_pairs: str = "{}"
    """JSON: each pair of reasons `expected -> client's` to the refusals judged leniently."""
    client_failure_causes: str = "{}"
    """JSON: each cause of client failures (C2) to its count and first input (`Tally.cause`)."""


def hostile_schema() -> StructType:
    return schema_of(HostileRow)


def task_sizes(inputs: int, per_task: int) -> list[int]:
    """`inputs` split into tasks of `per_task` (the last one smaller)."""
    return [min(per_task, inputs - first) for first in range(0, inputs, per_task)]
