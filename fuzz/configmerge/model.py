"""The config-merge campaign's world as explicit states, for bounded-exhaustive checking.

A state is everything a campaign run (`run.Run`) holds that decides its future: the swarm's
messages, each client's current message, online flag, queued pushes and the bases of the edits
it made so far, and what every message created so far knows (the P4 oracle's knowledge). Its
actions are the campaign's events: `edit`, `sync` with the full view or with any non-empty
subset of the swarm (the partial views), `offline` and `online`; an action that changes nothing
is left out. The transitions run `run.Run` itself on the cached engine (merges and edits
memoized by their inputs, checked as the campaign checks them), so a trace of actions is a
campaign schedule and replays with `swarmconf fuzz replay`.

Each state is judged as a campaign case ending there would be: the violations its last action
produced (P2, P3, P6), then for each quiescence order from the state (every rotation of the
clients; every order of them when `symmetric`) the settle rounds (P5), convergence (P1) and
survival (P4). Stale views and signed swarms are left out (see the check page).
"""

from __future__ import annotations

import bisect
import copy
import hashlib
import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

from ..explore import Judgement, Transition
from .edits import Data, Edit
from .engine import Engine
from .impl import choose
from .oracle import Update
from .run import Knowledge, Outcome, Run
from .scenario import Client, Scenario

MAX_PICK_POSITIONS = 6
"""A partial view picks swarm positions modulo 6 (`run.Run.view`): with more messages only the
full view is offered, so every trace stays a campaign schedule."""

CACHE_LIMIT = 1 << 20
"""Entries a model's encoding and knowledge caches hold before they start again."""
IDENTITY_CACHE_LIMIT = 1 << 16
"""Parts the encoding keeps by identity (and alive) before it starts again."""

Pending = tuple[tuple[bytes, frozenset[bytes]], ...]


class Member(NamedTuple):
    """One client's part of a state."""

    current: bytes
    online: bool
    pending: Pending
    bases: tuple[bytes | None, ...]
    """The message each edit so far was made on (None: it changed nothing)."""


class State(NamedTuple):
    swarm: tuple[bytes, ...]
    """Sorted."""
    members: tuple[Member, ...]
    knowledge: tuple[tuple[bytes, int, int, int], ...]
    """(message, known, safe, depth) of every message created so far, sorted."""


class Action(NamedTuple):
    """An event of the campaign, with a partial view as the set of swarm messages it shows."""

    kind: str
    client: int
    view: frozenset[bytes] | None = None
    """For `sync`: None for the full view, else the messages of a partial view."""


CONFLICT, MERGE_OF_MERGES, LOSS = "conflict", "merge-of-merges", "loss-beyond-window"
SOMETIMES = {
    CONFLICT: "a merge of two or more inputs the ignore rules kept (D14)",
    MERGE_OF_MERGES: "a merge with an input that is itself a merge",
    LOSS: "an update lost beyond the lag window (dropped or overwritten), as P4 allows",
}
"""What the search must reach for a pass to mean something."""


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


@dataclass
class Model:
    """States and transitions of one scenario, on one engine (merges and edits cached)."""

    scenario: Scenario
    mutant: str | None = None
    symmetric: bool = False
    """Clients run identical scripts: states equal up to renaming clients are one state."""
    engine: Engine = field(init=False)
    ids: dict[bytes, bytes] = field(default_factory=dict)
    oracles: dict[
        tuple[tuple[bytes | None, ...], ...], tuple[dict[int, Update], dict[tuple[int, bytes], int]]
    ] = field(default_factory=dict)

    settled: dict[tuple[bytes, int], tuple[tuple[str, ...], bool]] = field(default_factory=dict)
    judged: dict[bytes, Judgement] = field(default_factory=dict)
    """Judgements by the fingerprint of the flushed state (without symmetry)."""
    codes: dict[object, bytes] = field(default_factory=dict)
    entry_codes: dict[tuple[bytes, int, int, int], bytes] = field(default_factory=dict)
    by_identity: dict[int, tuple[object, bytes]] = field(default_factory=dict)
    knowledge: dict[tuple[tuple[bytes, int, int, int], ...], dict[bytes, Knowledge]] = field(
        default_factory=dict
    )

    def __post_init__(self) -> None:
        clients = self.scenario.clients
        # Compared, not hashed: an edit's value may be a set or a dict
        if self.symmetric and any(client != clients[0] for client in clients):
            raise ValueError("symmetry needs clients with identical scripts")
        primary, checker = choose(self.mutant)
        self.engine = Engine(self.scenario, primary, checker)
        count = len(self.scenario.clients)
        self.orders = (
            list(itertools.permutations(range(count)))
            if self.symmetric
            else [tuple((start + i) % count for i in range(count)) for start in range(count)]
        )
        self.permutations = list(itertools.permutations(range(count)))
        self.batches = [len(client.batches) for client in self.scenario.clients]
        self.distinct_scripts = all(
            first.batches != second.batches for first, second in itertools.combinations(clients, 2)
        )

    # The encoding -------------------------------------------------------------------------

    def message_id(self, message: bytes) -> bytes:
        found = self.ids.get(message)
        if found is None:
            found = self.ids[message] = hashlib.blake2b(message, digest_size=16).digest()
        return found

    def encode(self, state: State) -> bytes:
        """The canonical encoding: message ids (BLAKE2b-128 of the bytes) and integers, in
        the state's order. Its parts are cached: the swarm and each member by value, the
        knowledge (the longest part, which most steps leave as it was) by the identity of its
        tuple, kept alive with its code so that the identity stays its own."""
        codes = self.codes
        swarm = codes.get(state.swarm)
        if swarm is None:
            swarm = codes[state.swarm] = self.swarm_code(state.swarm)
        parts = [swarm]
        for member in state.members:
            code = codes.get(member)
            if code is None:
                code = codes[member] = self.member_code(member)
            parts.append(code)
        if len(codes) > CACHE_LIMIT:
            codes.clear()
        knowledge = state.knowledge
        found = self.by_identity.get(id(knowledge))
        if found is not None and found[0] is knowledge:
            parts.append(found[1])
        else:
            code = self.knowledge_code(knowledge)
            if len(self.by_identity) > IDENTITY_CACHE_LIMIT:
                self.by_identity.clear()
            self.by_identity[id(knowledge)] = (knowledge, code)
            parts.append(code)
        return b"".join(parts)

    def swarm_code(self, swarm: tuple[bytes, ...]) -> bytes:
        return b"%d:" % len(swarm) + b"".join(map(self.message_id, swarm))

    def knowledge_code(self, knowledge: tuple[tuple[bytes, int, int, int], ...]) -> bytes:
        codes = self.entry_codes
        parts = []
        for entry in knowledge:
            code = codes.get(entry)
            if code is None:
                message, known, safe, depth = entry
                code = codes[entry] = self.message_id(message) + b"%x,%x,%x;" % (
                    known,
                    safe,
                    depth,
                )
            parts.append(code)
        if len(codes) > CACHE_LIMIT:
            codes.clear()
        return b"".join(parts)

    def member_code(self, member: Member) -> bytes:
        mid = self.message_id
        parts = [mid(member.current), b"%d%d:" % (member.online, len(member.pending))]
        for message, obsolete in member.pending:
            parts.append(mid(message))
            parts.append(b"".join(sorted(map(mid, obsolete))) + b"/")
        parts.append(b"%d:" % len(member.bases))
        parts.extend(b"-" if base is None else mid(base) for base in member.bases)
        return b"".join(parts)

    def fingerprint(self, state: State) -> bytes:
        """The state's 128-bit fingerprint (BLAKE2b of its canonical encoding)."""
        return hashlib.blake2b(self.encode(state), digest_size=16).digest()

    # Symmetry -----------------------------------------------------------------------------

    def renamed(self, state: State, order: tuple[int, ...]) -> State:
        """The state with client `order[i]` renamed `i` (identical scripts only): the members
        are reordered and the oracle's update bits with them."""
        members = tuple(state.members[old] for old in order)
        moved = self.bit_moves(order)
        knowledge = tuple(
            (message, remap(known, moved), remap(safe, moved), depth)
            for message, known, safe, depth in state.knowledge
        )
        return State(state.swarm, members, knowledge)

    def bit_moves(self, order: tuple[int, ...]) -> list[tuple[int, int]]:
        bits = self.engine.bits
        return [
            (bits[(old, batch)], bits[(new, batch)])
            for new, old in enumerate(order)
            for batch in range(self.batches[old])
        ]

    def canonical(self, state: State) -> tuple[State, tuple[int, ...]]:
        """The representative of the state's class (the least encoding over renamings), and
        the renaming that gives it; the state itself without `symmetric`."""
        if not self.symmetric:
            return state, tuple(range(len(state.members)))
        best = None
        for order in self.permutations:
            candidate = self.renamed(state, order)
            code = self.encode(candidate)
            if best is None or code < best[0]:
                best = (code, candidate, order)
        assert best is not None
        return best[1], best[2]

    # States and runs ----------------------------------------------------------------------

    def initial(self) -> State:
        base = self.engine.base
        count = len(self.scenario.clients)
        member = Member(base, True, (), ())
        swarm = tuple(sorted((base, *self.scenario.blobs)))
        return State(swarm, (member,) * count, ((base, 1, 1, 0),))

    def oracle(self, state: State) -> tuple[dict[int, Update], dict[tuple[int, bytes], int]]:
        """The Run's `updates` and `bits_of` for the edits the state's clients made."""
        key = tuple(member.bases for member in state.members)
        found = self.oracles.get(key)
        if found is None:
            engine = self.engine
            updates = {1: engine.base_update}
            bits_of = {engine.base_update.rank: 1}
            for client, bases in enumerate(key):
                for batch, base in enumerate(bases):
                    if base is None:
                        continue
                    info = engine.info(engine.edit(base, client, batch).message)
                    assert info is not None
                    update = engine.update(base, client, batch, info.rank)
                    updates[update.bit] = update
                    bits_of[update.rank] = bits_of.get(update.rank, 0) | update.bit
            found = self.oracles[key] = (updates, bits_of)
        return found

    def run_of(self, state: State) -> Learning:
        """A campaign run standing in `state` (the swarm in sorted order)."""
        run = Learning.__new__(Learning)
        run.engine = self.engine
        run.swarm = dict.fromkeys(state.swarm)
        run.held = state.swarm
        run.history = [state.swarm]
        run.signer = [True] * len(state.members)
        run.batches = self.batches
        run.current = [member.current for member in state.members]
        run.online = [member.online for member in state.members]
        run.pending = [list(member.pending) for member in state.members]
        run.next_batch = [len(member.bases) for member in state.members]
        knowledge = self.knowledge.get(state.knowledge)
        if knowledge is None:
            if len(self.knowledge) > CACHE_LIMIT:
                self.knowledge.clear()
            knowledge = self.knowledge[state.knowledge] = {
                m: Knowledge(k, s, d) for m, k, s, d in state.knowledge
            }
        # Run.learn replaces a message's Knowledge, never changes one: a shallow copy will do
        run.knowledge = dict(knowledge)
        run.learned = set()
        updates, bits_of = self.oracle(state)
        run.updates = dict(updates)
        run.bits_of = dict(bits_of)
        run.outcome = Outcome()
        run.seen = set()
        return run

    def state_of(self, run: Learning, before: State, changed: int | None) -> State:
        """The state `run` stands in after an action of client `changed` (None: of any)
        from `before`."""
        members = list(before.members)
        for client, member in enumerate(members):
            if changed is not None and client != changed:
                continue
            bases = member.bases
            if len(bases) < run.next_batch[client]:
                # The client made an edit: on its current message, if it changed anything
                base = member.current
                bases = (*bases, base if run.current[client] != base else None)
            members[client] = Member(
                run.current[client], run.online[client], tuple(run.pending[client]), bases
            )
        knowledge = before.knowledge
        if run.learned:
            # The entries stay sorted by message: replace or insert the ones learned
            entries = list(knowledge)
            for message in run.learned:
                k = run.knowledge[message]
                entry = (message, k.known, k.safe, k.depth)
                at = bisect.bisect_left(entries, (message,))
                if at < len(entries) and entries[at][0] == message:
                    entries[at] = entry
                else:
                    entries.insert(at, entry)
            knowledge = tuple(entries)
        swarm = tuple(sorted(run.swarm))
        return State(before.swarm if swarm == before.swarm else swarm, tuple(members), knowledge)

    # Actions ------------------------------------------------------------------------------

    def actions(self, state: State) -> Iterator[Action]:
        """Every action that can change `state`, in a fixed order."""
        for client, member in enumerate(state.members):
            if len(member.bases) < self.batches[client]:
                yield Action("edit", client)
            if member.online:
                yield Action("sync", client)
                if len(state.swarm) <= MAX_PICK_POSITIONS:
                    yield from self.partial_syncs(state, client)
                yield Action("offline", client)
            else:
                yield Action("online", client)

    def partial_syncs(self, state: State, client: int) -> Iterator[Action]:
        """Syncs through each proper non-empty subset of the swarm, one per distinct set of
        merge inputs."""
        swarm = state.swarm
        current = state.members[client].current
        full = frozenset((*swarm, current))
        seen = {full, frozenset((current,))}
        for pick in range(1, (1 << len(swarm)) - 1):
            view = frozenset(m for i, m in enumerate(swarm) if pick >> i & 1)
            inputs = view | {current}
            if inputs not in seen:
                seen.add(inputs)
                yield Action("sync", client, view)

    def step(self, state: State, action: Action) -> Transition[State] | None:
        """The successor of `state` under `action` (canonical), or None when nothing
        changes. Going offline, coming back with nothing queued and a sync whose merge is no
        new message and deletes nothing the swarm holds only change the client's own part: they
        are taken without a campaign run (what `Run.toggle` and `Run.sync` do then); everything
        else runs `Run`."""
        witnesses: list[str] = []
        client = action.client
        member = state.members[client]
        violations: tuple[str, ...] = ()
        successor = None
        if action.kind == "offline" or (action.kind == "online" and not member.pending):
            successor = self.with_member(
                state,
                client,
                Member(member.current, not member.online, member.pending, member.bases),
            )
        elif action.kind == "sync":
            view = state.swarm if action.view is None else action.view
            merged = self.engine.merge(frozenset((*view, member.current)), True)
            if not merged.new and merged.obsolete.isdisjoint(state.swarm):
                # The client takes the message the merge kept; nothing is pushed, deleted
                # (what the delete rule makes obsolete is gone already) or learned
                successor = self.with_member(
                    state,
                    client,
                    Member(merged.message, member.online, member.pending, member.bases),
                )
                violations = tuple(dict.fromkeys(merged.violations))
            else:
                if len(merged.remaining) >= 2:
                    witnesses.append(CONFLICT)
                if any(entry[3] > 0 for entry in state.knowledge if entry[0] in merged.remaining):
                    witnesses.append(MERGE_OF_MERGES)
        if successor is None:
            run = self.run_of(state)
            if action.kind == "edit":
                run.edit(client)
            elif action.kind == "sync":
                self.sync(run, client, state.swarm if action.view is None else action.view)
            else:
                run.toggle(client, True)
            successor = self.state_of(run, state, client)
            violations = tuple(run.outcome.violations)
        if successor == state:
            return None
        if not self.symmetric:
            return Transition(successor, violations, tuple(witnesses))
        canonical, renaming = self.canonical(successor)
        return Transition(canonical, violations, tuple(witnesses), renaming)

    @staticmethod
    def with_member(state: State, client: int, member: Member) -> State:
        members = state.members
        return State(
            state.swarm, (*members[:client], member, *members[client + 1 :]), state.knowledge
        )

    def independent(self, state: State, first: Action, second: Action) -> bool:
        """Actions of two clients commute when one of them only changes its own client: going
        offline, coming back with nothing queued, or (distinct scripts) an edit made offline,
        which only queues its push."""
        return first.client != second.client and (
            self.local(state, first) or self.local(state, second)
        )

    def local(self, state: State, action: Action) -> bool:
        member = state.members[action.client]
        if action.kind == "offline":
            return True
        if action.kind == "online":
            return not member.pending
        # Equal scripts may make equal messages, whose knowledge two clients then share
        return action.kind == "edit" and not member.online and self.distinct_scripts

    def relabel(self, action: Action, renaming: tuple[int, ...]) -> Action:
        return action._replace(client=renaming.index(action.client))

    def sync(self, run: Run, client: int, view: tuple[bytes, ...] | frozenset[bytes]) -> None:
        """`Run.sync` with the view given as messages rather than a mode and pick."""
        held = run.held
        if len(view) == len(held):
            run.sync(client, "full", 0)
        else:
            pick = sum(1 << i for i, message in enumerate(held) if message in view)
            run.sync(client, "partial", pick)

    # Judging ------------------------------------------------------------------------------

    def judge(self, state: State) -> Judgement:
        """Quiescence from `state` in every order: P5, then P1 and P4 (the first order that
        fails, see `failing_order`). Without symmetry every order is a rotation and the
        settle starts from the flushed state, so the judgement is the flushed state's: it is
        memoized by its fingerprint."""
        if self.symmetric:
            return self.judgement(state, None, None)
        flushed = self.flushed(state)
        key = self.fingerprint(flushed)
        found = self.judged.get(key)
        if found is None:
            if len(self.judged) > CACHE_LIMIT:
                self.judged.clear()
            found = self.judged[key] = self.judgement(state, flushed, key)
        return found

    def judgement(self, state: State, flushed: State | None, key: bytes | None) -> Judgement:
        lost = False
        for order in self.orders:
            violations, lost_here = self.quiescence(state, order, flushed, key)
            lost = lost or lost_here
            if violations:
                return Judgement(violations, (LOSS,) if lost else ())
        return Judgement((), (LOSS,) if lost else ())

    def failing_order(self, state: State) -> tuple[int, ...]:
        """The first quiescence order in which `state` fails (the first order when none)."""
        for order in self.orders:
            if self.quiescence(state, order)[0]:
                return order
        return self.orders[0]

    def flushed(self, state: State) -> State:
        """The state with every client back online, its queued pushes flushed in client
        order (how a settle starts)."""
        if all(member.online and not member.pending for member in state.members):
            return state
        run = self.run_of(state)
        for client in range(len(state.members)):
            run.toggle(client, True)
        return self.state_of(run, state, None)

    def quiescence(
        self,
        state: State,
        order: tuple[int, ...],
        flushed: State | None = None,
        fingerprint: bytes | None = None,
    ) -> tuple[tuple[str, ...], bool]:
        """The violations of settling from `state` in `order` (every client back online, its
        queued pushes flushed, then full rounds), and whether an update was lost beyond the
        window. Memoized by the flushed state: states that differ only in online flags share
        their quiescence. `flushed`: the flushed state and its `fingerprint`, when known."""
        rotation = order[0]
        if not is_rotation(order):
            # Rename the clients so that the order is 0, 1, ...: the settle loop only rotates
            state, rotation, flushed = self.renamed(state, order), 0, None
        if flushed is None:
            flushed = self.flushed(state)
            fingerprint = None
        key = (fingerprint or self.fingerprint(flushed), rotation)
        found = self.settled.get(key)
        if found is None:
            run = self.run_of(flushed)
            if not run.settle(rotation):
                run.note(["P5 no quiescence within the round bound"])
            else:
                run.check_final()
            outcome = run.outcome
            lost = outcome.lost_dropped + outcome.lost_overwritten > 0
            if len(self.settled) > CACHE_LIMIT:
                self.settled.clear()
            found = self.settled[key] = (tuple(outcome.violations), lost)
        return found


class Learning(Run):
    """A campaign run that notes the messages whose knowledge changed."""

    learned: set[bytes]

    def learn(self, message: bytes, knowledge: Knowledge) -> None:
        self.learned.add(message)
        super().learn(message, knowledge)


def is_rotation(order: tuple[int, ...]) -> bool:
    count = len(order)
    return all(order[i] == (order[0] + i) % count for i in range(count))


def remap(mask: int, moves: list[tuple[int, int]]) -> int:
    """`mask` with each bit `old` moved to `new` (bit 0, the starting message, stays)."""
    result = mask & 1
    for old, new in moves:
        if mask & old:
            result |= new
    return result
