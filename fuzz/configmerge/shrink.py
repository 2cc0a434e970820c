"""Shrinking a failing case: delta debugging over events, clients, batches, edits and data.

A candidate is kept when it still fails with the property the original failed with first, so
the minimized case shows the same kind of failure with the fewest clients, edits and events.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from ..ddmin import ddmin
from .case import outcome_of
from .edits import Edit
from .scenario import Client, Scenario
from .schedule import Event, Schedule

Case = tuple[Scenario, Schedule]


def failing_properties(case: Case, mutant: str | None, client: str | None = None) -> list[str]:
    return outcome_of(*case, mutant, client).properties


def shrink(
    case: Case, mutant: str | None = None, rounds: int = 4, client: str | None = None
) -> Case:
    """A smaller case failing with the same first property as `case` (which must fail); a
    swarm's `client` clients are played through `client`."""
    original = failing_properties(case, mutant, client)
    if not original:
        raise ValueError("the case does not fail")
    target = original[0]

    def fails(candidate: Case) -> bool:
        try:
            return target in failing_properties(candidate, mutant, client)
        except ValueError:
            return False

    for _ in range(rounds):
        before = case
        case = drop_clients(case, fails)
        case = drop_events(case, fails)
        case = drop_edits(case, fails)
        case = drop_base_keys(case, fails)
        if case == before:
            break
    return case


def drop_events(case: Case, fails: Callable[[Case], bool]) -> Case:
    scenario, schedule = case
    events = ddmin(
        schedule.events, lambda kept: fails((scenario, replace(schedule, events=tuple(kept))))
    )
    return scenario, replace(schedule, events=tuple(events))


def without_client(case: Case, number: int) -> Case:
    scenario, schedule = case
    clients = scenario.clients[:number] + scenario.clients[number + 1 :]
    events = tuple(
        event._replace(client=event.client - (event.client > number))
        for event in schedule.events
        if event.client != number
    )
    rotation = min(schedule.rotation, len(clients) - 1)
    return replace(scenario, clients=clients), Schedule(events, rotation)


def drop_clients(case: Case, fails: Callable[[Case], bool]) -> Case:
    number = len(case[0].clients) - 1
    while number >= 0 and len(case[0].clients) > 1:
        candidate = without_client(case, number)
        if fails(candidate):
            case = candidate
        number -= 1
    return case


def with_client(scenario: Scenario, number: int, client: Client) -> Scenario:
    clients = (*scenario.clients[:number], client, *scenario.clients[number + 1 :])
    return replace(scenario, clients=clients)


def drop_edits(case: Case, fails: Callable[[Case], bool]) -> Case:
    """Fewer batches per client (one fewer edit event each time), then fewer edits per batch."""
    for number in range(len(case[0].clients)):
        while case[0].clients[number].batches:
            scenario, schedule = case
            client = scenario.clients[number]
            events = list(schedule.events)
            edits = [i for i, event in enumerate(events) if event == Event("edit", number)]
            if edits:
                del events[edits[-1]]
            candidate = (
                with_client(scenario, number, replace(client, batches=client.batches[:-1])),
                replace(schedule, events=tuple(events)),
            )
            if not fails(candidate):
                break
            case = candidate
        for index in range(len(case[0].clients[number].batches)):
            case = shrink_batch(case, number, index, fails)
    return case


def shrink_batch(case: Case, number: int, index: int, fails: Callable[[Case], bool]) -> Case:
    edits = case[0].clients[number].batches[index]
    kept = ddmin(edits, lambda candidate: fails(with_batch(case, number, index, candidate)))
    return with_batch(case, number, index, kept)


def with_batch(case: Case, number: int, index: int, edits: list[Edit]) -> Case:
    scenario, schedule = case
    client = scenario.clients[number]
    batches = (*client.batches[:index], tuple(edits), *client.batches[index + 1 :])
    return with_client(scenario, number, replace(client, batches=batches)), schedule


def drop_base_keys(case: Case, fails: Callable[[Case], bool]) -> Case:
    scenario, schedule = case
    keys = ddmin(
        sorted(scenario.base_data),
        lambda kept: fails(
            (replace(scenario, base_data={k: scenario.base_data[k] for k in kept}), schedule)
        ),
    )
    return replace(scenario, base_data={k: scenario.base_data[k] for k in keys}), schedule
