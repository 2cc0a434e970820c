"""The breadth-first search on Spark: one round of stages per level, the visited set partitioned.

States are keyed by fingerprint and hash-partitioned on it; partition i of the visited set holds
the fingerprints of bucket i, and so does partition i of every level's candidates, so a union of
the two is partition-wise and each partition dedupes its own candidates against its own part of
the visited set. Per level: the frontier's partitions judge and expand their states (notes of
violations and "sometimes" events come back to the driver, small), the candidates are shuffled
to their owners and deduped (same-level duplicates keep the least parent and the intersection of
their sleep sets), and the new states become the next frontier. Each level's parent pointers
stay on the executors; a counterexample's trace is looked up level by level, one partition each.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from .explore import Found, Level, Result, Space, note

if TYPE_CHECKING:
    from pyspark import RDD
    from pyspark.sql import SparkSession

Factory = Callable[[], Space[Any, Any]]
"""Builds (or finds, once per process) the design's space on an executor."""

SUCCESSOR, NOTE, COUNT = 0, 1, 2


def bucket(fingerprint: bytes) -> int:
    """The partition owning a fingerprint (Spark takes it modulo the partitions)."""
    return int.from_bytes(fingerprint[:8], "big")


def expand_partition(
    factory: Factory, depth: int, sleep_sets: bool, records: Iterable[Any]
) -> Iterator[Any]:
    """Judge and expand a partition of the frontier: successors, then this partition's notes
    and counts (first state or transition of each name: the least fingerprint seen)."""
    space = factory()
    violations: dict[str, Found] = {}
    witnesses: dict[str, Found] = {}
    transitions = slept = 0
    # Successors met twice in this partition are shuffled once
    successors: dict[bytes, Any] = {}
    for fingerprint, value in records:
        state, sleep = value[0], value[1]
        judgement = space.judge(state)
        note(violations, judgement.violations, fingerprint, depth)
        note(witnesses, judgement.witnesses, fingerprint, depth)
        done: list[Any] = []
        for action in space.actions(state):
            if action in sleep:
                slept += 1
                continue
            step = space.step(state, action)
            if step is None:
                continue
            transitions += 1
            asleep: frozenset[Any] = frozenset()
            if sleep_sets:
                asleep = frozenset(
                    other for other in (*sleep, *done) if space.independent(state, other, action)
                )
            if step.renaming is not None:
                asleep = frozenset(space.relabel(a, step.renaming) for a in asleep)
            done.append(action)
            note(violations, step.violations, fingerprint, depth + 1, action)
            note(witnesses, step.witnesses, fingerprint, depth + 1, action)
            successor = space.fingerprint(step.state)
            value = (step.state, asleep, fingerprint, action)
            old = successors.get(successor)
            successors[successor] = value if old is None else either(old, value)
    for successor, value in successors.items():
        yield (SUCCESSOR, successor, value)
    yield (NOTE, violations, witnesses)
    yield (COUNT, transitions, slept)


def dedupe_partition(records: Iterable[Any]) -> Iterator[Any]:
    """One partition of (visited fingerprints, None) and (candidate fingerprint, successor):
    the candidates not visited yet, once each."""
    visited: set[bytes] = set()
    fresh: dict[bytes, Any] = {}
    for fingerprint, value in records:
        if value is None:
            visited.add(fingerprint)
            continue
        old = fresh.get(fingerprint)
        fresh[fingerprint] = value if old is None else either(old, value)
    for fingerprint, value in fresh.items():
        if fingerprint not in visited:
            yield fingerprint, value


def either(old: Any, new: Any) -> Any:
    """One successor reached twice at a level: the least parent (and its action), what sleeps
    in both."""
    state, _, parent, action = min(old, new, key=lambda v: (v[2], repr(v[3])))
    return (state, old[1] & new[1], parent, action)


def merge_notes(into: dict[str, Found], found: dict[str, Found]) -> None:
    """Add a partition's notes: counts add up, the first is the least (depth, fingerprint)."""
    for name, item in found.items():
        mine = into.setdefault(name, Found())
        mine.count += item.count
        if mine.first is None or (item.depth, item.first or b"") < (mine.depth, mine.first):
            mine.first, mine.action, mine.depth, mine.detail = (
                item.first,
                item.action,
                item.depth,
                item.detail,
            )


DRIVER_LEVEL_LIMIT = 4000
"""A level of at most this many states runs on the driver: a Spark level's fixed cost (its jobs,
their scheduling and shuffles) dwarfs the work of a small one."""


class SparkSearch:
    """The search on a Spark session; `parents[d]` holds the parent pointers of the states
    first reached at depth d (d >= 1) on Spark, `local_parents` those of the levels run on the
    driver.

    Levels of at most `driver_limit` states run on the driver, with the same expansion and
    dedupe as a partition's, against the visited set held there; when a level grows past the
    limit the frontier and the visited set are partitioned onto the executors, and when one
    shrinks back to it they are collected again (the first and last levels of a search are
    small)."""

    def __init__(
        self,
        spark: SparkSession,
        factory: Factory,
        partitions: int,
        sleep_sets: bool = False,
        driver_limit: int = DRIVER_LEVEL_LIMIT,
    ) -> None:
        self.spark = spark
        self.sleep_sets = sleep_sets
        self.factory = factory
        self.partitions = partitions
        self.driver_limit = driver_limit
        self.parents: dict[int, RDD[Any]] = {}
        self.local_parents: dict[bytes, tuple[bytes, Any]] = {}
        self.driver_levels = 0
        """Levels run on the driver."""

    def partitioned(self, rdd: RDD[Any]) -> RDD[Any]:
        return rdd.partitionBy(self.partitions, bucket)

    def run(
        self,
        stop_on_violation: bool = False,
        max_depth: int | None = None,
        progress: Callable[[Level], None] | None = None,
    ) -> Result:
        from pyspark import StorageLevel

        started = time.perf_counter()
        context = self.spark.sparkContext
        space = self.factory()
        result = Result()
        initial = space.initial()
        first = space.fingerprint(initial)
        # On the driver: the frontier and the visited set; on Spark: their RDDs
        local: list[tuple[bytes, Any]] | None = [(first, (initial, frozenset(), None, None))]
        seen: set[bytes] | None = {first}
        frontier: RDD[Any] | None = None
        visited: RDD[Any] | None = None
        size = 1
        factory, sleep_sets = self.factory, self.sleep_sets
        stale: list[RDD[Any]] = []
        while size:
            level_started = time.perf_counter()
            depth = result.depth
            if local is not None and seen is not None and size > self.driver_limit:
                frontier = self.partitioned(context.parallelize(local, self.partitions))
                frontier = frontier.persist(StorageLevel.MEMORY_AND_DISK)
                marks = [(fingerprint, None) for fingerprint in seen]
                visited = self.partitioned(context.parallelize(marks, self.partitions))
                visited = visited.persist(StorageLevel.MEMORY_AND_DISK)
                local = seen = None
            elif frontier is not None and visited is not None and size <= self.driver_limit:
                local = frontier.collect()
                seen = set(visited.keys().collect())
                frontier.unpersist()
                stale.append(visited)
                frontier = visited = None
            stop = False
            following = 0
            if local is not None and seen is not None:
                self.driver_levels += 1
                records = list(expand_partition(factory, depth, sleep_sets, local))
                transitions, slept = self.take_notes(result, records)
                stop = self.stops(result, stop_on_violation, max_depth, depth)
                fresh = []
                if not stop:
                    for record in records:
                        if record[0] == SUCCESSOR and record[1] not in seen:
                            seen.add(record[1])
                            value = record[2]
                            self.local_parents[record[1]] = (value[2], value[3])
                            fresh.append((record[1], value))
                result.states += size
                local = fresh
                following = len(fresh)
            else:
                assert frontier is not None and visited is not None
                expanded = frontier.mapPartitions(
                    functools.partial(expand_partition, factory, depth, sleep_sets)
                ).persist(StorageLevel.MEMORY_AND_DISK)
                notes = expanded.filter(lambda r: r[0] != SUCCESSOR).collect()
                transitions, slept = self.take_notes(result, notes)
                result.states += size
                stop = self.stops(result, stop_on_violation, max_depth, depth)
                if not stop:
                    candidates = self.partitioned(
                        expanded.filter(lambda r: r[0] == SUCCESSOR).map(lambda r: (r[1], r[2]))
                    )
                    union = visited.union(candidates)
                    assert union.getNumPartitions() == self.partitions, (
                        "the union is not partition-wise"
                    )
                    fresh_rdd = union.mapPartitions(
                        dedupe_partition, preservesPartitioning=True
                    ).persist(StorageLevel.MEMORY_AND_DISK)
                    parents = fresh_rdd.mapValues(lambda v: (v[2], v[3]))
                    parents = parents.persist(StorageLevel.MEMORY_AND_DISK)
                    # One job computes the new states and their parent pointers, both kept
                    following = parents.count()
                    self.parents[depth + 1] = parents
                    grown = visited.union(fresh_rdd.mapValues(lambda v: None))
                    grown = grown.mapPartitions(lambda r: r, preservesPartitioning=True)
                    # Computed by the next level's dedupe, which then drops the old visited set
                    stale.append(visited)
                    visited = grown.persist(StorageLevel.MEMORY_AND_DISK)
                expanded.unpersist()
                frontier.unpersist()
                if not stop:
                    frontier = fresh_rdd
            while len(stale) > 1:
                stale.pop(0).unpersist()
            level = Level(depth, size, transitions, slept, time.perf_counter() - level_started)
            result.levels.append(level)
            if progress is not None:
                progress(level)
            if stop:
                result.complete = False
                break
            size = following
            if size:
                result.depth += 1
        result.seconds = time.perf_counter() - started
        return result

    @staticmethod
    def take_notes(result: Result, records: Iterable[Any]) -> tuple[int, int]:
        """Add a level's notes to `result`; its (transitions, transitions slept)."""
        transitions = slept = 0
        for record in records:
            if record[0] == NOTE:
                merge_notes(result.violations, record[1])
                merge_notes(result.witnesses, record[2])
            elif record[0] == COUNT:
                transitions += record[1]
                slept += record[2]
        result.transitions += transitions
        result.slept += slept
        return transitions, slept

    @staticmethod
    def stops(result: Result, stop_on_violation: bool, max_depth: int | None, depth: int) -> bool:
        return bool(stop_on_violation and result.violations) or (
            max_depth is not None and depth >= max_depth
        )

    def trace(self, found: Found) -> list[Any]:
        """The actions to what `found` saw first, its parents looked up level by level."""
        assert found.first is not None
        actions = [] if found.action is None else [found.action]
        fingerprint = found.first
        depth = found.depth - (found.action is not None)
        while depth > 0:
            link = self.local_parents.get(fingerprint)
            parent, action = (
                link if link is not None else self.parents[depth].lookup(fingerprint)[0]
            )
            actions.append(action)
            fingerprint = parent
            depth -= 1
        return actions[::-1]
