"""Bounded-exhaustive merges: every history within a small scope, each distinct merge once.

Scope (stated in the docs and in the file's header): a base message at seqno 1 (lag 5) with
data `{a: 1, b: {1}}`, `{a: {n: 1}, b: "x"}` or `{}`; the operations are, on each of the two
keys `a` and `b`: assign 1, assign "x", remove, add 1 to a set, remove 1 from a set, assign
1 to the nested key `n` (12 operations; a set or dict operation on a value of another kind
replaces it). Each writer publishes one increment per operation. Enumerated: two writers with
one or two operations each, and three writers with one operation each; the merge of the
writers' last messages is recorded once per distinct set of inputs.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from functools import cache

from swarmconf.conformance.builder import VALID, SuiteBuilder
from swarmconf.conformance.configmerge.merge_input import merge_input
from swarmconf.conformance.configmerge.values import Data, btcodec_copy, edited, new_message
from swarmconf.conformance.configmerge.vocabulary import new_suite
from swarmconf.spec import configmerge as spec

KEYS = (b"a", b"b")
BASES: dict[str, Data] = {
    "scalar-and-set": {b"a": 1, b"b": {1}},
    "dict-and-string": {b"a": {b"n": 1}, b"b": b"x"},
    "empty": {},
}


def _assign(value: object) -> Callable[[Data, bytes], None]:
    def apply(data: Data, key: bytes) -> None:
        data[key] = value

    return apply


def _remove(data: Data, key: bytes) -> None:
    data.pop(key, None)


def _set_add(data: Data, key: bytes) -> None:
    current = data.get(key)
    data[key] = (current if isinstance(current, set) else set()) | {1}


def _set_remove(data: Data, key: bytes) -> None:
    current = data.get(key)
    if isinstance(current, set):
        current.discard(1)
        if not current:
            del data[key]


def _nested(data: Data, key: bytes) -> None:
    current = data.get(key)
    data[key] = {**(current if isinstance(current, dict) else {}), b"n": 1}


KINDS: dict[str, Callable[[Data, bytes], None]] = {
    "assign-1": _assign(1),
    "assign-x": _assign(b"x"),
    "remove": _remove,
    "set-add-1": _set_add,
    "set-remove-1": _set_remove,
    "nested-n": _nested,
}
OPERATIONS = [(kind, key) for kind in KINDS for key in KEYS]


def _op_name(operation: tuple[str, bytes]) -> str:
    return f"{operation[0]}-{operation[1].decode()}"


@cache
def _history(base: str, operations: tuple[tuple[str, bytes], ...]) -> bytes:
    """The last message of a writer applying `operations` to a base, one increment each."""
    if not operations:
        return new_message(1, BASES[base])
    previous = _history(base, operations[:-1])
    data = btcodec_copy(spec.parse(previous).data)
    kind, key = operations[-1]
    KINDS[kind](data, key)
    return edited(previous, data)


def _scope() -> list[tuple[tuple[tuple[str, bytes], ...], ...]]:
    sequences = [
        tuple(ops) for length in (1, 2) for ops in itertools.product(OPERATIONS, repeat=length)
    ]
    pairs = list(itertools.combinations_with_replacement(sequences, 2))
    singles = [(op,) for op in OPERATIONS]
    triples = list(itertools.combinations_with_replacement(singles, 3))
    return [*pairs, *triples]


def build() -> SuiteBuilder:
    suite = new_suite(
        "merges_exhaustive",
        "Every history in a bounded scope, each distinct merge once. Scope: a base message at"
        ' seqno 1 (lag 5) with data {a: 1, b: {1}}, {a: {n: 1}, b: "x"} or {}; operations on'
        ' keys a and b: assign 1, assign "x", remove, add 1 to a set, remove 1 from a set,'
        " assign 1 to nested key n (12 in all);"
        " one increment per operation; two writers with 1 or 2 operations each, or three"
        " writers with 1 operation each; the writers' last messages are merged.",
    )
    merges = suite.group("merge", lag=5)
    rng = random.Random("swarmconf merges_exhaustive v1")
    seen: set[tuple[bytes, ...]] = set()
    for base, writers in itertools.product(BASES, _scope()):
        inputs = [_history(base, ops) for ops in writers]
        key = tuple(sorted(inputs))
        if key in seen:
            continue
        seen.add(key)
        rng.shuffle(inputs)
        histories = " | ".join(",".join(_op_name(op) for op in ops) for ops in writers)
        merges.case(
            f"{base}-w{len(writers)}-{len(seen)}",
            f"base {base}; writers: {histories}",
            input=merge_input(inputs),
            expect=VALID,
            flags=["Exhaustive", "Conflict"],
            rules=["D14", "D15"],
        )
    return suite
