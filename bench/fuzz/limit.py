"""What an interleaving of the default campaign computes, and the rate that work bounds.

The first tasks of the default campaign's plan, as it draws them, are played in one process.
Each world's memos then say what was computed: its edit, poll and push steps, the library
merges its clients ran (each library's `Merges`; the deployed emulation's, one per computed
poll), and the serializations, signed where the scenario signs (each library's
`Serializations`). The compiled reference is then timed on the very merges and serializations
its clients computed, and the limit is the rate of a campaign that did nothing but its computed
merges and serializations, each at the reference's cost.
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from swarmconf.fuzz.config import Config
from swarmconf.fuzz.configmerge.behaviours import Merges, ReferenceClient, Serializations
from swarmconf.fuzz.configmerge.campaign import Task, task_scenario, twinned, world_of
from swarmconf.fuzz.configmerge.campaigns import planned
from swarmconf.fuzz.configmerge.engine import sampled
from swarmconf.fuzz.configmerge.interleaving import play
from swarmconf.fuzz.configmerge.schedule import generate_schedule
from swarmconf.fuzz.configmerge.world import CHECK_SAMPLE, World, editable_copy, holder
from swarmconf.fuzz.heap import collector_paused
from swarmconf.reference.configmerge import merge_parsed

LIBRARIES = ("reference", "spec", "twins", "deployed")
"""Whose merges and serializations: the reference's clients, the spec's, the spec's clients
standing beside others as twins (P3), the deployed client's emulation."""
TIMED = 2000
"""The recorded merges (and serializations) timed, evenly spread over those recorded."""
REPEATS = 5

Item = TypeVar("Item")


@dataclass
class Work:
    """What some interleavings took and computed, summed."""

    interleavings: int = 0
    seconds: float = 0.0
    """CPU seconds spent playing them."""
    steps: int = 0
    edits: int = 0
    polls: int = 0
    pushes: int = 0
    merges: Counter[str] = field(default_factory=Counter)
    serializations: Counter[str] = field(default_factory=Counter)

    def __iadd__(self, other: Work) -> Work:
        self.interleavings += other.interleavings
        self.seconds += other.seconds
        self.steps += other.steps
        self.edits += other.edits
        self.polls += other.polls
        self.pushes += other.pushes
        self.merges += other.merges
        self.serializations += other.serializations
        return self

    @property
    def computed(self) -> int:
        return self.edits + self.polls + self.pushes


@dataclass
class Recorded:
    """The reference's merges and serializations as its clients computed them."""

    merges: list[tuple[list[Any], int, bytes | None, bytes | None]] = field(default_factory=list)
    """(valid inputs, lag, verification key, signing key) of each merge."""
    serializations: list[tuple[Any, bytes | None]] = field(default_factory=list)
    """(message, signing key) of each serialization."""


def clients(world: World) -> Iterable[tuple[Any, bool]]:
    """Every client object the world keeps, with whether it is a twin."""
    for made in world.objects.values():
        yield holder(made), False
    for twin in world.twins.values():
        yield holder(twin), True


def library(client: Any, twin: bool) -> str:
    if twin:
        return "twins"
    return "reference" if isinstance(client, ReferenceClient) else "spec"


def computed(world: World, recorded: Recorded) -> Work:
    """What the world computed (its memos, the libraries' merges and serializations), the
    reference's merges and serializations recorded."""
    work = Work(edits=len(world.edits), polls=len(world.polls), pushes=len(world.pushes))
    seen: set[int] = set()
    for client, twin in clients(world):
        merges: Merges | None = vars(client).get("merges")
        if merges is not None and id(merges) not in seen:
            seen.add(id(merges))
            work.merges[library(client, twin)] += len(merges.merges)
            if isinstance(client, ReferenceClient):
                verify = world.engine.verify_key
                recorded.merges.extend(
                    (valid, valid[0].lag, verify if key[-1] is None else None, key[-1])
                    for key, (valid, _) in merges.merges.items()
                )
        serializations: Serializations | None = vars(client).get("serializations")
        if serializations is not None and id(serializations) not in seen:
            seen.add(id(serializations))
            work.serializations[library(client, twin)] += len(serializations.found)
    # The world's serializations: of the clients whose library keeps none (the reference's
    # messages, the reference's and the emulation's clients)
    work.serializations["reference"] += len(world.serializations.found)
    recorded.serializations.extend(
        (message, key[1]) for key, (message, _) in world.serializations.found.items()
    )
    # The emulation merges once a computed poll, and again where P2 merges it in another order
    work.merges["deployed"] += sum(
        1 + (bool(view) and sampled(b"".join(view), CHECK_SAMPLE))
        for key, view in world.polls
        if key.behaviour == "deployed"
    )
    return work


def played(task: Task, recorded: Recorded) -> Work:
    """Every schedule of the task on one world, as the campaign plays it, and what it took."""
    scenario = task_scenario(task)
    steps = 0
    with collector_paused():
        started = time.process_time()
        world = world_of(task, scenario)
        for index in range(task.first, task.first + task.schedules):
            schedule = generate_schedule(scenario, task.campaign_seed, task.scenario, index)
            outcome = play(world, schedule)
            steps += outcome.events + outcome.rounds * len(scenario.clients) * 2
        seconds = time.process_time() - started
    work = computed(world, recorded)
    work.interleavings, work.seconds, work.steps = task.schedules, seconds, steps
    return work


def sample(interleavings: int, tasks: int) -> tuple[list[Task], Work, Work, Recorded]:
    """The first `tasks` tasks of the default campaign of `interleavings`: what those without
    and those with twins took, and the reference's work recorded."""
    recorded = Recorded()
    alone, beside = Work(), Work()
    chosen = planned(Config(interleavings))[:tasks]
    for task in chosen:
        work = played(task, recorded)
        if twinned(task):
            beside += work
        else:
            alone += work
    return chosen, alone, beside, recorded


def spread(items: list[Any], count: int) -> list[Any]:
    """At most `count` of `items`, evenly spaced."""
    if len(items) <= count:
        return items
    return [items[index * len(items) // count] for index in range(count)]


def median_cost(batch: Callable[[], list[Item]], run: Callable[[Item], object]) -> float:
    """The median over REPEATS of the CPU seconds `run` takes per item of a new `batch`."""
    costs = []
    for _ in range(REPEATS):
        items = batch()
        started = time.process_time()
        for item in items:
            run(item)
        costs.append((time.process_time() - started) / max(1, len(items)))
    return statistics.median(costs)


def merge_cost(recorded: Recorded) -> float:
    """The compiled reference's CPU seconds per merge, on the recorded merges."""
    merges = spread(recorded.merges, TIMED)
    return median_cost(
        lambda: merges,
        lambda merge: merge_parsed(merge[0], lag=merge[1], verify_key=merge[2], sign_key=merge[3]),
    )


def serialization_cost(recorded: Recorded) -> float:
    """The compiled reference's CPU seconds per serialization (signed where the scenario
    signs), on the recorded messages: an editable one (edited, merged) made anew for each
    repeat, as its first serialization found it (a message keeps its last serialization)."""
    serializations = spread(recorded.serializations, TIMED)
    return median_cost(
        lambda: [
            (editable_copy(message) if message.editable else message, sign)
            for message, sign in serializations
        ],
        lambda serialization: serialization[0].serialize(serialization[1]),
    )


def limit(work: Work, merge: float, serialization: float) -> float:
    """Interleavings per CPU second of a campaign that computed only its merges and
    serializations, each at these costs (seconds)."""
    seconds = merge * sum(work.merges.values()) + serialization * sum(work.serializations.values())
    return work.interleavings / seconds


def per_interleaving(work: Work) -> str:
    """What an interleaving took and computed, on average."""
    n = max(1, work.interleavings)

    def shares(counts: Counter[str]) -> str:
        parts = ", ".join(f"{name} {counts[name] / n:.1f}" for name in LIBRARIES if counts[name])
        return f"{sum(counts.values()) / n:.1f} ({parts})"

    return (
        f"{work.steps / n:.1f} steps, {work.computed / n:.1f} computed (edits "
        f"{work.edits / n:.1f}, polls {work.polls / n:.1f}, pushes {work.pushes / n:.1f}); merges "
        f"{shares(work.merges)}; serializations {shares(work.serializations)}; "
        f"{work.interleavings / work.seconds:.0f} interleavings per CPU second"
    )


def report(interleavings: int, tasks: int, local_rate: float | None) -> str:
    """The sample's work per interleaving, the reference's costs, and the rates against the
    limit they set (`local_rate`: the campaign's on local[2], if measured)."""
    chosen, alone, beside, recorded = sample(interleavings, tasks)
    everything = Work()
    everything += alone
    everything += beside
    merge, serialization = merge_cost(recorded), serialization_cost(recorded)
    bound = limit(everything, merge, serialization)
    rate = everything.interleavings / everything.seconds
    twin_merges = everything.merges["twins"] / max(1, sum(everything.merges.values()))
    lines = [
        f"the default campaign's first {len(chosen)} tasks (seed {chosen[0].campaign_seed}, "
        f"{everything.interleavings} interleavings, {beside.interleavings} of them with twins), "
        "one process, per interleaving:",
        f"  all: {per_interleaving(everything)}",
        f"  without twins: {per_interleaving(alone)}",
        f"  with twins: {per_interleaving(beside)}",
        f"  twins' share: {twin_merges:.0%} of the merges, "
        f"{beside.seconds / everything.seconds:.0%} of the CPU time",
        f"the compiled reference on those scenarios' merges and serializations (median of "
        f"{REPEATS}, {min(TIMED, len(recorded.merges))} of {len(recorded.merges)} merges, "
        f"{min(TIMED, len(recorded.serializations))} of {len(recorded.serializations)} "
        f"serializations): {merge * 1e6:.0f} us per merge, {serialization * 1e6:.0f} us per "
        "serialization",
        f"limit, every computed merge and serialization at the reference's cost and nothing "
        f"else: {bound:.0f} interleavings per CPU second; the sample's {rate:.0f} is "
        f"{rate / bound:.0%} of it",
    ]
    if local_rate is not None:
        lines.append(
            f"local[2]: the campaign's {local_rate:.0f}/s is {local_rate / (2 * bound):.0%} of "
            f"twice the limit ({2 * bound:.0f}/s)"
        )
    return "\n".join(lines)
