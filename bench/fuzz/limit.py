"""What an interleaving of the default campaign computes, and the rate that work bounds.

The first tasks of the default campaign's plan, as it draws them, are played in one process.
Each world's memos then say what was computed: its edit, poll and push steps, the library
merges its clients ran (each library's `Merges`; the deployed emulation's, one per computed
poll), the serializations, signed where the scenario signs (each library's `Serializations`),
and the distinct parses (each library's `Parses`). The compiled reference, and the spec, are
then timed on the very merges, serializations and parses their clients computed. The limit is
the rate of a campaign that did nothing but its computed merges and serializations, each at the
reference's cost; a second one takes the spec's clients' and twins' at the spec's own cost; a
third adds every parse at its library's cost: the work no world of these clients can skip.
"""

from __future__ import annotations

import contextlib
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from swarmconf.fuzz.config import Config
from swarmconf.fuzz.configmerge.behaviours import (
    Merges,
    Parses,
    ReferenceClient,
    Serializations,
)
from swarmconf.fuzz.configmerge.campaign import Task, task_scenario, twinned, world_of
from swarmconf.fuzz.configmerge.campaigns import planned
from swarmconf.fuzz.configmerge.interleaving import play
from swarmconf.fuzz.configmerge.messages import sampled
from swarmconf.fuzz.configmerge.schedule import generate_schedule
from swarmconf.fuzz.configmerge.world import CHECK_SAMPLE, World, editable_copy, holder
from swarmconf.fuzz.heap import collector_paused
from swarmconf.reference import configmerge as reference
from swarmconf.reference.configmerge.message import ConfigMessage as ReferenceMessage
from swarmconf.spec import configmerge as spec
from swarmconf.spec.configmerge.reasons import ConfigError

LIBRARY = {"reference": "reference", "spec": "spec", "twins": "spec", "deployed": "reference"}
"""Whose merges and serializations (the reference's clients, the spec's, the spec's clients
standing beside others as twins, P3, the deployed client's emulation), and the library whose
code runs them."""
TIMED = 2000
"""The recorded merges (and serializations) timed, evenly spread over those recorded."""
MERGE: dict[str, Callable[..., Any]] = {
    "reference": reference.merge_parsed,
    "spec": spec.merge_parsed,
}
PARSE: dict[str, Callable[..., Any]] = {"reference": reference.parse, "spec": spec.parse}
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
    parses: Counter[str] = field(default_factory=Counter)

    def __iadd__(self, other: Work) -> Work:
        self.interleavings += other.interleavings
        self.seconds += other.seconds
        self.steps += other.steps
        self.edits += other.edits
        self.polls += other.polls
        self.pushes += other.pushes
        self.merges += other.merges
        self.serializations += other.serializations
        self.parses += other.parses
        return self

    @property
    def computed(self) -> int:
        return self.edits + self.polls + self.pushes


Merge = tuple[list[Any], int, bytes | None, bytes | None]
"""A merge's valid inputs, lag, verification key and signing key."""
Serialization = tuple[Any, bytes | None]
"""A message serialized and its signing key."""
Parse = tuple[bytes, int, bytes | None]
"""A blob parsed, its lag and verification key."""


def by_library() -> dict[str, list[Any]]:
    return {"reference": [], "spec": []}


@dataclass
class Recorded:
    """The merges, serializations and parses each library's clients computed (`LIBRARY`)."""

    merges: dict[str, list[Merge]] = field(default_factory=by_library)
    serializations: dict[str, list[Serialization]] = field(default_factory=by_library)
    parses: dict[str, list[Parse]] = field(default_factory=by_library)


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
    """What the world computed (its memos, the libraries' merges and serializations), each
    merge and serialization recorded."""
    work = Work(edits=len(world.edits), polls=len(world.polls), pushes=len(world.pushes))
    # Only a read-only client verifies without signing, which a merge looks at
    verify = world.messages.verify_key
    seen: set[int] = set()
    for client, twin in clients(world):
        name = library(client, twin)
        merges: Merges | None = vars(client).get("merges")
        if merges is not None and id(merges) not in seen:
            seen.add(id(merges))
            work.merges[name] += len(merges.merges)
            recorded.merges[LIBRARY[name]].extend(
                (valid, valid[0].lag, verify if key[-1] is None else None, key[-1])
                for key, (valid, _) in merges.merges.items()
            )
        serializations: Serializations | None = vars(client).get("serializations")
        if serializations is not None and id(serializations) not in seen:
            seen.add(id(serializations))
            work.serializations[name] += len(serializations.found)
            recorded.serializations[LIBRARY[name]].extend(found(serializations))
        parses: Parses | None = vars(client).get("parses")
        if parses is not None and id(parses) not in seen:
            seen.add(id(parses))
            work.parses[name] += len(parses.found)
            recorded.parses[LIBRARY[name]].extend(parses.found)
    # The world's serializations: of the clients whose library keeps none (the reference's
    # messages, the reference's and the emulation's clients)
    work.serializations["reference"] += len(world.serializations.found)
    recorded.serializations["reference"].extend(found(world.serializations))
    # The emulation merges once a computed poll, and again where P2 merges it in another order
    work.merges["deployed"] += sum(
        1 + (bool(view) and sampled(b"".join(view), CHECK_SAMPLE))
        for key, view in world.polls
        if key.behaviour == "deployed"
    )
    return work


def found(serializations: Serializations) -> list[Serialization]:
    return [(message, key[1]) for key, (message, _) in serializations.found.items()]


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
    and those with twins took, and their merges and serializations recorded."""
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


def merge_cost(merges: list[Merge], merge: Callable[..., Any]) -> float:
    """CPU seconds per merge of `merge` (a library's `merge_parsed`) on recorded merges."""
    timed = spread(merges, TIMED)
    return median_cost(
        lambda: timed,
        lambda inputs: merge(inputs[0], lag=inputs[1], verify_key=inputs[2], sign_key=inputs[3]),
    )


def fresh(message: Any) -> Any:
    """The message as its first serialization found it: the reference's editable messages
    (edited, merged) keep their last serialization, so one is made anew; the spec's keep none."""
    if isinstance(message, ReferenceMessage) and message.editable:
        return editable_copy(message)
    return message


def serialization_cost(serializations: list[Serialization]) -> float:
    """CPU seconds per serialization (signed where the scenario signs) of recorded messages."""
    timed = spread(serializations, TIMED)
    return median_cost(
        lambda: [(fresh(message), sign) for message, sign in timed],
        lambda serialization: serialization[0].serialize(serialization[1]),
    )


def parse_cost(parses: list[Parse], parse: Callable[..., Any]) -> float:
    """CPU seconds per parse of `parse` (a library's, refusals included) of recorded blobs."""
    timed = spread(parses, TIMED)

    def run(item: Parse) -> None:
        with contextlib.suppress(ConfigError):
            parse(item[0], lag=item[1], verify_key=item[2])

    return median_cost(lambda: timed, run)


@dataclass(frozen=True)
class Costs:
    """CPU seconds per merge, per serialization and per parse, by library (`LIBRARY`); no
    parse is counted where `parse` is empty."""

    merge: dict[str, float]
    serialization: dict[str, float]
    parse: dict[str, float] = field(default_factory=dict)

    def of(self, name: str) -> Costs:
        """Every merge and serialization at library `name`'s cost."""
        return Costs(
            dict.fromkeys(LIBRARY, self.merge[name]),
            dict.fromkeys(LIBRARY, self.serialization[name]),
        )

    def own(self, parses: bool = False) -> Costs:
        """Each one's merges and serializations (and, with `parses`, parses) at its library's
        cost."""
        return Costs(
            {name: self.merge[LIBRARY[name]] for name in LIBRARY},
            {name: self.serialization[LIBRARY[name]] for name in LIBRARY},
            {name: self.parse[LIBRARY[name]] for name in LIBRARY} if parses else {},
        )


def costs(recorded: Recorded) -> Costs:
    """Each library's costs on the merges, serializations and parses its clients computed."""
    return Costs(
        {name: merge_cost(merges, MERGE[name]) for name, merges in recorded.merges.items()},
        {name: serialization_cost(found) for name, found in recorded.serializations.items()},
        {name: parse_cost(parses, PARSE[name]) for name, parses in recorded.parses.items()},
    )


def limit(work: Work, costs: Costs) -> float:
    """Interleavings per CPU second of a campaign that computed only its merges and
    serializations (and parses, where `costs` has them), at these costs."""
    seconds = sum(costs.merge[name] * count for name, count in work.merges.items())
    seconds += sum(costs.serialization[name] * count for name, count in work.serializations.items())
    seconds += sum(costs.parse.get(name, 0.0) * count for name, count in work.parses.items())
    return work.interleavings / seconds


def per_interleaving(work: Work) -> str:
    """What an interleaving took and computed, on average."""
    n = max(1, work.interleavings)

    def shares(counts: Counter[str]) -> str:
        parts = ", ".join(f"{name} {counts[name] / n:.1f}" for name in LIBRARY if counts[name])
        return f"{sum(counts.values()) / n:.1f} ({parts})"

    return (
        f"{work.steps / n:.1f} steps, {work.computed / n:.1f} computed (edits "
        f"{work.edits / n:.1f}, polls {work.polls / n:.1f}, pushes {work.pushes / n:.1f}); merges "
        f"{shares(work.merges)}; serializations {shares(work.serializations)}; parses "
        f"{shares(work.parses)}; {work.interleavings / work.seconds:.0f} interleavings per CPU "
        "second"
    )


def report(interleavings: int, tasks: int, local_rate: float | None) -> str:
    """The sample's work per interleaving, the reference's costs, and the rates against the
    limit they set (`local_rate`: the campaign's on local[2], if measured)."""
    chosen, alone, beside, recorded = sample(interleavings, tasks)
    everything = Work()
    everything += alone
    everything += beside
    measured = costs(recorded)
    bound, own = limit(everything, measured.of("reference")), limit(everything, measured.own())
    floor = limit(everything, measured.own(parses=True))
    rate = everything.interleavings / everything.seconds
    twin_merges = everything.merges["twins"] / max(1, sum(everything.merges.values()))

    def timed(name: str) -> str:
        merges, found = recorded.merges[name], recorded.serializations[name]
        parses = recorded.parses[name]
        return (
            f"{measured.merge[name] * 1e6:.0f} us per merge, "
            f"{measured.serialization[name] * 1e6:.0f} us per serialization, "
            f"{measured.parse[name] * 1e6:.0f} us per parse "
            f"({min(TIMED, len(merges))} of {len(merges)} merges, "
            f"{min(TIMED, len(found))} of {len(found)} serializations, "
            f"{min(TIMED, len(parses))} of {len(parses)} parses)"
        )

    lines = [
        f"the default campaign's first {len(chosen)} tasks (seed {chosen[0].campaign_seed}, "
        f"{everything.interleavings} interleavings, {beside.interleavings} of them with twins), "
        "one process, per interleaving:",
        f"  all: {per_interleaving(everything)}",
        f"  without twins: {per_interleaving(alone)}",
        f"  with twins: {per_interleaving(beside)}",
        f"  twins' share: {twin_merges:.0%} of the merges, "
        f"{beside.seconds / everything.seconds:.0%} of the CPU time",
        f"on those merges, serializations and parses, median of {REPEATS}: the compiled reference "
        f"{timed('reference')}; the spec {timed('spec')}",
        f"limit, every computed merge and serialization at the reference's cost and nothing "
        f"else: {bound:.0f} interleavings per CPU second; the sample's {rate:.0f} is "
        f"{rate / bound:.0%} of it",
        f"limit, the spec's clients' and twins' at the spec's cost: {own:.0f}; the sample's "
        f"{rate / own:.0%} of it",
        f"limit, with every parse at its library's cost too: {floor:.0f}; the sample's "
        f"{rate / floor:.0%} of it",
    ]
    if local_rate is not None:
        lines.append(
            f"local[2]: the campaign's {local_rate:.0f}/s is {local_rate / (2 * bound):.0%} of "
            f"twice the limit at the reference's cost ({2 * bound:.0f}/s), "
            f"{local_rate / (2 * own):.0%} of twice the second ({2 * own:.0f}/s), "
            f"{local_rate / (2 * floor):.0%} of twice the third ({2 * floor:.0f}/s)"
        )
    return "\n".join(lines)
