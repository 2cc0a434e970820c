"""The breadth-first search on Spark: one job per level, the visited set partitioned.

States are keyed by fingerprint and hash-partitioned on it (`bucket`). A level's output holds, in
partition i, three records keyed so that `bucket` sends them to partition i: the visited record
(the concatenated fingerprints of bucket i and, per depth, their parent pointers: parent
fingerprint and the index of the action among the parent's), the notes (violations and
"sometimes" events seen, counts) and the states record (bucket i's new states, pickled together:
the messages states share are written once). Per level, one job: each partition judges and
expands its states and ships its successors as one pickled batch per owning partition; each
partition dedupes the batches it owns against its visited record (same-level duplicates keep the
least parent and action index, and the intersection of their sleep sets) and writes the next
level's output, whose notes come back to the driver. A counterexample's trace is looked up level
by level in the visited records, one partition each, and walked again from the initial state to
name its actions.

Before shipping, each Python worker drops the successors it already knows to be visited: a
worker-wide table (`known`, kept across the tasks and levels of one search, as Spark reuses its
Python workers) holds each fingerprint the worker expanded at depth d (visited from level d on)
or shipped as a candidate at level d (visited from level d + 1 on). A level-d task drops only what
is visited by level d's dedupe, which would drop it anyway, so a task run again (a retry, a
recomputation) ships what the first run needed.
"""

from __future__ import annotations

import functools
import pickle
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from .explore import Found, Level, Result, Space, few_collections, note, searching

if TYPE_CHECKING:
    from pyspark import RDD
    from pyspark.sql import SparkSession

Factory = Callable[[], Space[Any, Any]]
"""Builds (or finds, once per process) the design's space on an executor."""

FINGERPRINT_BYTES = 16
PARENT_BYTES = 36
"""A parent pointer in a visited record: fingerprint, parent fingerprint, action index."""
NOTES = bytes(9)
"""The key of an expanded partition's notes (`bucket` sends it to partition 0)."""
STATES, CANDIDATES, SUMMARY = b"S", b"C", b"N"
"""The suffix of a states record's, a candidates batch's and a level's notes' key (after the
partition's)."""
NEVER = 1 << 30
"""The depth of a fingerprint not known to be visited."""

KNOWN_LIMIT = 1 << 23
"""Fingerprints a worker's `known` table holds before it starts again (a few hundred MB)."""
_KNOWN: dict[str, dict[bytes, int]] = {}
"""The Python worker's table for the search it serves (by the search's token)."""

Notes = tuple[dict[str, Found], dict[str, Found], int, int, int, int]
"""Violations, witnesses, transitions, transitions slept, successors shipped, new states."""
Record = tuple[bytes, Any]


def bucket(fingerprint: bytes) -> int:
    """The partition owning a fingerprint (Spark takes it modulo the partitions)."""
    return int.from_bytes(fingerprint[:8], "big")


def visited_key(partition: int) -> bytes:
    """The key of partition `partition`'s visited record: `bucket` sends it there."""
    return partition.to_bytes(8, "big")


def pack(values: Any) -> bytes:
    return pickle.dumps(values, pickle.HIGHEST_PROTOCOL)


def known_for(token: str) -> dict[bytes, int]:
    """This worker's table for the search `token` (another search's is dropped)."""
    found = _KNOWN.get(token)
    if found is None:
        _KNOWN.clear()
        found = _KNOWN[token] = {}
    elif len(found) > KNOWN_LIMIT:
        found.clear()
    return found


def expand_states(
    space: Space[Any, Any],
    depth: int,
    sleep_sets: bool,
    states: Iterable[Record],
    known: dict[bytes, int],
    learn: bool,
) -> tuple[dict[bytes, Any], Notes]:
    """Judge and expand states of depth `depth`: the successors not known to be visited by this
    level (`known`: fingerprint to the depth from which it is visited; with `learn` the states
    and the successors join it), each (state, sleep set, parent, action index), and the notes
    (first state or transition of each name: the least fingerprint seen)."""
    violations: dict[str, Found] = {}
    witnesses: dict[str, Found] = {}
    transitions = slept = 0
    successors: dict[bytes, Any] = {}
    for fingerprint, value in states:
        state, sleep = value[0], value[1]
        if learn and known.get(fingerprint, NEVER) > depth:
            known[fingerprint] = depth
        judgement = space.judge(state)
        note(violations, judgement.violations, fingerprint, depth)
        note(witnesses, judgement.witnesses, fingerprint, depth)
        done: list[Any] = []
        for index, action in enumerate(space.actions(state)):
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
            if known.get(successor, NEVER) <= depth:
                continue
            value = (step.state, asleep, fingerprint, index)
            old = successors.get(successor)
            successors[successor] = value if old is None else either(old, value)
    if learn:
        for successor in successors:
            known.setdefault(successor, depth + 1)
    return successors, (violations, witnesses, transitions, slept, len(successors), 0)


def expand_partition(
    factory: Factory,
    depth: int,
    sleep_sets: bool,
    token: str,
    partitions: int,
    ship: bool,
    records: Iterable[Record],
) -> Iterator[Record]:
    """A partition of a level's output expanded (its states record; the other records are
    passed over, unread): its successors in one batch per owning partition (unless not
    `ship`: the last level), then its notes."""
    few_collections()
    states = (state for key, blob in records if key[8:] == STATES for state in pickle.loads(blob))
    successors, notes = expand_states(
        factory(), depth, sleep_sets, states, known_for(token), learn=True
    )
    batches: list[dict[bytes, Any]] = [{} for _ in range(partitions)]
    for fingerprint, value in successors.items():
        batches[bucket(fingerprint) % partitions][fingerprint] = value
    for partition, batch in enumerate(batches):
        if batch and ship:
            yield visited_key(partition) + CANDIDATES, pack(batch)
    yield NOTES, notes


def dedupe_partition(depth: int, records: Iterable[Record]) -> Iterator[Record]:
    """One partition of the last level's output (of which only the visited record is read),
    the candidate batches (states of depth `depth`) and the expansion's notes: the visited
    record grown by the candidates not visited yet (their fingerprints and parent pointers),
    the notes combined (with the count of new states), and the new states."""
    few_collections()
    key, visited, parents = b"", b"", {}
    notes: list[Notes] = []
    fresh: dict[bytes, Any] = {}
    for name, value in records:
        if name == NOTES:
            notes.append(value)
        elif len(name) == 8:
            key, (visited, parents) = name, value
        elif name[8:] == CANDIDATES:
            for fingerprint, candidate in pickle.loads(value).items():
                old = fresh.get(fingerprint)
                fresh[fingerprint] = candidate if old is None else either(old, candidate)
    seen = fingerprints(visited)
    new = [(fingerprint, value) for fingerprint, value in fresh.items() if fingerprint not in seen]
    links = b"".join(f + v[2] + v[3].to_bytes(4, "big") for f, v in new)
    yield key, (visited + b"".join(f for f, _ in new), {**parents, depth: links})
    yield key + SUMMARY, (*combined(notes)[:5], len(new))
    yield key + STATES, pack(new)


def combined(notes: Iterable[Notes]) -> Notes:
    """Several partitions' notes as one."""
    violations: dict[str, Found] = {}
    witnesses: dict[str, Found] = {}
    counts = [0, 0, 0, 0]
    for found in notes:
        merge_notes(violations, found[0])
        merge_notes(witnesses, found[1])
        for at, count in enumerate(found[2:]):
            counts[at] += count
    return violations, witnesses, counts[0], counts[1], counts[2], counts[3]


def fingerprints(visited: bytes) -> set[bytes]:
    """The fingerprints of a visited record."""
    size = FINGERPRINT_BYTES
    return {visited[at : at + size] for at in range(0, len(visited), size)}


def parent_in(links: bytes, fingerprint: bytes) -> tuple[bytes, int] | None:
    """The parent pointer of `fingerprint` among a visited record's `links` of one depth."""
    at = links.find(fingerprint)
    while at >= 0 and at % PARENT_BYTES:
        at = links.find(fingerprint, at + 1)
    if at < 0:
        return None
    link = links[at + FINGERPRINT_BYTES : at + PARENT_BYTES]
    return link[:FINGERPRINT_BYTES], int.from_bytes(link[FINGERPRINT_BYTES:], "big")


def either(old: Any, new: Any) -> Any:
    """One successor reached twice at a level: the least parent (and action index), what
    sleeps in both."""
    first = old if (old[2], old[3]) <= (new[2], new[3]) else new
    return (first[0], old[1] & new[1], first[2], first[3])


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


def is_notes(record: Record) -> bool:
    return bool(record[0] == NOTES)


def is_summary(record: Record) -> bool:
    return record[0][8:] == SUMMARY


def warm(factory: Factory, records: Iterable[Any]) -> Iterator[int]:
    """Build the space in a Python worker (imports, the model), ahead of the first level."""
    factory()
    yield sum(1 for _ in records)


DRIVER_LEVEL_LIMIT = 16000
"""A level of at most this many states runs on the driver: a Spark level's fixed cost (its job's
scheduling and shuffle, a second or more) dwarfs the work of a small one."""


class SparkSearch:
    """The search on a Spark session. Levels of at most `driver_limit` states run on the driver,
    with the same expansion and dedupe as a partition's, against the visited set held there;
    when a level grows past the limit the frontier and the visited set are partitioned onto the
    executors, and when one shrinks back to it they are collected again (the first and last
    levels of a search are small). `local_parents` holds the parent pointers of the levels run
    on the driver, `parent_links` those collected from the executors by (depth, partition), and
    `last` the latest level's output on the executors, whose visited records hold the rest."""

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
        self.local_parents: dict[bytes, tuple[bytes, int]] = {}
        self.parent_links: dict[tuple[int, int], bytes] = {}
        self.last: RDD[Any] | None = None
        self.driver_levels = 0
        """Levels run on the driver."""
        self.shipped: dict[int, int] = {}
        """Successors shipped to their owners, by the depth of the Spark level."""
        self.token = uuid.uuid4().hex

    def partitioned(self, rdd: RDD[Any]) -> RDD[Any]:
        return rdd.partitionBy(self.partitions, bucket)

    def scatter(self, states: list[Record], seen: Iterable[bytes]) -> RDD[Any]:
        """A level's states and the visited set as a level's output on the executors (the
        parent pointers so far stay on the driver)."""
        count = self.partitions
        parts: list[list[bytes]] = [[] for _ in range(count)]
        for fingerprint in seen:
            parts[bucket(fingerprint) % count].append(fingerprint)
        shares: list[list[Record]] = [[] for _ in range(count)]
        for record in states:
            shares[bucket(record[0]) % count].append(record)
        records: list[Record] = []
        for i in range(count):
            records.append((visited_key(i), (b"".join(parts[i]), {})))
            records.append((visited_key(i) + STATES, pack(shares[i])))
        return self.partitioned(self.spark.sparkContext.parallelize(records, count))

    def gather(self, level_out: RDD[Any]) -> tuple[list[Record], dict[bytes, int]]:
        """A level's output collected to the driver: its states and the visited set (the
        parent pointers into `parent_links`)."""
        states: list[Record] = []
        seen: dict[bytes, int] = {}
        for key, value in level_out.collect():
            if len(key) == 8:
                visited, parents = value
                seen.update(dict.fromkeys(fingerprints(visited), 0))
                for depth, links in parents.items():
                    self.parent_links[depth, bucket(key)] = links
            elif key[8:] == STATES:
                states.extend(pickle.loads(value))
        return states, seen

    def warm_up(self) -> threading.Thread:
        """Start the executors' Python workers and build the space in them while the driver
        runs the first levels (a first job costs seconds of start-up)."""
        context = self.spark.sparkContext
        rdd = context.parallelize(range(self.partitions), self.partitions)
        job = rdd.mapPartitions(functools.partial(warm, self.factory))
        thread = threading.Thread(target=job.collect, daemon=True)
        thread.start()
        return thread

    def run(
        self,
        stop_on_violation: bool = False,
        max_depth: int | None = None,
        progress: Callable[[Level], None] | None = None,
    ) -> Result:
        """Search level by level (see the class); the collector set as for a search."""
        with searching():
            return self.levels(stop_on_violation, max_depth, progress)

    def levels(
        self,
        stop_on_violation: bool,
        max_depth: int | None,
        progress: Callable[[Level], None] | None,
    ) -> Result:
        from pyspark import StorageLevel

        keep = StorageLevel.MEMORY_AND_DISK
        started = time.perf_counter()
        warming = self.warm_up()
        space = self.factory()
        result = Result()
        initial = space.initial()
        first = space.fingerprint(initial)
        # On the driver: the frontier and the visited set (fingerprint to depth); on Spark: the
        # last level's output
        local: list[Record] | None = [(first, (initial, frozenset(), None, None))]
        seen: dict[bytes, int] | None = {first: 0}
        level_out: RDD[Any] | None = None
        size = 1
        factory, sleep_sets, token = self.factory, self.sleep_sets, self.token
        partitions = self.partitions
        while size:
            level_started = time.perf_counter()
            depth = result.depth
            if local is not None and seen is not None and size > self.driver_limit:
                warming.join()
                level_out = self.scatter(local, seen).persist(keep)
                local = seen = None
            elif level_out is not None and size <= self.driver_limit:
                local, seen = self.gather(level_out)
                level_out.unpersist()
                level_out = None
            last = max_depth is not None and depth >= max_depth
            following = 0
            if local is not None and seen is not None:
                self.driver_levels += 1
                successors, notes = expand_states(
                    space, depth, sleep_sets, local, seen, learn=False
                )
                stop = self.take_notes(result, notes, stop_on_violation) or last
                local = []
                if not stop:
                    for fingerprint, value in successors.items():
                        seen[fingerprint] = depth + 1
                        self.local_parents[fingerprint] = (value[2], value[3])
                        local.append((fingerprint, value))
                following = len(local)
            else:
                assert level_out is not None
                expanded = level_out.mapPartitions(
                    functools.partial(
                        expand_partition, factory, depth, sleep_sets, token, partitions, not last
                    )
                )
                if last:
                    notes = combined(value for _, value in expanded.filter(is_notes).collect())
                    stop = True
                else:
                    # The successors shipped to their owners and deduped against the visited
                    # records; the new level's output kept, its notes collected. Each task
                    # runs one Python function on data the JVM holds, so Spark keeps one Python
                    # worker per core, and each keeps its caches from level to level
                    union = level_out.union(self.partitioned(expanded))
                    assert union.getNumPartitions() == partitions, "the union is not partition-wise"
                    following_out = union.mapPartitions(
                        functools.partial(dedupe_partition, depth + 1), preservesPartitioning=True
                    ).persist(keep)
                    notes = combined(v for _, v in following_out.filter(is_summary).collect())
                    following = notes[5]
                    level_out.unpersist()
                    level_out = following_out
                    stop = False
                self.take_notes(result, notes, False)
                stop = stop or bool(stop_on_violation and result.violations)
                self.shipped[depth] = notes[4]
            result.states += size
            level = Level(depth, size, notes[2], notes[3], time.perf_counter() - level_started)
            result.levels.append(level)
            if progress is not None:
                progress(level)
            if stop:
                result.complete = False
                break
            size = following
            if size:
                result.depth += 1
        warming.join()
        self.last = level_out
        result.seconds = time.perf_counter() - started
        return result

    @staticmethod
    def take_notes(result: Result, notes: Notes, stop_on_violation: bool) -> bool:
        """Add a level's notes to `result`; whether the search stops on a violation."""
        merge_notes(result.violations, notes[0])
        merge_notes(result.witnesses, notes[1])
        result.transitions += notes[2]
        result.slept += notes[3]
        return bool(stop_on_violation and result.violations)

    def parent_of(self, fingerprint: bytes, depth: int) -> tuple[bytes, int]:
        """The parent pointer of a state first reached at `depth`."""
        link = self.local_parents.get(fingerprint)
        if link is not None:
            return link
        partition = bucket(fingerprint) % self.partitions
        links = self.parent_links.get((depth, partition))
        if links is None:
            assert self.last is not None
            ((_, parents),) = self.last.lookup(visited_key(partition))
            links = parents[depth]
        found = parent_in(links, fingerprint)
        assert found is not None, "a state without a parent"
        return found

    def trace(self, found: Found) -> list[Any]:
        """The actions to what `found` saw first: its parents looked up level by level, then
        walked from the initial state to name each action by its index."""
        assert found.first is not None
        indices = []
        fingerprint = found.first
        depth = found.depth - (found.action is not None)
        while depth > 0:
            fingerprint, index = self.parent_of(fingerprint, depth)
            indices.append(index)
            depth -= 1
        space = self.factory()
        state = space.initial()
        actions = []
        for index in reversed(indices):
            action = list(space.actions(state))[index]
            step = space.step(state, action)
            assert step is not None
            actions.append(action)
            state = step.state
        assert space.fingerprint(state) == found.first, "the trace does not reach its state"
        return actions if found.action is None else [*actions, found.action]
