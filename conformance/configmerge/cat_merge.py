"""Ignore rules (D14) and merges (D15): handpicked cases and merges of random histories."""

from __future__ import annotations

import random

from swarmconf.conformance.configmerge.history import random_history, recent
from swarmconf.conformance.configmerge.suite import Suite
from swarmconf.conformance.configmerge.values import (
    HASH_A,
    data_hex,
    edited,
    minimal,
    new_message,
    random_data,
    random_edits,
    raw_message,
)
from swarmconf.spec import configmerge as spec
from swarmconf.spec.configmerge import examples

INVALID = [
    ("not-dict", b"i1e"),
    ("empty", b""),
    ("unsorted-set", raw_message(125, {b"s": [2, 1]}, diff={})),
    ("bad-bt", b"d1:#i01ee"),
    ("integer-in-diff", raw_message(125, diff={b"a": 1})),
    ("empty-dict", b"de"),
    ("wide-int-in-set-diff", raw_message(125, diff={b"s": [[2**63], []]})),
    ("unreplayable-set-diff", raw_message(125, {b"s": {1}}, diff={b"s": [[[1]], []]})),
]
QUIET_INVALID = [
    raw_message(125, {b"s": [2, 1]}, diff={}),
    b"d1:#i01ee",
    minimal(125)[:-1],
    raw_message(125, lagged=[[124, HASH_A[:31], {}]], diff={}),
    raw_message(125, diff={b"a": b"x"}),
]
"""Invalid inputs the deployed client skips as swarmconf does: what random merges mix in (the
inputs that abort or hang it, X2 and X3, have cases of their own)."""


def _chain(length: int, lag: int = 5) -> list[bytes]:
    """m1..m<length>, each setting `n` to its seqno."""
    chain = [new_message(1, {b"n": 1}, lag=lag)]
    for seqno in range(2, length + 1):
        chain.append(edited(chain[-1], {b"n": seqno}, lag=lag))
    return chain


def ignore_rules() -> Suite:
    suite = Suite(
        "ignore_rules",
        "Ignored updates (D14): too old (seqno + lag <= max), included in another message's"
        " lagged list, exact duplicates, invalid inputs skipped; one survivor is returned"
        " unchanged; no valid input is NO_VALID_MESSAGE.",
    )
    chain = _chain(12)
    fork_a = edited(chain[9], {b"n": 100})
    fork_b = edited(chain[9], {b"n": 200, b"w": b"b"})
    cases: list[tuple[str, str, list[bytes], list[str], list[str], str | None]] = [
        ("single", "one message: returned unchanged", [chain[5]], ["D14"], ["Survivor"], None),
        (
            "included-older",
            "m5 is in m6's lagged list: m6 survives",
            [chain[4], chain[5]],
            ["D14"],
            ["Included"],
            None,
        ),
        (
            "included-chain",
            "m7..m10 each included in m11: m11 survives",
            chain[6:11],
            ["D14"],
            ["Included"],
            None,
        ),
        ("duplicate", "the same message twice", [chain[5], chain[5]], ["D14"], ["Duplicate"], None),
        (
            "duplicate-three",
            "three copies and an included one",
            [chain[5]] * 3 + [chain[4]],
            ["D14"],
            ["Duplicate", "Included"],
            None,
        ),
        (
            "too-old-boundary",
            "m6 with max 11: 6 + 5 <= 11, dropped, so m11 survives alone",
            [chain[5], chain[10]],
            ["D14"],
            ["Stale"],
            None,
        ),
        (
            "fork-with-stale",
            "two forks at 11 and m5 (5 + 5 <= 11): m5 is dropped",
            [fork_a, chain[4], fork_b],
            ["D14", "D15"],
            ["Stale", "Conflict"],
            None,
        ),
        (
            "fork-with-included",
            "two forks at 11 and m10 (included in both)",
            [chain[9], fork_b, fork_a],
            ["D14", "D15"],
            ["Included", "Conflict"],
            None,
        ),
        (
            "fork-with-duplicates",
            "two forks given twice each",
            [fork_a, fork_b, fork_b, fork_a],
            ["D14", "D15"],
            ["Duplicate", "Conflict"],
            None,
        ),
        (
            "example-120b-too-old",
            "the design text's stale 120b dropped from a merge at 125",
            [examples.m125a(), examples.m120b(), examples.m125b()],
            ["D14", "D15"],
            ["Stale"],
            None,
        ),
        (
            "all-invalid",
            "only invalid inputs",
            [blob for _, blob in INVALID],
            ["D14"],
            ["InvalidMixedIn"],
            "NO_VALID_MESSAGE",
        ),
        (
            "no-input",
            "an empty list of messages",
            [],
            ["D14"],
            ["InvalidMixedIn"],
            "NO_VALID_MESSAGE",
        ),
        (
            "single-invalid",
            "one invalid input",
            [b"de"],
            ["D14"],
            ["InvalidMixedIn"],
            "NO_VALID_MESSAGE",
        ),
    ]
    for name, blob in INVALID:
        cases.append(
            (
                f"invalid-{name}-with-survivor",
                f"{name} skipped beside m6",
                [blob, chain[5]],
                ["D14"],
                ["InvalidMixedIn"],
                None,
            )
        )
        cases.append(
            (
                f"invalid-{name}-in-fork",
                f"{name} skipped in a two-way merge",
                [fork_a, blob, fork_b],
                ["D14", "D15"],
                ["InvalidMixedIn", "Conflict"],
                None,
            )
        )
    # The lagged list as filtered at parse decides inclusion (D7, D14): with lag 2, m8 is not
    # in m11's kept entries, but it is too old anyway; m10 is.
    chain2 = _chain(11, lag=2)
    fork2 = edited(chain2[9], {b"n": 300}, lag=2)
    for name, inputs in [
        ("lag-2-included", [chain2[9], chain2[10]]),
        ("lag-2-too-old", [chain2[8], chain2[10]]),
        ("lag-2-fork", [chain2[10], fork2, chain2[9]]),
    ]:
        cases.append(
            (
                name,
                f"{name.replace('-', ' ')} under lag 2",
                inputs,
                ["D7", "D14", "D16"],
                ["LagWindow"],
                None,
            )
        )
    for name, comment, inputs, rules, flags, reason in cases:
        lag_inputs = {"lag": 2} if name.startswith("lag-2") else {}
        suite.add(
            name,
            comment,
            "merge",
            {"msgs": [blob.hex() for blob in inputs], **lag_inputs},
            flags=flags,
            rules=rules,
            expect=reason or "valid",
        )
    top = new_message(2**63 - 2, {b"n": 0})
    overflow = [edited(top, {b"n": 1}), edited(top, {b"n": 2})]
    for name, inputs in [("two-forks", overflow), ("forks-and-parent", [*overflow, top])]:
        suite.add(
            f"seqno-overflow-{name}",
            "forks at seqno 2^63-1: the merge's seqno would not fit in 64 bits",
            "merge",
            {"msgs": [blob.hex() for blob in inputs]},
            flags=["EdgeInteger", "Conflict"],
            rules=["D8", "D15"],
            expect="SEQNO_OVERFLOW",
        )
    for name, lag in [("zero", 0), ("negative", -3)]:
        suite.add(
            f"bad-lag-{name}",
            f"merge with lag {lag}: a usage error (D16)",
            "merge",
            {"msgs": [minimal().hex()], "lag": lag},
            flags=["BadLag"],
            rules=["D16"],
            expect="BAD_LAG",
        )
    argument_checks(suite)
    rng = random.Random("swarmconf ignore_rules v1")
    for index in range(600):
        lag = rng.choice([1, 2, 3, 5, 5, 5, 8])
        history = random_history(rng, writers=rng.randint(1, 3), steps=rng.randint(2, 14), lag=lag)
        inputs = rng.sample(history, k=min(len(history), rng.randint(2, 6)))
        if rng.random() < 0.3:
            inputs.insert(rng.randrange(len(inputs) + 1), rng.choice(QUIET_INVALID))
        if rng.random() < 0.3:
            inputs.append(rng.choice(inputs))
        suite.add(
            f"random-{index}",
            f"messages drawn from a random history of concurrent writers (lag {lag}), old,"
            " included, duplicate and invalid ones among them",
            "merge",
            {"msgs": [blob.hex() for blob in inputs], "lag": lag},
            flags=["RandomHistory"],
            rules=["D14", "D15", "D16"],
        )
    return suite


def merges() -> Suite:
    suite = Suite(
        "merges",
        "Conflict resolution (D15): 2- to 6-way merges of random histories, inputs shuffled,"
        " with kind changes racing, removals racing assignments, and edits after the merge.",
    )
    rng = random.Random("swarmconf merges v1")
    for ways in range(2, 7):
        for index in range(500):
            lag = rng.choice([2, 3, 4, 5, 5, 5, 5, 6])
            history = random_history(rng, writers=ways, steps=rng.randint(ways, 3 * ways), lag=lag)
            inputs = recent(history, lag, ways, rng)
            rng.shuffle(inputs)
            request = {"msgs": [blob.hex() for blob in inputs], "lag": lag}
            edit = rng.random() < 0.2
            if edit:
                top = spec.merge(inputs, lag=lag)
                request["data"] = data_hex(random_edits(rng, top.data, rng.randint(1, 3)))
            suite.add(
                f"{ways}-way-{index}",
                f"up to {ways} of the newest messages of a {ways}-writer random history,"
                f" shuffled (lag {lag})" + (", then edited" if edit else ""),
                "merge",
                {**request},
                flags=["RandomHistory", "Conflict", "Shuffled"],
                rules=["D14", "D15", "D16"] + (["D12"] if edit else []),
            )
    racing(suite)
    unknown_keys(suite, rng)
    return suite


def unknown_keys(suite: Suite, rng: random.Random) -> None:
    """Forks of a message with unknown top-level keys: increments keep them, merges drop them
    (D9); a single survivor is returned unchanged, keys and all."""
    for index in range(40):
        data = random_data(rng)
        extra = {rng.choice([b"$", b"*", b">", b"x", b"}"]): rng.choice([1, b"v", [2, 1], {}])}
        base = raw_message(rng.randint(1, 60), data, lagged=[], diff={}, extra=extra)
        forks = [edited(base, random_edits(rng, data, 2)) for _ in range(rng.randint(1, 3))]
        inputs = [*forks, base]
        rng.shuffle(inputs)
        suite.add(
            f"unknown-keys-{index}",
            "forks of a message with an unknown top-level key"
            + (": one survivor keeps it" if len(forks) == 1 else ": the merge drops it (D9)"),
            "merge",
            {"msgs": [blob.hex() for blob in inputs]},
            flags=["UnknownTopLevelKey"] + ([] if len(forks) == 1 else ["Conflict"]),
            rules=["D9", "D14", "D15"],
            expect="valid",
        )


def _wrap(value: object, nested: bool) -> dict[bytes, object]:
    """`{k: value}` (nothing if None), inside a dict `d` beside another key if `nested`."""
    inner = {} if value is None else {b"k": value}
    return {b"d": {**inner, b"keep": 0}} if nested else inner


def racing(suite: Suite) -> None:
    """Two writers fork one message and change the same path in different ways."""
    shapes = [
        ("scalar", 1),
        ("string", b"s"),
        ("set", {1, 2}),
        ("dict", {b"x": 1, b"y": {2}}),
        ("absent", None),
    ]
    for base_name, base_value in shapes:
        for left_name, left in shapes:
            for right_name, right in shapes:
                for nested in (False, True):
                    base = new_message(7, {**_wrap(base_value, nested), b"other": 1})
                    one = edited(base, {**_wrap(left, nested), b"other": 1})
                    two = edited(base, {**_wrap(right, nested), b"other": 2})
                    for order, inputs in [("ab", [one, two]), ("ba", [two, one, base])]:
                        suite.add(
                            f"race-{base_name}-to-{left_name}-vs-{right_name}"
                            f"{'-nested' if nested else ''}-{order}",
                            f"from {base_name}, one writer makes it {left_name}, the other"
                            f" {right_name}{' (inside a dict)' if nested else ''}",
                            "merge",
                            {"msgs": [blob.hex() for blob in inputs]},
                            flags=["Conflict", "TypeChange", "RemovalRace"],
                            rules=["D12", "D15"],
                            expect="valid",
                        )


def argument_checks(suite: Suite) -> None:
    """A merge checks its arguments before it reads a message: the lag first, then the keys,
    even where the messages alone would never need them (D16, D17)."""
    signer = bytes(range(32))
    cases: list[tuple[str, dict[str, object], list[str], str]] = [
        ("lag-before-verify-key", {"lag": 0, "verify_key": "00" * 31}, ["BadLag"], "BAD_LAG"),
        ("lag-before-sign-key", {"lag": -1, "sign_key": "00" * 31}, ["BadLag"], "BAD_LAG"),
        ("lag-before-no-message", {"lag": 0, "msgs": []}, ["BadLag"], "BAD_LAG"),
        ("sign-key-31-one-survivor", {"sign_key": signer[:31].hex()}, ["BadKey"], "BAD_KEY"),
        (
            "sign-key-33-no-message",
            {"sign_key": (signer + b"!").hex(), "msgs": []},
            ["BadKey"],
            "BAD_KEY",
        ),
        ("verify-key-31-one-survivor", {"verify_key": signer[:31].hex()}, ["BadKey"], "BAD_KEY"),
        ("verify-key-31-no-message", {"verify_key": "00" * 31, "msgs": []}, ["BadKey"], "BAD_KEY"),
    ]
    for name, inputs, flags, reason in cases:
        suite.add(
            f"arguments-{name}",
            f"merge: {name.replace('-', ' ')}: refused up front",
            "merge",
            {"msgs": [minimal().hex()], **inputs},
            flags=flags,
            rules=["D16"] if reason == "BAD_LAG" else ["D17"],
            expect=reason,
        )
