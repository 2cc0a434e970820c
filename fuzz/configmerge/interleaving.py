"""One interleaving of a world's clients through a swarm, then the lockstep rounds and the
judgement: the walk a campaign takes and the state the checker searches.

The swarm stores blobs by hash and deletes only what a push names (D31). A schedule's events
are an app's steps: `edit` (the client's next batch), `sync` (poll a full, partial or stale
view and merge it), `push` (a client that needs a push sends it, confirmed at once),
`offline` and `online` (an offline client neither polls nor pushes). Then every client comes
back online and the swarm settles in lockstep rounds: every client polls one snapshot, then
each that needs a push pushes, in rotation order, until a round pushes nothing.

Judged here, besides what the world judges at each step (P2, P3, P6):
- P1: the swarm's current messages collapse to one, whose data every client holds;
- P4: no update is lost inside the lag window: what every message knows, and knows safely, is
  followed through the clients' edits and merges as they really happen (dirty clients edit
  in place, merges push only when the client pushes) and the final data checked (`oracle`);
- P5: the lockstep rounds quiesce within clients + MAX_EXTRA_ROUNDS;
- P7: no client deletes a message it cannot parse (a later version's message stays, D27).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .edits import Data
from .oracle import ABSENT, UNKNOWN, Update, Verdict, check_survival, wiped_of, writes_of
from .schedule import Event, Schedule
from .swarm_client import AdapterError
from .world import Key, Step, World

MAX_EXTRA_ROUNDS = 3
"""Quiescence must come within (clients + this) lockstep rounds (P5)."""


@dataclass(frozen=True)
class Knowledge:
    """Bitmasks of the updates a message knows, and knows safely (see `oracle`)."""

    known: int
    safe: int
    depth: int


@dataclass
class Outcome:
    """The result of one case: its violations and what the report plots."""

    violations: list[str] = field(default_factory=list)
    events: int = 0
    merges: int = 0
    max_width: int = 0
    max_depth: int = 0
    rounds: int = 0
    lost_dropped: int = 0
    lost_overwritten: int = 0
    checked: int = 0
    acceptable: list[str] = field(default_factory=list)
    """Findings a declared quirk of a client's behaviour explains, each led by the quirk (a
    deployed client deleting a later version's message: X12): reported, not failures."""

    @property
    def properties(self) -> list[str]:
        return sorted({violation.split(" ", 1)[0] for violation in self.violations})


@dataclass
class Ledger:
    """What the P4 oracle follows: the updates made so far, what each message knows, and the
    update a dirty client's message is accumulating (an edit of a dirty client changes its
    unpushed message in place: one update, re-ranked with each edit)."""

    knowledge: dict[bytes, Knowledge]
    updates: dict[int, Update] = field(default_factory=dict)
    bits_of: dict[tuple[int, bytes], int] = field(default_factory=dict)
    episodes: dict[bytes, tuple[int, bytes]] = field(default_factory=dict)
    """A dirty message made by edits: (its update's bit, the message the edits started on)."""
    resolutions: dict[bytes, int] = field(default_factory=dict)
    """A conflict resolution that lists every data key in `=` (D30's `libsession` push, X17),
    or a message edits made on one: the bit of the update its `=` replays."""
    superseded: set[int] = field(default_factory=set)
    """Updates of unpushed messages a later edit changed in place (not dropped: replaced)."""
    expressed: dict[int, Update] = field(default_factory=dict)
    """An update as its message's `=` replays it, where that is less than the edit made: edits
    of an every-key resolution are listed from empty data, so their removals are not (X17)."""

    def copy(self) -> Ledger:
        return Ledger(
            dict(self.knowledge),
            dict(self.updates),
            dict(self.bits_of),
            dict(self.episodes),
            dict(self.resolutions),
            set(self.superseded),
            dict(self.expressed),
        )

    def rank(self, bit: int, update: Update) -> None:
        """Record `update` as the update of `bit`, at its rank."""
        self.updates[bit] = update
        self.bits_of[update.rank] = self.bits_of.get(update.rank, 0) | bit


class Interleaving:
    """One interleaving of a world's clients."""

    def __init__(self, world: World) -> None:
        self.world = world
        scenario = world.scenario
        count = len(scenario.clients)
        messages = world.messages
        base = messages.base
        self.swarm: dict[bytes, bytes] = dict(world.starting_swarm)
        self.history: list[tuple[bytes, ...]] = [tuple(self.swarm.values())]
        self.clients = [world.start(client) for client in range(count)]
        self.online = [True] * count
        self.next_batch = [0] * count
        self.batches = [len(client.batches) for client in scenario.clients]
        base_update = messages.base_update
        self.ledger = Ledger({base: Knowledge(1, 1, 0)}, {1: base_update}, {base_update.rank: 1})
        self.outcome = Outcome()
        self.seen: set[str] = set()

    def held(self) -> tuple[bytes, ...]:
        """The swarm's blobs in the order it stores them: the last entry of the history, which
        every push appends to."""
        return self.history[-1]

    def noted(self, step: Step) -> Step:
        """A step's violations noted, and the findings its quirks explain."""
        if step.violations:
            self.note(step.violations)
        if step.acceptable:
            self.outcome.acceptable.extend(step.acceptable)
        return step

    def note(self, violations: tuple[str, ...] | list[str]) -> None:
        for violation in violations:
            if violation not in self.seen:
                self.seen.add(violation)
                self.outcome.violations.append(violation)

    def view(self, mode: str, pick: int) -> tuple[bytes, ...]:
        held = self.held()
        if mode == "full":
            return held
        if mode == "partial":
            return tuple(message for i, message in enumerate(held) if pick >> (i % 6) & 1)
        return self.history[max(0, len(self.history) - 1 - pick % 8)]

    # The events -----------------------------------------------------------------------------

    def edit(self, client: int) -> None:
        batch = self.next_batch[client]
        if batch >= self.batches[client]:
            return
        self.next_batch[client] += 1
        before = self.clients[client]
        step = self.noted(self.world.edit(before, client, batch))
        after = self.clients[client] = step.key
        if after.message != before.message:
            self.learn_edit(before, after, client, batch)

    def sync(self, client: int, view: tuple[bytes, ...]) -> None:
        if not self.online[client]:
            return
        step = self.noted(self.world.poll(self.clients[client], view))
        self.clients[client] = step.key
        if step.merged is not None:
            self.learn_merge(step.key, step.merged)

    def push(self, client: int) -> bool:
        """The client pushes if it needs to and is online: the swarm stores the message and
        deletes the hashes it names (D31); True when it pushed."""
        if not self.online[client]:
            return False
        step = self.noted(self.world.push(self.clients[client]))
        key = self.clients[client] = step.key
        pushed = step.pushed
        if pushed is None:
            return False
        for digest in pushed.deleted:
            blob = self.swarm.pop(digest, None)
            if blob is not None and not self.world.parses(blob):
                finding = (
                    f"P7 client {client} ({key.behaviour}) deleted a message it cannot parse "
                    f"({blob[:24]!r})"
                )
                if self.world.declares(key.behaviour, "X12"):
                    self.outcome.acceptable.append(f"X12 {finding}")
                else:
                    self.note([finding])
        self.swarm[pushed.hash] = pushed.message
        self.history.append(tuple(self.swarm.values()))
        return True

    def toggle(self, client: int, online: bool) -> None:
        self.online[client] = online

    def apply(self, event: Event) -> None:
        if event.kind == "edit":
            self.edit(event.client)
        elif event.kind == "sync":
            self.sync(event.client, self.view(event.mode, event.pick))
        elif event.kind == "push":
            self.push(event.client)
        else:
            self.toggle(event.client, event.kind == "online")

    # What messages know (P4) ----------------------------------------------------------------

    def learn_edit(self, before: Key, after: Key, client: int, batch: int) -> None:
        """An edit's update. A clean client's edit starts on its message; a dirty client's edit
        of a message edits made changes that unpushed message in place, so its update is the
        whole change since the edits started, at the edited message's rank, and supersedes the
        update of the message it changed (which only a merge on the way can still carry)."""
        ledger = self.ledger
        messages = self.world.messages
        episode = ledger.episodes.get(before.message) if before.state == "dirty" else None
        start = before.message if episode is None else episode[1]
        if episode is not None:
            ledger.superseded.add(episode[0])
        after_info = messages.info(after.message)
        if after_info is None:
            return
        bit = messages.bits[(client, batch)]
        ledger.rank(bit, self.world.update(bit, start, after.message))
        ledger.episodes[after.message] = (bit, start)
        known = ledger.knowledge.get(start, Knowledge(0, 0, 0))
        knows, safe = known.known | bit, known.safe | bit
        # Edits of the resolution itself, never pushed: no increment came between them
        start_info = messages.info(start)
        in_place = start_info is not None and start_info.seqno == after_info.seqno
        resolution = ledger.resolutions.get(start) if in_place else None
        if resolution is not None:
            # The resolution's `=` is pushed with the edits: every key of the edited data, and
            # none of what the edits removed. The message's own data shows a removal, a later
            # merge replaying its `=` does not: the oracle leaves the removed atoms unknown
            knows, safe = knows & ~resolution, safe & ~resolution
            old, new = self.world.pruned(start), self.world.pruned(after.message)
            added = self.resolution_update(after.message, after_info.rank, new)
            knows, safe = knows | added, safe | added
            written = {
                atom: UNKNOWN if value is ABSENT else value
                for atom, value in writes_of(old, new).items()
            }
            wiped = wiped_of(old, new)
            ledger.expressed[bit] = Update(bit, after_info.rank, written, wiped, uncertain=True)
        self.learn(after.message, Knowledge(knows, safe, known.depth))

    def resolution_update(self, message: bytes, rank: tuple[int, bytes], data: Data) -> int:
        """The update a message listing every data key in `=` replays: all of its data."""
        bit = self.world.resolution_bit(message)
        self.ledger.rank(bit, Update(bit, rank, writes_of({}, data)))
        self.ledger.resolutions[message] = bit
        return bit

    def learn_merge(self, after: Key, remaining: tuple[bytes, ...]) -> None:
        """A poll that made a new message from the inputs the ignore rules kept (D14; one
        that adopted a stored message learns nothing: that message is known already)."""
        messages = self.world.messages
        self.outcome.merges += 1
        self.outcome.max_width = max(self.outcome.max_width, len(remaining))
        knowledge = self.merged_knowledge(remaining)
        info = messages.info(after.message)
        if info is not None and after.message in self.world.every_key:
            bit = self.resolution_update(after.message, info.rank, self.world.pruned(after.message))
            knowledge = Knowledge(knowledge.known | bit, knowledge.safe | bit, knowledge.depth)
        self.learn(after.message, knowledge)

    def merged_knowledge(self, remaining: tuple[bytes, ...]) -> Knowledge:
        known, safe_everywhere, carried, depth = 0, -1, 0, 0
        ledger = self.ledger
        for message in remaining:
            k = ledger.knowledge.get(message, Knowledge(0, 0, 0))
            info = self.world.messages.info(message)
            assert info is not None
            known |= k.known
            safe_everywhere &= k.safe
            depth = max(depth, k.depth)
            for rank in info.carried:
                carried |= ledger.bits_of.get(rank, 0) & k.safe
        return Knowledge(known, (safe_everywhere & known) | carried, depth + 1)

    def learn(self, message: bytes, knowledge: Knowledge) -> None:
        old = self.ledger.knowledge.get(message)
        if old is not None:
            knowledge = Knowledge(
                old.known | knowledge.known,
                old.safe & knowledge.safe,
                max(old.depth, knowledge.depth),
            )
        self.ledger.knowledge[message] = knowledge
        self.outcome.max_depth = max(self.outcome.max_depth, knowledge.depth)

    # Settling and judging -------------------------------------------------------------------

    def settle(self, rotation: int) -> bool:
        """Everyone online, then lockstep rounds until one pushes nothing; False if none does
        within the bound."""
        count = len(self.clients)
        self.online = [True] * count
        order = [(rotation + i) % count for i in range(count)]
        for _ in range(count + MAX_EXTRA_ROUNDS):
            self.outcome.rounds += 1
            snapshot = self.held()
            for client in order:
                self.sync(client, snapshot)
            pushed = [self.push(client) for client in order]
            if not any(pushed):
                return True
        return False

    def settle_and_judge(self, rotation: int) -> None:
        """Lockstep rounds from client `rotation` on, then P5, or P1 and P4."""
        if self.settle(rotation):
            self.check_final()
        else:
            self.note([self.unsettled()])

    def current_messages(self) -> tuple[bytes, ...]:
        return self.world.current(self.held())

    def check_final(self) -> None:
        """P1: the swarm's current messages collapse to one, whose data every client holds (a
        client may hold it in a message of its own, such as an adopted message incremented);
        then P4 on that message."""
        current = self.current_messages()
        if len(current) != 1:
            self.note([f"P1 the swarm holds {len(current)} current messages, not one"])
            return
        info = self.world.messages.info
        final = info(current[0])
        assert final is not None
        for client, key in enumerate(self.clients):
            held = info(key.message)
            if held is None or held.data != final.data:
                self.note([f"P1 client {client} ({key.behaviour}) holds other data than the swarm"])
        self.check_survival(current[0])

    def check_survival(self, message: bytes) -> None:
        """P4 on the final message: every update it knows safely shows (see `oracle`). A
        conflict resolution listing every key in `=` replays them all (X17), which reverts a
        concurrent update ranked below it: the oracle counts such a resolution as an update of
        its data, and the writes it reverts are findings X17 explains."""
        info = self.world.messages.info(message)
        knowledge = self.ledger.knowledge.get(message)
        if info is None or knowledge is None:
            return
        updates = self.ledger.updates
        known = [update for update in updates.values() if update.bit & knowledge.known]
        expressed = self.ledger.expressed
        replayed = [expressed.get(update.bit, update) for update in known]
        verdict = self.verdict(message, info.data, replayed, knowledge.safe, True)
        self.note(list(verdict.violations))
        resolutions = set(self.ledger.resolutions.values())
        if resolutions & {update.bit for update in known}:
            edits = [update for update in known if update.bit not in resolutions]
            expected = self.verdict(message, info.data, edits, knowledge.safe, False)
            reverted = set(expected.violations) - set(verdict.violations)
            self.outcome.acceptable.extend(f"X17 {finding}" for finding in sorted(reverted))
        self.outcome.checked = verdict.checked
        self.outcome.lost_overwritten = len(verdict.lost)
        replaced = self.ledger.superseded | set(self.ledger.resolutions.values())
        self.outcome.lost_dropped = sum(
            1 for bit in updates if bit != 1 and bit not in replaced and not bit & knowledge.known
        )

    def verdict(
        self, message: bytes, data: Data, known: list[Update], safe: int, replayed: bool
    ) -> Verdict:
        """P4's verdict on `message` (once per world): `replayed`, of the updates as their
        messages' `=` replay them (`Ledger.expressed`), else as their edits made them."""
        verdicts = self.world.verdicts
        key = (message, safe, replayed, tuple((update.bit, update.rank) for update in known))
        found = verdicts.get(key)
        if found is None:
            found = verdicts[key] = check_survival(data, known, safe)
        return found

    def unsettled(self) -> str:
        """What the last round left: the race P5 reports."""
        current = self.current_messages()
        seqnos = sorted({info.seqno for m in current if (info := self.world.messages.info(m))})
        return (
            f"P5 no quiescence within {self.outcome.rounds} lockstep rounds: the last left "
            f"{len(current)} current messages (seqno {', '.join(map(str, seqnos))})"
        )


def play(world: World, schedule: Schedule) -> Outcome:
    """Play `schedule` on the world's clients, settle in lockstep rounds, judge P1-P7."""
    outcome = Outcome(events=len(schedule.events))
    try:
        run = Interleaving(world)
        run.outcome = outcome
        for event in schedule.events:
            run.apply(event)
        run.settle_and_judge(schedule.rotation)
    except AdapterError as error:
        (outcome.violations if error.quirk is None else outcome.acceptable).append(error.finding)
    return outcome
