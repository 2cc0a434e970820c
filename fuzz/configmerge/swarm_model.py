"""A swarm of client-layer clients (`swarm`) as explicit states, for `swarmconf check --swarm`.

A state is the swarm's blobs (in the order it stores them, which is the order a poll returns
them), each client's state (`swarm.Key`) and the edit batches each has made. Its actions are
an app's steps: `edit` (the client's next batch), `sync` (poll the whole swarm and merge) and
`push` (a client that needs a push sends it, deleting what it names, confirmed at once); a
step that changes nothing is left out. Each state is judged as a swarm campaign case ending
there: lockstep rounds from it in every rotation (P5: racing resolutions never stop), then P1,
with P7 on every push. A path is a swarm schedule, so a counterexample replays with
`swarmconf fuzz replay`.

Partial and stale views are left to the campaign: with deletions only at pushes, a bounded
search of full polls already reaches every race of resolutions.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

from ..explore import Judgement, Transition
from .case import Case
from .run import Outcome
from .scenario import Scenario
from .schedule import Event, Schedule
from .swarm import Key, SwarmRun, World, swarm_hash
from .swarm_client import AdapterError

RESOLUTION, DECLARED = "resolution", "declared-quirk"
SOMETIMES = {
    RESOLUTION: "a client resolves a conflict: its merge makes a new message (D30)",
    DECLARED: "a finding a declared quirk explains (a deployed client deleting a message it "
    "cannot parse: X12)",
}
"""What the search must reach for a pass to mean something."""


class State(NamedTuple):
    swarm: tuple[bytes, ...]
    """The blobs, in the order the swarm stores them."""
    clients: tuple[Key, ...]
    batches: tuple[int, ...]
    """The edit batches each client has made."""


class Action(NamedTuple):
    kind: str
    """`edit`, `sync` (a poll of the whole swarm) or `push`."""
    client: int


@dataclass
class SwarmModel:
    """States and transitions of one swarm scenario, on one `World` (steps memoized)."""

    scenario: Scenario
    mutant: str | None = None
    command: str | None = None
    """The adapter command of `client` clients."""
    world: World = field(init=False)
    judged: dict[bytes, Judgement] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.world = World(self.scenario, self.command)
        self.batches = [len(client.batches) for client in self.scenario.clients]
        count = len(self.scenario.clients)
        self.orders = [tuple((start + i) % count for i in range(count)) for start in range(count)]

    def initial(self) -> State:
        run = SwarmRun(self.world)
        return State(run.held(), tuple(run.clients), tuple(run.next_batch))

    def fingerprint(self, state: State) -> bytes:
        """BLAKE2b-128 of the state's parts, each length-prefixed."""
        digest = hashlib.blake2b(digest_size=16)
        for blob in state.swarm:
            digest.update(b"%d:" % len(blob) + blob)
        for key in state.clients:
            parts = (key.behaviour.encode(), b"%d" % key.signer, key.state.encode(), key.message)
            for part in (*parts, key.current or b"-", *sorted(key.to_delete)):
                digest.update(b"%d:" % len(part) + part)
            digest.update(b";")
        digest.update(repr(state.batches).encode())
        return digest.digest()

    def run_of(self, state: State) -> SwarmRun:
        """A swarm run standing in `state`."""
        run = SwarmRun.__new__(SwarmRun)
        run.world = self.world
        run.swarm = {swarm_hash(blob): blob for blob in state.swarm}
        run.history = [state.swarm]
        run.clients = list(state.clients)
        run.next_batch = list(state.batches)
        run.batches = self.batches
        run.outcome = Outcome()
        run.seen = set()
        return run

    def state_of(self, run: SwarmRun) -> State:
        return State(run.held(), tuple(run.clients), tuple(run.next_batch))

    def actions(self, state: State) -> Iterator[Action]:
        for client, key in enumerate(state.clients):
            if state.batches[client] < self.batches[client] and key.signer:
                yield Action("edit", client)
            yield Action("sync", client)
            if key.state != "clean":
                yield Action("push", client)

    def step(self, state: State, action: Action) -> Transition[State] | None:
        run = self.run_of(state)
        try:
            run.apply(event_of(action))
        except AdapterError as error:
            return Transition(state, (f"C2 {error}",))
        successor = self.state_of(run)
        if successor == state:
            return None
        witnesses = ((RESOLUTION,) if run.outcome.merges else ()) + (
            (DECLARED,) if run.outcome.acceptable else ()
        )
        return Transition(successor, tuple(run.outcome.violations), witnesses)

    def independent(self, state: State, first: Action, second: Action) -> bool:
        return False

    def relabel(self, action: Action, renaming: tuple[int, ...]) -> Action:
        return action

    def judge(self, state: State) -> Judgement:
        """Lockstep rounds from `state` in every rotation: the first that fails (P5, P1)."""
        key = self.fingerprint(state)
        found = self.judged.get(key)
        if found is None:
            violations = self.violations(state, self.failing_order(state))
            found = self.judged[key] = Judgement(violations, ())
        return found

    def settled(self, state: State, rotation: int) -> SwarmRun:
        run = self.run_of(state)
        try:
            run.settle_and_judge(rotation)
        except AdapterError as error:
            run.note(f"C2 {error}")
        return run

    def violations(self, state: State, order: tuple[int, ...]) -> tuple[str, ...]:
        return tuple(self.settled(state, order[0]).outcome.violations)

    def failing_order(self, state: State) -> tuple[int, ...]:
        """The first rotation whose lockstep rounds fail (the first when none does)."""
        for order in self.orders:
            if self.settled(state, order[0]).outcome.violations:
                return order
        return self.orders[0]


def event_of(action: Action) -> Event:
    if action.kind == "sync":
        return Event("sync", action.client, "full", 0)
    return Event(action.kind, action.client)  # type: ignore[arg-type]


def case_of(model: SwarmModel, actions: list[Action], judged: bool) -> Case:
    """The swarm case of a path; `judged`: its violation shows in the end state's lockstep
    rounds (whose failing rotation the case takes), else in the path's last step."""
    state = model.initial()
    for action in actions:
        step = model.step(state, action)
        assert step is not None, "a path of the search takes a step that changes nothing"
        state = step.state
    rotation = model.failing_order(state)[0] if judged else 0
    events = tuple(event_of(action) for action in actions)
    return Case(0, 0, 0, None, model.scenario, Schedule(events, rotation))
