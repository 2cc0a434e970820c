"""Shrinking a failing K/V Gossip case: fewer operations, no partition, churn or faults.

A candidate is kept when it still fails the property shrunk for (by default the first one the
original fails). The
partition, the churn and the datagram faults are taken out one at a time, then the operations
are minimized by delta debugging, until a round changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from ..ddmin import ddmin
from .case import Cut, KvCase, run, scenario_of
from .network import Faults
from .properties import properties_of
from .scenario import Scenario


def parts_to_take_out(scenario: Scenario) -> list[Callable[[Cut], Cut]]:
    """The parts of a generated scenario shrinking tries without, one at a time: those it
    has."""
    parts: list[Callable[[Cut], Cut]] = []
    if scenario.partition is not None:
        parts.append(lambda cut: replace(cut, partition=False))
    if scenario.churn is not None:
        parts.append(lambda cut: replace(cut, churn=False))
    if scenario.faults != Faults():
        parts.append(lambda cut: replace(cut, faults=False))
    return parts


def failing_properties(case: KvCase) -> list[str]:
    return properties_of(run(case)["violations"])


def shrink(case: KvCase, target: str | None = None, rounds: int = 3) -> KvCase:
    """A smaller case still failing property `target` (None: the first `case` fails); a
    ValueError if `case` does not fail it."""
    original = failing_properties(case)
    target = target or next(iter(original), None)
    if target is None or target not in original:
        raise ValueError(f"{case.name} does not fail{f' {target}' if target else ''}")

    def fails(candidate: KvCase) -> bool:
        return target in failing_properties(candidate)

    parts = parts_to_take_out(scenario_of(replace(case, cut=Cut())))
    for _ in range(rounds):
        before = case
        for take_out in parts:
            candidate = replace(case, cut=take_out(case.cut))
            if candidate.cut != case.cut and fails(candidate):
                case = candidate
        case = fewer_ops(case, fails)
        if case == before:
            break
    return case


def fewer_ops(case: KvCase, fails: Callable[[KvCase], bool]) -> KvCase:
    """The case with a 1-minimal set of its operations that still fails."""
    kept = case.cut.ops
    if kept is None:
        kept = tuple(range(len(scenario_of(replace(case, cut=Cut())).ops)))

    def with_ops(ops: list[int]) -> KvCase:
        return replace(case, cut=replace(case.cut, ops=tuple(ops)))

    fewer = tuple(ddmin(list(kept), lambda ops: fails(with_ops(ops))))
    return case if fewer == kept else with_ops(list(fewer))
