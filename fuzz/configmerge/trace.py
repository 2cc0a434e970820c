"""A path of the model as a campaign case: a schedule `swarmconf fuzz replay` reproduces.

The search names clients as each state's canonical representative does; the path is walked
again to undo those renamings, each partial view becomes the `pick` that shows the same
messages in the campaign run's swarm order, and a quiescence order that is no rotation (only
searched with identical scripts) becomes one by renaming the clients of the whole case.
"""

from __future__ import annotations

from .case import Case
from .model import Action, Model, is_rotation
from .run import Run
from .schedule import Event, Schedule


def real_path(model: Model, actions: list[Action]) -> tuple[list[Action], list[int], object]:
    """The actions with the clients' real names, the renaming in force at the end (real name
    of each representative name) and the representative end state."""
    state = model.initial()
    names = list(range(len(state.members)))
    real = []
    for action in actions:
        real.append(action._replace(client=names[action.client]))
        step = model.step(state, action)
        assert step is not None, "a path of the search takes a step that changes nothing"
        state = step.state
        if step.renaming is not None:
            names = [names[old] for old in step.renaming]
    return real, names, state


def case_of(model: Model, actions: list[Action], judged: bool) -> Case:
    """The case of a path; `judged`: the violation shows in the end state's quiescence (whose
    failing order the case's rotation then takes), else in the path's last step."""
    real, names, end = real_path(model, actions)
    count = len(names)
    order = tuple(range(count))
    if judged:
        order = tuple(names[client] for client in model.failing_order(end))  # type: ignore[arg-type]
    rotation = order[0]
    if not is_rotation(order):
        real = [action._replace(client=order.index(action.client)) for action in real]
        rotation = 0
    events = campaign_events(model, real)
    return Case(0, 0, 0, model.mutant, model.scenario, Schedule(tuple(events), rotation))


def campaign_events(model: Model, actions: list[Action]) -> list[Event]:
    """The events of a campaign run taking `actions`, partial views as picks."""
    run = Run(model.engine)
    events = []
    for action in actions:
        if action.kind != "sync":
            event = Event(action.kind, action.client)  # type: ignore[arg-type]
        elif action.view is None or len(action.view) == len(run.held):
            event = Event("sync", action.client, "full", 0)
        else:
            pick = sum(1 << i for i, message in enumerate(run.held) if message in action.view)
            event = Event("sync", action.client, "partial", pick)
            shown = run.view("partial", pick)
            assert set(shown) == action.view, "a partial view the campaign cannot pick"
        run.apply(event)
        events.append(event)
    return events
