"""Merges (D15): conflicts resolved between 2 to 6 writers, whatever the order of the inputs.

Random histories of concurrent writers are merged from their newest messages, shuffled, and
sometimes edited after the merge (D12); two writers race on one path, changing its kind or
removing it; unknown top-level keys of forked messages are dropped by the merge (D9).
"""

from __future__ import annotations

import random

from swarmconf.conformance.builder import VALID, BoundGroup, SuiteBuilder
from swarmconf.conformance.configmerge.history import random_history, recent
from swarmconf.conformance.configmerge.merge_input import merge_input
from swarmconf.conformance.configmerge.values import (
    Data,
    data_hex,
    edited,
    new_message,
    random_data,
    random_edits,
    raw_message,
)
from swarmconf.conformance.configmerge.vocabulary import new_suite
from swarmconf.spec import configmerge as spec

SHAPES: list[tuple[str, object]] = [
    ("scalar", 1),
    ("string", b"s"),
    ("set", {1, 2}),
    ("dict", {b"x": 1, b"y": {2}}),
    ("absent", None),
]
"""What a raced path holds before and after each writer's change."""


def random_merges(suite: SuiteBuilder, rng: random.Random) -> None:
    """Up to `ways` of the newest messages of a `ways`-writer history, shuffled."""
    for ways in range(2, 7):
        for index in range(500):
            lag = rng.choice([2, 3, 4, 5, 5, 5, 5, 6])
            history = random_history(rng, writers=ways, steps=rng.randint(ways, 3 * ways), lag=lag)
            messages = recent(history, lag, ways, rng)
            rng.shuffle(messages)
            request = merge_input(messages, lag=lag)
            edit = rng.random() < 0.2
            if edit:
                top = spec.merge(messages, lag=lag)
                request["data"] = data_hex(random_edits(rng, top.data, rng.randint(1, 3)))
            suite.case(
                f"{ways}-way-{index}",
                f"up to {ways} of the newest messages of a {ways}-writer random history,"
                f" shuffled (lag {lag})" + (", then edited" if edit else ""),
                op="merge",
                input=request,
                expect=VALID,
                flags=["RandomHistory", "Conflict", "Shuffled"],
                rules=["D14", "D15", "D16"] + (["D12"] if edit else []),
            )


def wrapped(value: object, nested: bool) -> Data:
    """`{k: value}` (nothing if None), inside a dict `d` beside another key if `nested`."""
    inner = {} if value is None else {b"k": value}
    return {b"d": {**inner, b"keep": 0}} if nested else inner


def racing(g: BoundGroup) -> None:
    """Two writers fork one message and change the same path in different ways."""
    for base_name, base_value in SHAPES:
        for left_name, left in SHAPES:
            for right_name, right in SHAPES:
                for nested in (False, True):
                    base = new_message(7, {**wrapped(base_value, nested), b"other": 1})
                    one = edited(base, {**wrapped(left, nested), b"other": 1})
                    two = edited(base, {**wrapped(right, nested), b"other": 2})
                    for order, messages in [("ab", [one, two]), ("ba", [two, one, base])]:
                        g.case(
                            f"race-{base_name}-to-{left_name}-vs-{right_name}"
                            f"{'-nested' if nested else ''}-{order}",
                            f"from {base_name}, one writer makes it {left_name}, the other"
                            f" {right_name}{' (inside a dict)' if nested else ''}",
                            input=merge_input(messages),
                            expect=VALID,
                            flags=["Conflict", "TypeChange", "RemovalRace"],
                            rules=["D12", "D15"],
                        )


def unknown_keys(g: BoundGroup, rng: random.Random) -> None:
    """Forks of a message with unknown top-level keys: increments keep them, merges drop them
    (D9); a single survivor is returned unchanged, keys and all."""
    for index in range(40):
        data = random_data(rng)
        extra = {rng.choice([b"$", b"*", b">", b"x", b"}"]): rng.choice([1, b"v", [2, 1], {}])}
        base = raw_message(rng.randint(1, 60), data, lagged=[], diff={}, extra=extra)
        forks = [edited(base, random_edits(rng, data, 2)) for _ in range(rng.randint(1, 3))]
        messages = [*forks, base]
        rng.shuffle(messages)
        survivor = len(forks) == 1
        g.case(
            f"unknown-keys-{index}",
            "forks of a message with an unknown top-level key"
            + (": one survivor keeps it" if survivor else ": the merge drops it (D9)"),
            input=merge_input(messages),
            expect=VALID,
            flags=["UnknownTopLevelKey"] + ([] if survivor else ["Conflict"]),
            rules=["D9", "D14", "D15"],
        )


def build() -> SuiteBuilder:
    suite = new_suite(
        "merges",
        "Conflict resolution (D15): 2- to 6-way merges of random histories, inputs shuffled,"
        " with kind changes racing, removals racing assignments, and edits after the merge.",
    )
    rng = random.Random("swarmconf merges v1")
    random_merges(suite, rng)
    racing(suite.group("merge", lag=5))
    unknown_keys(suite.group("merge", lag=5), rng)
    return suite
