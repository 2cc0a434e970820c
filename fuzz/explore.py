"""Breadth-first exhaustive search over a design's state space, with shortest counterexamples.

A design describes its world as a `Space`: the initial state, the actions enabled in a state and
the step each takes (already reduced to a canonical representative under the design's
symmetries, with the renaming that got there), a 128-bit fingerprint, the judgement of a state
(its violations, and which "sometimes" events it witnesses) and which pairs of actions commute
in a state. The search visits every reachable state once, level by level, so the first
violation of each property is at the least depth and its path from the parent pointers is a
shortest trace.

Sleep sets (Godefroid) skip transitions whose successor is reached anyway by an equivalent
interleaving: an action taken from a state sleeps in every later sibling's successor that it
commutes with, and stays asleep while it keeps commuting. A state met from several parents at
the same level keeps only what sleeps in all of them. They save transitions and, on every bound
tested, visit the same states as the search without them; but combined with the visited set (a
state met again at a later level with fewer actions asleep is not expanded again) they are not
proven to keep every state. So they are off unless asked for, and a pass claims exhaustion only
without them.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Hashable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

S = TypeVar("S")
A = TypeVar("A", bound=Hashable)


@dataclass(frozen=True)
class Transition(Generic[S]):
    """A step: the (canonical) successor, what the action violated and witnessed, and the
    renaming of the successor's names (None: none)."""

    state: S
    violations: tuple[str, ...] = ()
    witnesses: tuple[str, ...] = ()
    renaming: tuple[int, ...] | None = None


@dataclass(frozen=True)
class Judgement:
    violations: tuple[str, ...]
    witnesses: tuple[str, ...]


class Space(Protocol[S, A]):
    """What a design provides to be searched."""

    def initial(self) -> S: ...

    def fingerprint(self, state: S) -> bytes: ...

    def actions(self, state: S) -> Iterable[A]: ...

    def step(self, state: S, action: A) -> Transition[S] | None:
        """The successor, or None when the action changes nothing."""
        ...

    def judge(self, state: S) -> Judgement: ...

    def independent(self, state: S, first: A, second: A) -> bool:
        """Whether the two actions commute from `state` and neither disables the other."""
        ...

    def relabel(self, action: A, renaming: tuple[int, ...]) -> A:
        """The action's name in a successor renamed by `renaming`."""
        ...


@dataclass
class Found:
    """What the search saw of one property or witness: in how many states or transitions, and
    the first: a state, or a transition (its source state and action)."""

    count: int = 0
    first: bytes | None = None
    action: Any = None
    depth: int = -1
    detail: str = ""


@dataclass
class Level:
    depth: int
    states: int
    transitions: int
    slept: int
    seconds: float


@dataclass
class Result:
    states: int = 0
    transitions: int = 0
    slept: int = 0
    """Transitions sleep sets skipped."""
    depth: int = 0
    complete: bool = True
    """Every reachable state was visited (False: stopped at a violating level or a bound)."""
    seconds: float = 0.0
    levels: list[Level] = field(default_factory=list)
    violations: dict[str, Found] = field(default_factory=dict)
    witnesses: dict[str, Found] = field(default_factory=dict)


def note(
    table: dict[str, Found],
    names: Iterable[str],
    fingerprint: bytes,
    depth: int,
    action: Any = None,
) -> None:
    """Count each property or witness once per state (or transition: from `fingerprint` by
    `action`); keep the first one that shows it."""
    if not names:
        return
    for name, detail in distinct(names):
        found = table.setdefault(name, Found())
        found.count += 1
        if found.first is None:
            found.first, found.action, found.depth, found.detail = (
                fingerprint,
                action,
                depth,
                detail,
            )


def distinct(names: Iterable[str]) -> Iterator[tuple[str, str]]:
    """(property, first full text) per property named by its first word."""
    seen: set[str] = set()
    for text in names:
        name = text.split(" ", 1)[0]
        if name not in seen:
            seen.add(name)
            yield name, text


SEARCH_GC_THRESHOLD = (200_000, 50, 1000)
"""The cyclic garbage collector's thresholds while a search runs. A search allocates millions of
small tuples that live (states, cache entries) and makes next to no cycles; with the default
(700, 10, 10) the collector scans the live ones again and again: 3 x 2 to depth 9 ran at 5,800
states a second, 8,800 with these, 9,400 with no collection at all (the same memory)."""


def few_collections() -> None:
    """Set the collector's thresholds for a search, in this process (a Spark worker's too)."""
    if gc.get_threshold() != SEARCH_GC_THRESHOLD:
        gc.set_threshold(*SEARCH_GC_THRESHOLD)


@contextmanager
def searching() -> Iterator[None]:
    """The collector set for a search while the block runs, as it was after."""
    before = gc.get_threshold()
    few_collections()
    try:
        yield
    finally:
        gc.set_threshold(*before)


Frontier = dict[bytes, tuple[Any, frozenset[Any]]]
"""The states of one level by fingerprint, each with its sleep set."""


@dataclass
class Search(Generic[S, A]):
    """The search's state in one process: the visited set with parent pointers."""

    space: Space[S, A]
    sleep_sets: bool = False
    parents: dict[bytes, tuple[bytes, A] | None] = field(default_factory=dict)

    def expand(
        self, state: S, sleep: frozenset[A], level: Frontier, fingerprint: bytes, result: Result
    ) -> None:
        """Every successor of `state` not visited yet, into `level` (the next one)."""
        space = self.space
        done: list[A] = []
        for action in space.actions(state):
            if action in sleep:
                result.slept += 1
                continue
            step = space.step(state, action)
            if step is None:
                continue
            result.transitions += 1
            asleep: frozenset[A] = frozenset()
            if self.sleep_sets:
                asleep = frozenset(
                    other for other in (*sleep, *done) if space.independent(state, other, action)
                )
                if step.renaming is not None:
                    asleep = frozenset(space.relabel(a, step.renaming) for a in asleep)
            done.append(action)
            # What a step violates or witnesses belongs to the transition, whichever path
            # reaches its successor first
            note(result.violations, step.violations, fingerprint, result.depth + 1, action)
            note(result.witnesses, step.witnesses, fingerprint, result.depth + 1, action)
            successor = space.fingerprint(step.state)
            if successor in self.parents:
                if successor in level:
                    kept, old = level[successor]
                    level[successor] = (kept, old & asleep)
                continue
            self.parents[successor] = (fingerprint, action)
            level[successor] = (step.state, asleep)

    def trace(self, found: Found) -> list[A]:
        """The actions from the initial state to what `found` saw first."""
        assert found.first is not None
        actions: list[A] = [] if found.action is None else [found.action]
        link = self.parents[found.first]
        while link is not None:
            parent, action = link
            actions.append(action)
            link = self.parents[parent]
        return actions[::-1]


def explore(
    space: Space[S, A],
    *,
    sleep_sets: bool = False,
    stop_on_violation: bool = False,
    max_depth: int | None = None,
    progress: Callable[[Level], None] | None = None,
) -> tuple[Result, Search[S, A]]:
    """Visit every state reachable from the initial one, judging each."""
    with searching():
        return search_levels(space, sleep_sets, stop_on_violation, max_depth, progress)


def search_levels(
    space: Space[S, A],
    sleep_sets: bool,
    stop_on_violation: bool,
    max_depth: int | None,
    progress: Callable[[Level], None] | None,
) -> tuple[Result, Search[S, A]]:
    started = time.perf_counter()
    search: Search[S, A] = Search(space, sleep_sets)
    result = Result()
    initial = space.initial()
    first = space.fingerprint(initial)
    search.parents[first] = None
    frontier: Frontier = {first: (initial, frozenset())}
    while frontier:
        level_started = time.perf_counter()
        before_transitions, before_slept = result.transitions, result.slept
        following: Frontier = {}
        for fingerprint, (state, sleep) in frontier.items():
            judgement = space.judge(state)
            note(result.violations, judgement.violations, fingerprint, result.depth)
            note(result.witnesses, judgement.witnesses, fingerprint, result.depth)
            # At the last depth too: whether a state lies beyond says if the search is complete
            search.expand(state, sleep, following, fingerprint, result)
        result.states += len(frontier)
        level = Level(
            result.depth,
            len(frontier),
            result.transitions - before_transitions,
            result.slept - before_slept,
            time.perf_counter() - level_started,
        )
        result.levels.append(level)
        if progress is not None:
            progress(level)
        if stop_on_violation and result.violations:
            result.complete = not following
            break
        if not following:
            break
        if max_depth is not None and result.depth >= max_depth:
            result.complete = False
            break
        frontier = following
        result.depth += 1
    result.seconds = time.perf_counter() - started
    return result, search
