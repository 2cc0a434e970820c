"""Ignore rules (D14): the merge inputs set aside before conflicts are resolved.

Too old (seqno + lag <= the newest seqno), included in another input's lagged list (as kept at
parse, D7), exact duplicates and invalid inputs are skipped; a single survivor comes back
unchanged, and no valid input at all is NO_VALID_MESSAGE. A merge checks its lag and keys before
it reads a message (D16, D17). Random histories of concurrent writers mix all of these.
"""

from __future__ import annotations

import functools
import random

from swarmconf.conformance.builder import VALID, BoundGroup, SuiteBuilder
from swarmconf.conformance.catalogue import Catalogue
from swarmconf.conformance.configmerge.history import random_history
from swarmconf.conformance.configmerge.merge_input import merge_input
from swarmconf.conformance.configmerge.values import (
    HASH_A,
    edited,
    minimal,
    new_message,
    raw_message,
)
from swarmconf.conformance.configmerge.vocabulary import new_suite
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

SIGNER = bytes(range(32))
ARGUMENTS: list[tuple[str, list[bytes], dict[str, object], str]] = [
    ("lag-before-verify-key", [minimal()], {"lag": 0, "verify_key": "00" * 31}, "BAD_LAG"),
    ("lag-before-sign-key", [minimal()], {"lag": -1, "sign_key": "00" * 31}, "BAD_LAG"),
    ("lag-before-no-message", [], {"lag": 0}, "BAD_LAG"),
    ("sign-key-31-one-survivor", [minimal()], {"sign_key": SIGNER[:31].hex()}, "BAD_KEY"),
    ("sign-key-33-no-message", [], {"sign_key": (SIGNER + b"!").hex()}, "BAD_KEY"),
    ("verify-key-31-one-survivor", [minimal()], {"verify_key": SIGNER[:31].hex()}, "BAD_KEY"),
    ("verify-key-31-no-message", [], {"verify_key": "00" * 31}, "BAD_KEY"),
]
"""Bad arguments beside messages that alone would never need them: (name, messages, fields,
reason)."""
REFUSALS = {"BAD_LAG": ("BadLag", "D16"), "BAD_KEY": ("BadKey", "D17")}
"""The flag and rule of each argument refusal."""


@functools.cache
def chain(length: int, lag: int = 5) -> tuple[bytes, ...]:
    """m1..m<length>, each setting `n` to its seqno."""
    messages = [new_message(1, {b"n": 1}, lag=lag)]
    for seqno in range(2, length + 1):
        messages.append(edited(messages[-1], {b"n": seqno}, lag=lag))
    return tuple(messages)


@functools.cache
def forks() -> tuple[bytes, bytes]:
    """Two forks of m10 at seqno 11."""
    m10 = chain(12)[9]
    return edited(m10, {b"n": 100}), edited(m10, {b"n": 200, b"w": b"b"})


def one_survivor() -> list[tuple[str, str, list[bytes], list[str]]]:
    """Merges that leave one message: (name, comment, messages, flags)."""
    m = chain(12)
    return [
        ("single", "one message: returned unchanged", [m[5]], ["Survivor"]),
        ("included-older", "m5 is in m6's lagged list: m6 survives", [m[4], m[5]], ["Included"]),
        ("included-chain", "m7..m10 each included in m11: m11 survives", [*m[6:11]], ["Included"]),
        ("duplicate", "the same message twice", [m[5], m[5]], ["Duplicate"]),
        (
            "duplicate-three",
            "three copies and an included one",
            [m[5], m[5], m[5], m[4]],
            ["Duplicate", "Included"],
        ),
        (
            "too-old-boundary",
            "m6 with max 11: 6 + 5 <= 11, dropped, so m11 survives alone",
            [m[5], m[10]],
            ["Stale"],
        ),
    ]


def beside_forks() -> list[tuple[str, str, list[bytes], list[str]]]:
    """Merges of two forks with ignored messages among them: (name, comment, messages, flags)."""
    m = chain(12)
    a, b = forks()
    return [
        (
            "fork-with-stale",
            "two forks at 11 and m5 (5 + 5 <= 11): m5 is dropped",
            [a, m[4], b],
            ["Stale", "Conflict"],
        ),
        (
            "fork-with-included",
            "two forks at 11 and m10 (included in both)",
            [m[9], b, a],
            ["Included", "Conflict"],
        ),
        (
            "fork-with-duplicates",
            "two forks given twice each",
            [a, b, b, a],
            ["Duplicate", "Conflict"],
        ),
        (
            "example-120b-too-old",
            "the design text's stale 120b dropped from a merge at 125",
            [examples.m125a(), examples.m120b(), examples.m125b()],
            ["Stale"],
        ),
    ]


case = Catalogue[BoundGroup]()


@case
def survivors(g: BoundGroup) -> None:
    for name, comment, messages, flags in one_survivor():
        g.case(name, comment, input=merge_input(messages), expect=VALID, flags=flags, rules=["D14"])


@case
def forks_beside_ignored_messages(g: BoundGroup) -> None:
    for name, comment, messages, flags in beside_forks():
        g.case(
            name,
            comment,
            input=merge_input(messages),
            expect=VALID,
            flags=flags,
            rules=["D14", "D15"],
        )


@case
def no_valid_message(g: BoundGroup) -> None:
    for name, comment, messages in [
        ("all-invalid", "only invalid inputs", [blob for _, blob in INVALID]),
        ("no-input", "an empty list of messages", []),
        ("single-invalid", "one invalid input", [b"de"]),
    ]:
        g.case(
            name,
            comment,
            input=merge_input(messages),
            expect="NO_VALID_MESSAGE",
            flags=["InvalidMixedIn"],
            rules=["D14"],
        )


@case
def invalid_inputs_skipped(g: BoundGroup) -> None:
    a, b = forks()
    for name, blob in INVALID:
        g.case(
            f"invalid-{name}-with-survivor",
            f"{name} skipped beside m6",
            input=merge_input([blob, chain(12)[5]]),
            expect=VALID,
            flags=["InvalidMixedIn"],
            rules=["D14"],
        )
        g.case(
            f"invalid-{name}-in-fork",
            f"{name} skipped in a two-way merge",
            input=merge_input([a, blob, b]),
            expect=VALID,
            flags=["InvalidMixedIn", "Conflict"],
            rules=["D14", "D15"],
        )


@case
def lag_2_inclusion(g: BoundGroup) -> None:
    """The lagged list as filtered at parse decides inclusion (D7, D14): with lag 2, m8 is not
    in m11's kept entries, but it is too old anyway; m10 is."""
    m = chain(11, lag=2)
    fork = edited(m[9], {b"n": 300}, lag=2)
    lag_2 = g.suite.group("merge", lag=2)
    for name, messages in [
        ("lag-2-included", [m[9], m[10]]),
        ("lag-2-too-old", [m[8], m[10]]),
        ("lag-2-fork", [m[10], fork, m[9]]),
    ]:
        lag_2.case(
            name,
            f"{name.replace('-', ' ')} under lag 2",
            input=merge_input(messages),
            expect=VALID,
            flags=["LagWindow"],
            rules=["D7", "D14", "D16"],
        )


@case
def seqno_overflow(g: BoundGroup) -> None:
    top = new_message(2**63 - 2, {b"n": 0})
    overflow = [edited(top, {b"n": 1}), edited(top, {b"n": 2})]
    for name, messages in [("two-forks", overflow), ("forks-and-parent", [*overflow, top])]:
        g.case(
            f"seqno-overflow-{name}",
            "forks at seqno 2^63-1: the merge's seqno would not fit in 64 bits",
            input=merge_input(messages),
            expect="SEQNO_OVERFLOW",
            flags=["EdgeInteger", "Conflict"],
            rules=["D8", "D15"],
        )


@case
def bad_lag(g: BoundGroup) -> None:
    for name, lag in [("zero", 0), ("negative", -3)]:
        g.suite.case(
            f"bad-lag-{name}",
            f"merge with lag {lag}: a usage error (D16)",
            op="merge",
            input=merge_input([minimal()], lag=lag),
            expect="BAD_LAG",
            flags=["BadLag"],
            rules=["D16"],
        )


@case
def arguments_checked_first(g: BoundGroup) -> None:
    """A merge checks its arguments before it reads a message: the lag first, then the keys,
    even where the messages alone would never need them (D16, D17)."""
    for name, messages, fields, reason in ARGUMENTS:
        flag, rule = REFUSALS[reason]
        g.suite.case(
            f"arguments-{name}",
            f"merge: {name.replace('-', ' ')}: refused up front",
            op="merge",
            input=merge_input(messages, **fields),
            expect=reason,
            flags=[flag],
            rules=[rule],
        )


@case
def random_histories(g: BoundGroup) -> None:
    rng = random.Random("swarmconf ignore_rules v1")
    for index in range(600):
        lag = rng.choice([1, 2, 3, 5, 5, 5, 8])
        history = random_history(rng, writers=rng.randint(1, 3), steps=rng.randint(2, 14), lag=lag)
        messages = rng.sample(history, k=min(len(history), rng.randint(2, 6)))
        if rng.random() < 0.3:
            messages.insert(rng.randrange(len(messages) + 1), rng.choice(QUIET_INVALID))
        if rng.random() < 0.3:
            messages.append(rng.choice(messages))
        g.suite.case(
            f"random-{index}",
            f"messages drawn from a random history of concurrent writers (lag {lag}), old,"
            " included, duplicate and invalid ones among them",
            op="merge",
            input=merge_input(messages, lag=lag),
            expect=VALID,
            flags=["RandomHistory"],
            rules=["D14", "D15", "D16"],
        )


@case
def seqno_overflow_beside_a_lower_fork(g: BoundGroup) -> None:
    top = new_message(2**63 - 2, {b"n": 0})
    lower = new_message(2**63 - 2, {b"n": 5})
    g.case(
        "seqno-overflow-beside-a-lower-fork",
        "a message at seqno 2^63-1 and a fork below it: the highest-ranked one's seqno decides,"
        " and the merge's would not fit in 64 bits",
        input=merge_input([lower, edited(top, {b"n": 1})]),
        expect="SEQNO_OVERFLOW",
        flags=["EdgeInteger", "Conflict"],
        rules=["D8", "D15"],
    )


def build() -> SuiteBuilder:
    suite = new_suite(
        "ignore_rules",
        "Ignored updates (D14): too old (seqno + lag <= max), included in another message's"
        " lagged list, exact duplicates, invalid inputs skipped; one survivor is returned"
        " unchanged; no valid input is NO_VALID_MESSAGE.",
    )
    case.fill(suite.group("merge", lag=5))
    return suite
