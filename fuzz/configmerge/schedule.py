"""Schedules: one interleaving of the clients' steps, derived from (campaign, scenario, index).

Events are an app's steps (D29, D31): `edit` (the client's next batch), `sync` (poll the swarm
and merge what it returned with the client's own message), `push` (a client that is not clean
sends its message with the hashes it deletes), `offline` and `online` (an offline client
neither polls nor pushes). A sync's view is `full`, `partial` (the messages whose position in
the swarm has its bit set in `pick`) or `stale` (the swarm as it was `pick` changes ago).
After the events every client comes back online and the swarm settles in lockstep rounds
starting at client `rotation` (see `interleaving`).
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

EventKind = Literal["edit", "sync", "push", "offline", "online"]
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


PUSH_SHARE = 0.3
"""The share of a schedule's extra events that are pushes."""
OFFLINE_SHARE = 0.15
"""The share of a schedule's extra events that take a client offline or back online."""


def generate_schedule(
    scenario: Scenario, campaign_seed: int, scenario_index: int, index: int
) -> Schedule:
    """The interleaving for (campaign seed, scenario index, schedule index): each client's
    edits, each followed somewhere by a push, and polls (full, partial or stale views), pushes,
    and clients going offline and online, of random clients, shuffled; then the rotation of
    the lockstep rounds."""
    rng = derive_rng("schedule", campaign_seed, scenario_index, index)
    below = uniform_below(rng)
    uniform = rng.random
    count = len(scenario.clients)
    events = [
        Event(kind, number)
        for number, client in enumerate(scenario.clients)
        for _ in client.batches
        for kind in ("edit", "push")
    ]
    for _ in range(count + below(2 * count + 1)):
        client = below(count)
        roll = uniform()
        if roll < PUSH_SHARE:
            events.append(Event("push", client))
        elif roll < PUSH_SHARE + OFFLINE_SHARE:
            events.append(Event("offline" if uniform() < 0.5 else "online", client))
        else:
            # rng.choices(VIEWS, weights=(5, 3, 2))[0], the same draw without its set-up
            mode = VIEWS[bisect.bisect(VIEW_WEIGHTS, uniform() * VIEW_WEIGHTS[-1], 0, 2)]
            events.append(Event("sync", client, mode, 1 + below(63)))
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
