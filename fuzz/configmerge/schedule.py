"""Schedules: one interleaving of the clients' events, derived from (campaign, scenario, index).

Events: `edit` (the client's next batch, published as an increment), `sync` (fetch what the
swarm holds, merge it with the client's own message and publish the merge), `offline` and
`online` (an offline client cannot fetch; what it publishes waits until it is back). A sync's
view is `full`, `partial` (the messages whose position in the swarm has its bit set in `pick`)
or `stale` (the swarm as it was `pick` changes ago). After the events every client comes back
online and all sync fully, in rounds starting at client `rotation`, until nothing changes.
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, NamedTuple

from .edits import JsonValue
from .scenario import Scenario
from .seeds import derive_rng

EventKind = Literal["edit", "sync", "offline", "online", "push"]
"""`push`: a client-layer client sends what it needs to push (`swarm`)."""
ViewMode = Literal["full", "partial", "stale"]


VIEWS: tuple[ViewMode, ...] = ("full", "partial", "stale")
VIEW_WEIGHTS = (5.0, 8.0, 10.0)
"""Cumulative weights of the views: full 5, partial 3, stale 2."""


class Event(NamedTuple):
    kind: EventKind
    client: int
    mode: ViewMode = "full"
    pick: int = 0


@dataclass(frozen=True)
class Schedule:
    events: tuple[Event, ...]
    rotation: int


def generate_schedule(
    scenario: Scenario, campaign_seed: int, scenario_index: int, index: int
) -> Schedule:
    """The interleaving for (campaign seed, scenario index, schedule index)."""
    rng = derive_rng("schedule", campaign_seed, scenario_index, index)
    below = uniform_below(rng)
    uniform = rng.random
    count = len(scenario.clients)
    events = [
        Event("edit", number)
        for number, client in enumerate(scenario.clients)
        for _ in client.batches
    ]
    for _ in range(count + below(2 * count + 1)):  # rng.randint(count, 3 * count)
        client = below(count)
        roll = uniform()
        if roll < 0.75:
            # rng.choices(VIEWS, weights=(5, 3, 2))[0], the same draw without its set-up
            mode = VIEWS[bisect.bisect(VIEW_WEIGHTS, uniform() * VIEW_WEIGHTS[-1], 0, 2)]
            events.append(Event("sync", client, mode, 1 + below(63)))
        else:
            events.append(Event("offline" if roll < 0.88 else "online", client))
    # rng.shuffle(events), the same swaps; a client's edits stay in order whatever the order of
    # events: each takes the next batch of its script
    for i in range(len(events) - 1, 0, -1):
        j = below(i + 1)
        events[i], events[j] = events[j], events[i]
    return Schedule(tuple(events), below(count))


def uniform_below(rng: random.Random) -> Callable[[int], int]:
    """`rng.randrange(n)` as `random.Random` draws it (from `getrandbits`, rejecting values
    out of range), without its argument checks: the same draws, fixed so that case names
    replay whatever a later Python does."""
    getrandbits = rng.getrandbits

    def below(n: int) -> int:
        k = n.bit_length()
        r = getrandbits(k)
        while r >= n:
            r = getrandbits(k)
        return r

    return below


def schedule_to_json(schedule: Schedule) -> JsonValue:
    return {
        "rotation": schedule.rotation,
        "events": [list(event) for event in schedule.events],
    }


def schedule_from_json(obj: JsonValue) -> Schedule:
    events = tuple(Event(*event) for event in obj["events"])
    return Schedule(events, int(obj["rotation"]))
