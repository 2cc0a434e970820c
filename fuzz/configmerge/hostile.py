"""Hostile-input campaigns: mutated and generated messages through every parser.

Each task builds real messages from a few scenarios' worlds, as their clients push them (a
starting message, its increments with diffs and lagged entries, a merge, a message with an
unknown key), then derives inputs from them by seeded mutations (truncations, splices, digit
and length edits, hostile lengths and integers, deep nesting, byte edits) or generates bt
values from nothing. Every distinct input is parsed by the spec and the reference, and, with a
client, sent to its adapter as a `parse` request: every outcome must be equal, reason code
included (H1); neither library may raise anything but its refusal (H2) or take longer than
`SLOW_SECONDS` on one input (H3). The client is judged as the runner judges a vector case (C1,
C2, C3): against the reference's answer, built from the parse H1 already made, the spec's
(parsed once too) deciding where they differ; each example of a failing answer carries the
shell line that sends its request to the client again.
Client failures no declared quirk explains (C2) are counted by cause (`verdict.failure_cause`);
the report shrinks each cause's first input through the client (`shrink_failure`).
"""

from __future__ import annotations

import random
import re
import time
from collections import Counter
from collections.abc import Callable
from typing import Any, NamedTuple

from swarmconf.reference import configmerge as reference
from swarmconf.spec import configmerge as spec
from swarmconf.spec.configmerge.reasons import ConfigError, UsageError

from ..client import PooledClient, client_did, pooled, replay_line, start
from ..ddmin import ddmin
from ..heap import collector_paused
from ..hostile import (
    CAUSE_SHRINKERS,
    SLOW_SECONDS,
    HostileRow,
    Mutation,
    Outcome,
    Tally,
    byte_editor,
    mutated,
    splice,
    task_sizes,
    timed,
    truncate,
)
from .behaviours import Setting
from .cached_spec import CachedLibrary, LibraryOracle
from .scenario import generate_scenario
from .verdict import (
    AGREED,
    FAILED,
    QUIRK,
    SKIPPED,
    UNJUDGED,
    asked,
    declared_hang,
    failure_cause,
    judge,
    reason_pairs,
)
from .world import World

STATUS_PROPERTY = {FAILED: "C2", UNJUDGED: "C3"}
"""The property a verdict of each status fails (any other failing status fails C1)."""
SHRINK_TIMEOUT = 2.0
"""While shrinking a C2 group's input, a candidate the client does not answer within this (or
the campaign's timeout, if shorter) hangs: a hang's candidates would otherwise each cost the
whole timeout."""

PER_TASK = 50_000
SCENARIOS_PER_TASK = 3
PROPERTIES = {
    "H1": "the spec and the reference give the same outcome: the same message or reason code",
    "H2": "neither library raises anything but a refusal with a reason code",
    "H3": f"no input takes either library over {SLOW_SECONDS:g} s of CPU time",
    "C1": "the client's answer equals the spec's, reason code included",
    "C2": "the client never crashes, hangs, garbles an answer or errors",
    "C3": "every answer is judged: the oracle answers, the emulation explains each difference",
}
HOSTILE_INTEGERS = (
    b"0",
    b"-0",
    b"01",
    b"9223372036854775807",
    b"9223372036854775808",
    b"-9223372036854775808",
    b"-9223372036854775809",
    b"18446744073709551616",
    b"99999999999999999999999999",
    b"",
    b"-",
    b"+1",
)
NESTING = (2, 63, 64, 65, 200, 1000)
NUMBER = re.compile(rb"-?[0-9]+")
DIGIT = re.compile(rb"[0-9]")
LAGS = (5,) * 14 + (3, 3, 1, 1, 0, -1)
"""Lags drawn for inputs: mostly the default; lag 0 or less (a usage error) now and then."""
SHRINK_SECONDS = 20.0
"""Seconds a C2 group's input may spend shrinking (each candidate goes through the client)."""


class HostileTask(NamedTuple):
    campaign_seed: int
    task: int
    inputs: int
    client: str | None = None
    timeout: float = 10.0
    lenient: bool = False
    """A refusal with another reason code than the oracle's is agreement (counted by pair)."""


class Input(NamedTuple):
    message: bytes
    lag: int
    verify_key: bytes | None
    mutation: str


# Real messages ----------------------------------------------------------------------------


def seed_messages(campaign_seed: int, task: int) -> list[tuple[bytes, bytes | None]]:
    """Messages a campaign's clients push, with the key that verifies each (or None): in each
    of the task's scenarios, the starting message, each client's push after each of its edits
    (an increment of its last push, D29), and a merge of them all by a client holding the
    key."""
    found: list[tuple[bytes, bytes | None]] = []
    for number in range(SCENARIOS_PER_TASK):
        world = World(
            generate_scenario(campaign_seed, task * SCENARIOS_PER_TASK + number),
            Setting(twins=False),
        )
        clients = world.scenario.clients
        messages = [world.messages.base]
        for client, edits in enumerate(clients):
            key = world.start(client)
            for batch in range(len(edits.batches)):
                key = world.push(world.edit(key, client, batch).key).key
                messages.append(key.message)
        merger = next((n for n, edits in enumerate(clients) if edits.signer), 0)
        merged = world.poll(world.start(merger), tuple(dict.fromkeys(messages))).key
        messages.append(merged.message)
        found += [(message, world.messages.verify_key) for message in dict.fromkeys(messages)]
    return found


# Mutations --------------------------------------------------------------------------------


def digit_edit(rng: random.Random, message: bytes, other: bytes) -> bytes:
    digits = [match.start() for match in DIGIT.finditer(message)]
    if not digits:
        return message
    i = rng.choice(digits)
    return message[:i] + rng.choice((b"", b"0", b"9", b"1", b"00", b"-")) + message[i + 1 :]


def number_spans(message: bytes) -> list[tuple[int, int]]:
    """(start, end) of the runs of digits (with a leading minus) in `message`."""
    return [match.span() for match in NUMBER.finditer(message)]


def length_edit(rng: random.Random, message: bytes, other: bytes) -> bytes:
    """A string length or integer made off by one, zero, or hostile."""
    spans = number_spans(message)
    if not spans:
        return message
    start, end = rng.choice(spans)
    old = message[start:end]
    value = int(old) if old.lstrip(b"-").isdigit() else 0
    new = rng.choice(
        (
            b"%d" % (value + 1),
            b"%d" % max(0, value - 1),
            b"0",
            b"0" + old,
            rng.choice(HOSTILE_INTEGERS),
            b"%d" % (1 << rng.choice((31, 32, 63, 64))),
        )
    )
    return message[:start] + new + message[end:]


def nesting(rng: random.Random, message: bytes, other: bytes) -> bytes:
    """Deep lists or dicts inserted where a value may start."""
    depth = rng.choice(NESTING)
    opener = rng.choice((b"l", b"d1:a"))
    nested = opener * depth + b"i1e" + b"e" * depth
    i = rng.randrange(len(message) + 1)
    return message[:i] + nested + message[i:]


def generated(rng: random.Random, message: bytes, other: bytes) -> bytes:
    """A bt value made from nothing, shaped like a message half the time."""
    if rng.random() < 0.5:
        return random_bt(rng, 3)
    fields = {b"#": rng.randrange(-2, 10), b"&": random_value(rng, 3)}
    for key in (b"<", b"=", b"~", b"_x"):
        if rng.random() < 0.4:
            fields[key] = random_value(rng, 2)
    return encode(fields)


MUTATIONS: dict[str, Mutation] = {
    "truncate": truncate,
    "splice": splice,
    "digit": digit_edit,
    "length": length_edit,
    "nesting": nesting,
    "byte": byte_editor(b"ilde:0-~=&<#"),
    "generated": generated,
}


def random_value(rng: random.Random, depth: int) -> Any:
    kind = rng.randrange(4 if depth > 0 else 2)
    if kind == 0:
        return rng.choice((0, 1, -1, 2**63 - 1, -(2**63), 2**63, rng.randrange(-99, 99)))
    if kind == 1:
        return rng.choice((b"", b"-", b"a", b"=", bytes(32), bytes(rng.randrange(8))))
    if kind == 2:
        return [random_value(rng, depth - 1) for _ in range(rng.randrange(4))]
    return {
        rng.choice((b"", b"a", b"b", b"=", b"&", b"#")): random_value(rng, depth - 1)
        for _ in range(rng.randrange(4))
    }


def encode(value: Any) -> bytes:
    """bt as written, dict keys in the given order (so unsorted dicts occur too)."""
    if isinstance(value, int):
        return b"i%de" % value
    if isinstance(value, bytes):
        return b"%d:%s" % (len(value), value)
    if isinstance(value, list):
        return b"l" + b"".join(encode(item) for item in value) + b"e"
    return b"d" + b"".join(encode(k) + encode(v) for k, v in value.items()) + b"e"


def random_bt(rng: random.Random, depth: int) -> bytes:
    return encode(random_value(rng, depth))


def hostile_inputs(task: HostileTask) -> list[Input]:
    """The task's inputs: each a mutation (one to three times) of a real message, or generated."""
    rng = random.Random(f"hostile:{task.campaign_seed}:{task.task}")
    seeds = seed_messages(task.campaign_seed, task.task)
    inputs = []
    for _ in range(task.inputs):
        message, key = rng.choice(seeds)
        message, applied = mutated(rng, message, seeds, MUTATIONS, b"de", first)
        lag = rng.choice(LAGS)
        verify_key = key if rng.random() < 0.5 else None
        inputs.append(Input(message, lag, verify_key, applied))
    return inputs


def first(seed: tuple[bytes, bytes | None]) -> bytes:
    return seed[0]


# Outcomes ---------------------------------------------------------------------------------


def outcome(parse: Callable[..., Any], item: Input) -> tuple[Outcome, float]:
    """("valid", seqno, hash, signature, bytes) or ("invalid", reason) or ("raised", type)."""

    def parsed() -> Outcome:
        message = parse(item.message, lag=item.lag, verify_key=item.verify_key)
        signature = "" if message.signature is None else message.signature.hex()
        return (
            "valid",
            str(message.seqno),
            message.hash.hex(),
            signature,
            bytes(message.serialize()).hex(),
        )

    return timed(parsed, (ConfigError, UsageError), reason_of)


def reason_of(error: ConfigError | UsageError) -> str:
    return str(error.reason)


def parse_request(item: Input) -> dict[str, Any]:
    request: dict[str, Any] = {"op": "parse", "msg": item.message.hex(), "lag": item.lag}
    if item.verify_key is not None:
        request["verify_key"] = item.verify_key.hex()
    return request


def run_hostile_task(task: HostileTask) -> HostileRow:
    """One row: the task's counts, outcome tally and first failing inputs."""
    started = time.perf_counter()
    inputs = hostile_inputs(task)
    distinct = list({(i.message, i.lag, i.verify_key): i for i in inputs}.values())
    tally = Tally()
    with collector_paused():
        # What the check keeps (both libraries' parses) is dropped when it returns, before the
        # collector runs again, which would traverse it all
        client_counts = check_inputs(task, distinct, tally)
    counts = (sum(client_counts.values()), client_counts[SKIPPED], client_counts[QUIRK])
    return tally.row(task.campaign_seed, task.task, len(inputs), len(distinct), started, counts)


def check_inputs(task: HostileTask, distinct: list[Input], tally: Tally) -> Counter[str]:
    """Every input through both libraries (H1-H3) and the client (C1-C3), noted in `tally`; the
    client's verdicts counted by status."""

    def note(name: str, item: Input, detail: str, **more: str) -> None:
        tally.note(name, detail, {"mutation": item.mutation, **parse_request(item), **more})

    pending = None
    client = None
    # With a client, both libraries' parses are kept for its oracle and judge, which ask again
    spec_cache, reference_cache = CachedLibrary(spec), CachedLibrary(reference)
    spec_parse: Callable[..., Any] = spec.parse
    reference_parse: Callable[..., Any] = reference.parse
    if task.client is not None:
        client = pooled(task.client, task.timeout)
        requests = [parse_request(item) for item in distinct]
        pending = client.send(requests, declared_hang(client.quirks))
        spec_parse, reference_parse = spec_cache.parse, reference_cache.parse
    for item in distinct:
        want, spec_seconds = outcome(spec_parse, item)
        got, reference_seconds = outcome(reference_parse, item)
        tally.outcomes[want[0] if want[0] != "invalid" else want[1]] += 1
        if "raised" in (want[0], got[0]):
            note("H2", item, f"spec {want[-1]}, reference {got[-1]}")
        elif want != got:
            note("H1", item, f"spec {want[0]} {want[1][:16]}, reference {got[0]} {got[1][:16]}")
        if tally.slow(max(spec_seconds, reference_seconds)):
            note("H3", item, f"spec {spec_seconds:.2f} s, reference {reference_seconds:.2f} s")
    client_counts = Counter[str]()
    if client is None or pending is None:
        return client_counts
    oracle, judge_ = LibraryOracle(reference_cache), LibraryOracle(spec_cache)
    command = client.command
    for item, answer in zip(distinct, pending(), strict=True):
        request = parse_request(item)
        expected = asked(oracle.handle, request)
        verdict = judge(request, expected, answer, client.quirks, judge_.handle, task.lenient)
        client_counts[verdict.status] += 1
        tally.quirks.update(verdict.quirks)
        tally.reasons.update(reason_pairs([verdict]))
        if verdict.status not in (AGREED, SKIPPED, QUIRK):
            name = STATUS_PROPERTY.get(verdict.status, "C1")
            replay = replay_line(request, command)
            note(name, item, verdict.detail, replay=replay)
            if name == "C2" and client_did(answer):
                example = {"mutation": item.mutation, **request, "replay": replay}
                tally.cause(failure_cause(request, expected, answer), example)
    spec_cache.forget()
    reference_cache.forget()
    return client_counts


# C2 groups' inputs, shrunk ----------------------------------------------------------------


def input_of(example: dict[str, Any]) -> Input:
    """The input a C2 example (a `parse` request and its mutation) holds."""
    key = example.get("verify_key")
    return Input(
        bytes.fromhex(example["msg"]),
        int(example["lag"]),
        None if key is None else bytes.fromhex(key),
        str(example.get("mutation", "")),
    )


class CauseProbe:
    """Sends one input at a time to a client and says why it fails C2 (`failure_cause`), if it
    does, judged as the campaign judges it."""

    def __init__(self, client: PooledClient, lenient: bool) -> None:
        self.client = client
        self.lenient = lenient
        self.oracle = LibraryOracle(CachedLibrary(reference))
        self.judge = LibraryOracle(CachedLibrary(spec))
        self.hangs = declared_hang(client.quirks)

    def cause(self, item: Input) -> str | None:
        request = parse_request(item)
        [answer] = self.client.send([request], self.hangs)()
        expected = asked(self.oracle.handle, request)
        verdict = judge(
            request, expected, answer, self.client.quirks, self.judge.handle, self.lenient
        )
        return failure_cause(request, expected, answer) if verdict.status == FAILED else None


def shrink_failure(
    example: dict[str, Any], cause: str, command: str, timeout: float, lenient: bool
) -> dict[str, Any]:
    """The smallest input found on which the client `command` still fails with `cause`: its
    message cut by delta debugging over its bytes, then without its verify key and at the
    default lag where the cause stays; `SHRINK_SECONDS` at most (the best found so far then),
    the candidates on one adapter process (restarted where one dies). With the `parse`
    request: its size in bytes, the number of candidates tried and its replay line."""
    item = input_of(example)
    deadline = time.monotonic() + SHRINK_SECONDS
    client = start(command, min(timeout, SHRINK_TIMEOUT))
    probe = CauseProbe(client, lenient)
    seen: dict[Input, bool] = {}

    def fails(candidate: Input) -> bool:
        if candidate not in seen:
            if time.monotonic() > deadline:
                return False
            seen[candidate] = probe.cause(candidate) == cause
        return seen[candidate]

    try:
        if fails(item):
            kept = ddmin(item.message, lambda part: fails(item._replace(message=bytes(part))))
            item = item._replace(message=bytes(kept))
            for simpler in ({"verify_key": None}, {"lag": LAGS[0]}):
                candidate = item._replace(**simpler)
                if candidate != item and fails(candidate):
                    item = candidate
    finally:
        client.close()
    request = parse_request(item)
    return {
        **request,
        "bytes": len(item.message),
        "tried": len(seen),
        "shrunk_to": f"{len(item.message):,} bytes ({len(seen):,} candidates tried)",
        "replay": replay_line(request, command),
    }


CAUSE_SHRINKERS["parser"] = shrink_failure


def plan_hostile(
    campaign_seed: int, inputs: int, client: str | None, timeout: float, lenient: bool = False
) -> list[HostileTask]:
    """`inputs` split into tasks of `PER_TASK` (smaller with a client, whose batch is one task)."""
    per_task = PER_TASK if client is None else PER_TASK // 5
    return [
        HostileTask(campaign_seed, number, size, client, timeout, lenient)
        for number, size in enumerate(task_sizes(inputs, per_task))
    ]
