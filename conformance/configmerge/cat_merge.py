"""Ignore rules (D14) and merges (D15): handpicked cases and merges of random histories."""

from __future__ import annotations

import random

from swarmconf.conformance.catalogue import Catalogue
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


class Ignoring:
    """The ignore_rules suite: every case merges a list of messages (lag 5 unless told)."""

    def __init__(self) -> None:
        self.suite = Suite(
            "ignore_rules",
            "Ignored updates (D14): too old (seqno + lag <= max), included in another message's"
            " lagged list, exact duplicates, invalid inputs skipped; one survivor is returned"
            " unchanged; no valid input is NO_VALID_MESSAGE.",
        )
        self.rng = random.Random("swarmconf ignore_rules v1")
        self.chain = _chain(12)
        """m1..m12, each setting `n` to its seqno."""
        self.fork_a = edited(self.chain[9], {b"n": 100})
        self.fork_b = edited(self.chain[9], {b"n": 200, b"w": b"b"})
        """Two forks of m10 at seqno 11."""

    def merge(
        self,
        name: str,
        comment: str,
        inputs: list[bytes],
        rules: list[str],
        flags: list[str],
        reason: str | None = None,
        lag: int | None = None,
    ) -> None:
        """A merge of `inputs` that is valid, or refused with `reason`."""
        request: dict[str, object] = {"msgs": [blob.hex() for blob in inputs]}
        if lag is not None:
            request["lag"] = lag
        self.suite.add(
            name, comment, "merge", request, flags=flags, rules=rules, expect=reason or "valid"
        )


ignore_case = Catalogue[Ignoring]()


@ignore_case
def survivors(i: Ignoring) -> None:
    chain = i.chain
    i.merge("single", "one message: returned unchanged", [chain[5]], ["D14"], ["Survivor"])
    i.merge(
        "included-older",
        "m5 is in m6's lagged list: m6 survives",
        [chain[4], chain[5]],
        ["D14"],
        ["Included"],
    )
    i.merge(
        "included-chain",
        "m7..m10 each included in m11: m11 survives",
        chain[6:11],
        ["D14"],
        ["Included"],
    )
    i.merge("duplicate", "the same message twice", [chain[5], chain[5]], ["D14"], ["Duplicate"])
    i.merge(
        "duplicate-three",
        "three copies and an included one",
        [chain[5]] * 3 + [chain[4]],
        ["D14"],
        ["Duplicate", "Included"],
    )
    i.merge(
        "too-old-boundary",
        "m6 with max 11: 6 + 5 <= 11, dropped, so m11 survives alone",
        [chain[5], chain[10]],
        ["D14"],
        ["Stale"],
    )


@ignore_case
def forks_beside_ignored_messages(i: Ignoring) -> None:
    chain, fork_a, fork_b = i.chain, i.fork_a, i.fork_b
    i.merge(
        "fork-with-stale",
        "two forks at 11 and m5 (5 + 5 <= 11): m5 is dropped",
        [fork_a, chain[4], fork_b],
        ["D14", "D15"],
        ["Stale", "Conflict"],
    )
    i.merge(
        "fork-with-included",
        "two forks at 11 and m10 (included in both)",
        [chain[9], fork_b, fork_a],
        ["D14", "D15"],
        ["Included", "Conflict"],
    )
    i.merge(
        "fork-with-duplicates",
        "two forks given twice each",
        [fork_a, fork_b, fork_b, fork_a],
        ["D14", "D15"],
        ["Duplicate", "Conflict"],
    )


@ignore_case
def example_120b_too_old(i: Ignoring) -> None:
    i.merge(
        "example-120b-too-old",
        "the design text's stale 120b dropped from a merge at 125",
        [examples.m125a(), examples.m120b(), examples.m125b()],
        ["D14", "D15"],
        ["Stale"],
    )


@ignore_case
def no_valid_message(i: Ignoring) -> None:
    for name, comment, inputs in [
        ("all-invalid", "only invalid inputs", [blob for _, blob in INVALID]),
        ("no-input", "an empty list of messages", []),
        ("single-invalid", "one invalid input", [b"de"]),
    ]:
        i.merge(name, comment, inputs, ["D14"], ["InvalidMixedIn"], "NO_VALID_MESSAGE")


@ignore_case
def invalid_inputs_skipped(i: Ignoring) -> None:
    for name, blob in INVALID:
        i.merge(
            f"invalid-{name}-with-survivor",
            f"{name} skipped beside m6",
            [blob, i.chain[5]],
            ["D14"],
            ["InvalidMixedIn"],
        )
        i.merge(
            f"invalid-{name}-in-fork",
            f"{name} skipped in a two-way merge",
            [i.fork_a, blob, i.fork_b],
            ["D14", "D15"],
            ["InvalidMixedIn", "Conflict"],
        )


@ignore_case
def lag_2_inclusion(i: Ignoring) -> None:
    """The lagged list as filtered at parse decides inclusion (D7, D14): with lag 2, m8 is not
    in m11's kept entries, but it is too old anyway; m10 is."""
    chain2 = _chain(11, lag=2)
    fork2 = edited(chain2[9], {b"n": 300}, lag=2)
    for name, inputs in [
        ("lag-2-included", [chain2[9], chain2[10]]),
        ("lag-2-too-old", [chain2[8], chain2[10]]),
        ("lag-2-fork", [chain2[10], fork2, chain2[9]]),
    ]:
        comment = f"{name.replace('-', ' ')} under lag 2"
        i.merge(name, comment, inputs, ["D7", "D14", "D16"], ["LagWindow"], lag=2)


@ignore_case
def seqno_overflow(i: Ignoring) -> None:
    top = new_message(2**63 - 2, {b"n": 0})
    overflow = [edited(top, {b"n": 1}), edited(top, {b"n": 2})]
    for name, inputs in [("two-forks", overflow), ("forks-and-parent", [*overflow, top])]:
        i.merge(
            f"seqno-overflow-{name}",
            "forks at seqno 2^63-1: the merge's seqno would not fit in 64 bits",
            inputs,
            ["D8", "D15"],
            ["EdgeInteger", "Conflict"],
            "SEQNO_OVERFLOW",
        )


@ignore_case
def bad_lag(i: Ignoring) -> None:
    for name, lag in [("zero", 0), ("negative", -3)]:
        comment = f"merge with lag {lag}: a usage error (D16)"
        i.merge(f"bad-lag-{name}", comment, [minimal()], ["D16"], ["BadLag"], "BAD_LAG", lag)


@ignore_case
def arguments_checked_first(i: Ignoring) -> None:
    argument_checks(i.suite)


@ignore_case
def random_histories(i: Ignoring) -> None:
    rng = i.rng
    for index in range(600):
        lag = rng.choice([1, 2, 3, 5, 5, 5, 8])
        history = random_history(rng, writers=rng.randint(1, 3), steps=rng.randint(2, 14), lag=lag)
        inputs = rng.sample(history, k=min(len(history), rng.randint(2, 6)))
        if rng.random() < 0.3:
            inputs.insert(rng.randrange(len(inputs) + 1), rng.choice(QUIET_INVALID))
        if rng.random() < 0.3:
            inputs.append(rng.choice(inputs))
        i.suite.add(
            f"random-{index}",
            f"messages drawn from a random history of concurrent writers (lag {lag}), old,"
            " included, duplicate and invalid ones among them",
            "merge",
            {"msgs": [blob.hex() for blob in inputs], "lag": lag},
            flags=["RandomHistory"],
            rules=["D14", "D15", "D16"],
        )


def ignore_rules() -> Suite:
    return ignore_case.fill(Ignoring()).suite


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
