"""The world as explicit states, for `swarmconf check`: the same clients, steps and judgements
as a campaign's walks (`world`, `interleaving`), searched breadth-first.

A state is what an interleaving holds that decides its future: the swarm's blobs (in the order
it stores them, which is the order a poll returns them), each client's state (`world.Key`),
the edit batches each has made, and the P4 oracle's ledger (what each message knows, the
updates so far). Its actions are an app's steps: `edit` (the client's next batch), `sync` (poll
the whole swarm and merge) and `push`; a step that changes nothing is left out. The step runs
`interleaving.Interleaving` itself on the world's memoized steps, so a path is a campaign
schedule and a counterexample replays with `swarmconf fuzz replay`; the violations of each
step (P2, P3, P6, P7) are its transition's. Each state is judged as a campaign case ending
there: lockstep rounds from it in every rotation (P5), then P1 and P4.

Partial and stale views, and clients going offline, are left to the campaign: an offline
client is a client taking no step, which the search already covers, and with deletions only at
pushes a bounded search of full polls reaches every race of resolutions.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..explore import Judgement, Transition
from .behaviours import Setting
from .case import Case
from .edits import Data, Edit
from .interleaving import Interleaving, Knowledge, Ledger, Outcome
from .oracle import ABSENT, Update
from .scenario import Client, Scenario
from .schedule import Event, Schedule
from .swarm_client import AdapterError
from .world import Key, World, swarm_hash


def plain_script(client: int, edits: int, shared: bool) -> tuple[tuple[Edit, ...], ...]:
    """A client's edit batches: each writes the one contested key `a`, a key of its own, and an
    element of the shared set `s`; a later batch discards the client's first element, which
    empties the set when nobody else added to it (the pruning path, D15). `shared`: every client
    runs the same script (their messages then coincide on equal bases)."""
    tag = 0 if shared else client
    batches = []
    for batch in range(edits):
        edit = [Edit("assign", (b"a",), value=10 * tag + batch + 1)]
        edit.append(Edit("assign", (b"k%d" % tag,), value=batch + 1))
        if batch == 0:
            edit.append(Edit("add", (b"s",), elements=(tag,)))
        else:
            edit.append(Edit("discard", (b"s",), elements=(tag,)))
        batches.append(tuple(edit))
    return tuple(batches)


def overlap_batches(tag: int, batch: int) -> tuple[tuple[Edit, ...], ...]:
    """The four batches the overlap scripts cycle through: a key of the client's own with the
    discard of the base's element of the set `d.s`, the removal of the nested dict `d`, an
    element of `d.s` of the client's own with the contested key `a`, and the discard of the
    base's and the client's elements of `d.s`. A discard empties `d.s` when nobody else added
    to it (pruning `d.s`, then `d`, D15)."""
    return (
        (
            Edit("assign", (b"k%d" % tag,), value=batch + 1),
            Edit("discard", (b"d", b"s"), elements=(0,)),
        ),
        (Edit("remove", (b"d",)),),
        (
            Edit("add", (b"d", b"s"), elements=(tag + 1,)),
            Edit("assign", (b"a",), value=10 * tag + batch + 1),
        ),
        (Edit("discard", (b"d", b"s"), elements=(0, tag + 1)),),
    )


def overlap_script(client: int, edits: int, shared: bool) -> tuple[tuple[Edit, ...], ...]:
    """Client c's batch j is overlap batch (c + j) mod 4: the clients write the same keys, one
    removes the dict another writes inside, at different seqnos. With a lag of 2 or more the
    lagged diffs several merge inputs carry replay against different source data, which makes
    the replay set's choice of source observable (D15)."""
    tag = 0 if shared else client
    return tuple(overlap_batches(tag, batch)[(tag + batch) % 4] for batch in range(edits))


SCRIPTS = {"plain": plain_script, "overlap": overlap_script}
"""The edit-script families, by the name `--scripts` takes."""
BASE_DATA: dict[str, Data] = {"plain": {b"a": 0}, "overlap": {b"a": 0, b"d": {b"s": {0}}}}
"""Each family's starting data."""


UNPARSEABLE_BLOB = b"d1:!i1e1:#i0e1:&dee"
"""A message of a later major version (its first key sorts before `#`, D8): no client parses it,
it comes first among a merge's inputs, and the delete rule keeps it (D27)."""


def check_scenario(
    clients: int,
    edits: int,
    lag: int,
    shared: bool = False,
    future: bool = False,
    scripts: str = "plain",
    blob: bool = False,
) -> Scenario:
    """The scenario of a bound: unsigned, the family's base data, `edits` one-batch edits per
    client from the script family `scripts`; with `future` the last client writes an unknown
    top-level key (D9), unless `shared`; with `blob` the swarm starts with an unparseable
    message."""
    script = SCRIPTS[scripts]
    members = tuple(
        Client(
            script(number, edits, shared), future=future and not shared and number == clients - 1
        )
        for number in range(clients)
    )
    blobs = (UNPARSEABLE_BLOB,) if blob else ()
    return Scenario(lag, 0, copy.deepcopy(BASE_DATA[scripts]), members, False, bytes(32), blobs)


RESOLUTION, CONFLICT, MERGE_OF_MERGES, LOSS, DECLARED = (
    "resolution",
    "conflict",
    "merge-of-merges",
    "loss-beyond-window",
    "declared-quirk",
)
SOMETIMES = {
    RESOLUTION: "a client resolves a conflict: its merge makes a new message (D30)",
    CONFLICT: "a merge of two or more inputs the ignore rules kept (D14)",
    MERGE_OF_MERGES: "a merge with an input that is itself a merge",
    LOSS: "an update lost beyond the lag window (dropped or overwritten), as P4 allows",
    DECLARED: "a finding a declared quirk explains (a deployed client deleting a message it "
    "cannot parse: X12; a resolution listing every key reverting an update: X17)",
}
"""What the search must reach for a pass to mean something."""


Step = tuple[Any, ...]
"""A client's step as a history records it: ("edit", client, batch), ("poll", view), ("push",)."""


class Histories(tuple[tuple[Step, ...], ...]):
    """Each client's steps from the start, carried by a state so that a process that never
    took them (a Spark worker) can take them again and hold the client objects its keys name.
    Left out of a state's equality and fingerprint: any history to a key rebuilds it."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Histories)

    def __ne__(self, other: object) -> bool:
        return not isinstance(other, Histories)

    def __hash__(self) -> int:
        return 0


class State(NamedTuple):
    swarm: tuple[bytes, ...]
    """The blobs, in the order the swarm stores them."""
    clients: tuple[Key, ...]
    batches: tuple[int, ...]
    """The edit batches each client has made."""
    knowledge: tuple[tuple[bytes, Knowledge], ...]
    """What each message made so far knows (P4), sorted."""
    updates: tuple[tuple[int, Update], ...]
    """The updates made so far, by bit, sorted."""
    episodes: tuple[tuple[bytes, tuple[int, bytes]], ...]
    resolutions: tuple[tuple[bytes, int], ...]
    superseded: frozenset[int]
    expressed: tuple[tuple[int, Update], ...]
    histories: Histories


class Action(NamedTuple):
    kind: str
    """`edit`, `sync` (a poll of the whole swarm) or `push`."""
    client: int


@dataclass
class Model:
    """States and transitions of one scenario, on one `World` (steps memoized)."""

    scenario: Scenario
    setting: Setting = field(default_factory=Setting)
    world: World = field(init=False)
    judged: dict[bytes, Judgement] = field(default_factory=dict)
    codes: dict[int, tuple[Update, bytes]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.world = World(self.scenario, self.setting)
        self.batches = [len(client.batches) for client in self.scenario.clients]
        count = len(self.scenario.clients)
        self.orders = [tuple((start + i) % count for i in range(count)) for start in range(count)]

    def initial(self) -> State:
        run = Interleaving(self.world)
        return self.state_of(run, Histories(() for _ in run.clients))

    def update_code(self, update: Update) -> bytes:
        """An update's code, the same in every process (its writes, not their identities)."""
        found = self.codes.get(id(update))
        if found is None or found[0] is not update:
            writes = sorted(
                (repr(atom), "-" if value is ABSENT else repr(value))
                for atom, value in update.writes.items()
            )
            text = repr((update.rank, writes, sorted(update.wiped)))
            found = self.codes[id(update)] = (update, text.encode())
        return found[1]

    def fingerprint(self, state: State) -> bytes:
        """BLAKE2b-128 of the state's parts, each length-prefixed."""
        digest = hashlib.blake2b(digest_size=16)

        def put(part: bytes) -> None:
            digest.update(b"%d:" % len(part) + part)

        for blob in state.swarm:
            put(blob)
        for key in state.clients:
            for part in (key.behaviour.encode(), b"%d" % key.signer, key.state.encode()):
                put(part)
            put(key.message)
            put(key.current or b"-")
            for digest_ in sorted(key.to_delete):
                put(digest_)
            digest.update(b";")
        digest.update(repr(state.batches).encode())
        for message, known in state.knowledge:
            put(message)
            digest.update(b"%x,%x,%x;" % (known.known, known.safe, known.depth))
        for bit, update in state.updates:
            digest.update(b"%x:" % bit)
            put(self.update_code(update))
        for message, (bit, start) in state.episodes:
            put(message)
            put(start)
            digest.update(b"%x;" % bit)
        for message, bit in state.resolutions:
            put(message)
            digest.update(b"%x;" % bit)
        digest.update(repr(sorted(state.superseded)).encode())
        for bit, update in state.expressed:
            digest.update(b"%x:" % bit)
            put(self.update_code(update))
        return digest.digest()

    def rebuilt(self, state: State) -> None:
        """Each client object the state's keys name, taken again from its history if this
        process has none."""
        world = self.world
        for client, key in enumerate(state.clients):
            if key in world.objects:
                continue
            held = world.start(client)
            for step in state.histories[client]:
                if step[0] == "edit":
                    held = world.edit(held, step[1], step[2]).key
                elif step[0] == "poll":
                    held = world.poll(held, step[1]).key
                else:
                    held = world.push(held).key
            assert held == key, "a history leads to the key it was recorded with"

    def run_of(self, state: State) -> Interleaving:
        """An interleaving standing in `state`."""
        self.rebuilt(state)
        run = Interleaving.__new__(Interleaving)
        run.world = self.world
        run.swarm = {swarm_hash(blob): blob for blob in state.swarm}
        run.history = [state.swarm]
        run.clients = list(state.clients)
        run.online = [True] * len(state.clients)
        run.next_batch = list(state.batches)
        run.batches = self.batches
        run.ledger = Ledger(
            dict(state.knowledge),
            dict(state.updates),
            {update.rank: 0 for _, update in state.updates},
            dict(state.episodes),
            dict(state.resolutions),
            set(state.superseded),
            dict(state.expressed),
        )
        bits_of = run.ledger.bits_of
        for bit, update in state.updates:
            bits_of[update.rank] |= bit
        run.outcome = Outcome()
        run.seen = set()
        return run

    def state_of(self, run: Interleaving, histories: Histories) -> State:
        ledger = run.ledger
        return State(
            run.held(),
            tuple(run.clients),
            tuple(run.next_batch),
            tuple(sorted(ledger.knowledge.items())),
            tuple(sorted(ledger.updates.items(), key=lambda item: item[0])),
            tuple(sorted(ledger.episodes.items())),
            tuple(sorted(ledger.resolutions.items())),
            frozenset(ledger.superseded),
            tuple(sorted(ledger.expressed.items(), key=lambda item: item[0])),
            histories,
        )

    def actions(self, state: State) -> Iterator[Action]:
        for client, key in enumerate(state.clients):
            if state.batches[client] < self.batches[client] and key.signer:
                yield Action("edit", client)
            yield Action("sync", client)
            if key.state != "clean":
                yield Action("push", client)

    def step(self, state: State, action: Action) -> Transition[State] | None:
        run = self.run_of(state)
        client = action.client
        taken = self.taken(run, state, action)
        try:
            run.apply(event_of(action))
        except AdapterError as error:
            if error.quirk is not None:  # the deployed client stops there too: acceptable
                return Transition(state, (), (DECLARED,))
            return Transition(state, (error.finding,))
        histories = state.histories
        if run.clients[client] != state.clients[client]:
            moved = list(histories)
            moved[client] = (*moved[client], taken)
            histories = Histories(moved)
        successor = self.state_of(run, histories)
        if successor == state:
            return None
        return Transition(successor, tuple(run.outcome.violations), witnesses(run.outcome))

    def taken(self, run: Interleaving, state: State, action: Action) -> Step:
        """The step `action` takes, as a history records it."""
        if action.kind == "edit":
            return ("edit", action.client, state.batches[action.client])
        if action.kind == "sync":
            return ("poll", run.held())
        return ("push",)

    def independent(self, state: State, first: Action, second: Action) -> bool:
        return False

    def relabel(self, action: Action, renaming: tuple[int, ...]) -> Action:
        return action

    def judge(self, state: State) -> Judgement:
        """Lockstep rounds from `state` in every rotation: the first that fails (P5, P1, P4),
        and what the rounds reached."""
        key = self.fingerprint(state)
        found = self.judged.get(key)
        if found is None:
            reached: set[str] = set()
            violations: tuple[str, ...] = ()
            for order in self.orders:
                outcome = self.settled(state, order[0]).outcome
                reached.update(witnesses(outcome))
                if outcome.violations and not violations:
                    violations = tuple(outcome.violations)
            found = self.judged[key] = Judgement(violations, tuple(sorted(reached)))
        return found

    def settled(self, state: State, rotation: int) -> Interleaving:
        run = self.run_of(state)
        try:
            run.settle_and_judge(rotation)
        except AdapterError as error:
            if error.quirk is None:
                run.note([error.finding])
            else:
                run.outcome.acceptable.append(error.finding)
        return run

    def failing_order(self, state: State) -> tuple[int, ...]:
        """The first rotation whose lockstep rounds fail (the first when none does)."""
        for order in self.orders:
            if self.settled(state, order[0]).outcome.violations:
                return order
        return self.orders[0]


def witnesses(outcome: Outcome) -> tuple[str, ...]:
    """What an outcome reached of the "sometimes" a pass needs."""
    found = []
    if outcome.merges:
        found.append(RESOLUTION)
    if outcome.max_width > 1:
        found.append(CONFLICT)
    if outcome.max_depth > 1:
        found.append(MERGE_OF_MERGES)
    if outcome.lost_dropped or outcome.lost_overwritten:
        found.append(LOSS)
    if outcome.acceptable:
        found.append(DECLARED)
    return tuple(found)


def event_of(action: Action) -> Event:
    if action.kind == "sync":
        return Event("sync", action.client, "full", 0)
    return Event(action.kind, action.client)  # type: ignore[arg-type]


def case_of(model: Model, actions: list[Action], judged: bool) -> Case:
    """The case of a path; `judged`: its violation shows in the end state's lockstep rounds
    (whose failing rotation the case takes), else in the path's last step."""
    state = model.initial()
    for action in actions:
        step = model.step(state, action)
        assert step is not None, "a path of the search takes a step that changes nothing"
        state = step.state
    rotation = model.failing_order(state)[0] if judged else 0
    events = tuple(event_of(action) for action in actions)
    return Case(0, 0, 0, model.setting.mutant, model.scenario, Schedule(events, rotation))
