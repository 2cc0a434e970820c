"""Run one interleaving: clients, a de-duplicating swarm, then quiescence and the checks.

The swarm stores each distinct message once and applies a client's batch "push the new message
and delete the ones it obsoletes" atomically. What a push deletes is what the engine's delete
rule says (D27): after an edit, the message edited; after a merge, every input that parses but
a single survivor of the ignore rules, also when the merge keeps that survivor and pushes
nothing. Inputs that do not parse stay, such as the scenario's unparseable blobs, and are never
current messages. After the schedule's events every client comes back online and syncs fully,
round after round, until a round changes nothing (P5 bounds the rounds). Then P1 (every client
holds the same bytes and the swarm's current messages collapse to that one) and P4 (see
`oracle`) are checked; P2, P3 and P6 come from the engine's checks of each operation the run
used.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .engine import Engine
from .oracle import Update, check_survival
from .schedule import Event, Schedule

MAX_EXTRA_ROUNDS = 3
"""Quiescence must come within (clients + this) full rounds (P5)."""


@dataclass
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
    swarm's deployed clients: X12): reported, not failures."""

    @property
    def properties(self) -> list[str]:
        return sorted({violation.split(" ", 1)[0] for violation in self.violations})


class Run:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        scenario = engine.scenario
        count = len(scenario.clients)
        base = engine.base
        self.swarm: dict[bytes, None] = dict.fromkeys((base, *scenario.blobs))
        self.held: tuple[bytes, ...] = tuple(self.swarm)
        """The swarm's messages in order, as a tuple (remade only when the swarm changes)."""
        self.history: list[tuple[bytes, ...]] = [self.held]
        self.signer = [client.signer for client in scenario.clients]
        self.batches = [len(client.batches) for client in scenario.clients]
        self.current = [base] * count
        self.online = [True] * count
        self.pending: list[list[tuple[bytes, frozenset[bytes]]]] = [[] for _ in range(count)]
        self.next_batch = [0] * count
        self.knowledge = {base: Knowledge(1, 1, 0)}
        self.updates: dict[int, Update] = {1: engine.base_update}
        self.bits_of: dict[tuple[int, bytes], int] = {engine.base_update.rank: 1}
        """The bits of the updates published so far, by rank."""
        self.outcome = Outcome()
        self.seen: set[str] = set()

    def note(self, violations: tuple[str, ...] | list[str]) -> None:
        for violation in violations:
            if violation not in self.seen:
                self.seen.add(violation)
                self.outcome.violations.append(violation)

    def push(self, client: int, message: bytes, obsolete: frozenset[bytes]) -> bool:
        """Publish (or queue, offline); True when the swarm changed."""
        if not self.online[client]:
            self.pending[client].append((message, obsolete))
            return False
        changed = self.remove(client, obsolete)
        if changed or message not in self.swarm:
            self.swarm[message] = None
            self.held = tuple(self.swarm)
            changed = True
        self.history.append(self.held)
        return changed

    def remove(self, client: int, obsolete: frozenset[bytes]) -> bool:
        """Delete what `client` says is obsolete; True when the swarm changed."""
        # Deleting from the swarm needs the key too: a forged message deletes nothing
        if not self.signer[client]:
            return False
        changed = False
        for old in obsolete:
            if old in self.swarm:
                del self.swarm[old]
                changed = True
        return changed

    def delete(self, client: int, obsolete: frozenset[bytes]) -> bool:
        """Delete without pushing (a merge that keeps one of its inputs); True when the swarm
        changed."""
        if not self.remove(client, obsolete):
            return False
        self.held = tuple(self.swarm)
        self.history.append(self.held)
        return True

    def view(self, mode: str, pick: int) -> tuple[bytes, ...] | list[bytes]:
        if mode == "full":
            return self.held
        if mode == "partial":
            return [message for i, message in enumerate(self.held) if pick >> (i % 6) & 1]
        return self.history[max(0, len(self.history) - 1 - pick % 8)]

    def edit(self, client: int) -> None:
        batch = self.next_batch[client]
        if batch >= self.batches[client]:
            return
        self.next_batch[client] += 1
        base = self.current[client]
        published = self.engine.edit(base, client, batch)
        self.note(published.violations)
        message = published.message
        if message == base:
            return
        info = self.engine.info(message)
        if info is not None:
            update = self.engine.update(base, client, batch, info.rank)
            bit = update.bit
            self.updates[bit] = update
            self.bits_of[update.rank] = self.bits_of.get(update.rank, 0) | bit
            before = self.knowledge[base]
            self.learn(message, Knowledge(before.known | bit, before.safe | bit, before.depth))
            self.current[client] = message
        self.push(client, message, published.obsolete)

    def sync(self, client: int, mode: str, pick: int) -> bool:
        """Fetch, merge, publish a new merge, delete what the merge obsoletes; True when the
        swarm changed."""
        if not self.online[client]:
            return False
        inputs = frozenset((*self.view(mode, pick), self.current[client]))
        merged = self.engine.merge(inputs, self.signer[client])
        self.note(merged.violations)
        self.current[client] = merged.message
        if not merged.new:
            return self.delete(client, merged.obsolete)
        self.outcome.merges += 1
        self.outcome.max_width = max(self.outcome.max_width, len(merged.remaining))
        self.learn(merged.message, self.merged_knowledge(merged.remaining))
        return self.push(client, merged.message, merged.obsolete)

    def merged_knowledge(self, remaining: tuple[bytes, ...]) -> Knowledge:
        known, safe_everywhere, carried, depth = 0, -1, 0, 0
        for message in remaining:
            k = self.knowledge[message]
            info = self.engine.info(message)
            assert info is not None
            known |= k.known
            safe_everywhere &= k.safe
            depth = max(depth, k.depth)
            for rank in info.carried:
                carried |= self.bits_of.get(rank, 0) & k.safe
        return Knowledge(known, (safe_everywhere & known) | carried, depth + 1)

    def learn(self, message: bytes, knowledge: Knowledge) -> None:
        old = self.knowledge.get(message)
        if old is not None:
            knowledge = Knowledge(
                old.known | knowledge.known,
                old.safe & knowledge.safe,
                max(old.depth, knowledge.depth),
            )
        self.knowledge[message] = knowledge
        self.outcome.max_depth = max(self.outcome.max_depth, knowledge.depth)

    def toggle(self, client: int, online: bool) -> None:
        self.online[client] = online
        if online:
            queued, self.pending[client] = self.pending[client], []
            for message, obsolete in queued:
                self.push(client, message, obsolete)

    def apply(self, event: Event) -> None:
        if event.kind == "edit":
            self.edit(event.client)
        elif event.kind == "sync":
            self.sync(event.client, event.mode, event.pick)
        else:
            self.toggle(event.client, event.kind == "online")

    def settle(self, rotation: int) -> bool:
        """Everyone online, then full rounds until one changes nothing; False if none does."""
        count = len(self.current)
        for client in range(count):
            self.toggle(client, True)
        order = [(rotation + i) % count for i in range(count)]
        for _ in range(count + MAX_EXTRA_ROUNDS):
            self.outcome.rounds += 1
            changed = [self.sync(client, "full", 0) for client in order]
            if not any(changed):
                return True
        return False

    def check_final(self) -> None:
        final = self.current[0]
        if any(message != final for message in self.current):
            self.note(["P1 clients hold different messages after quiescence"])
            return
        current = self.engine.remaining(list(self.swarm))
        if current != (final,):
            self.note([f"P1 the swarm holds {len(current)} current messages, not the final one"])
        info = self.engine.info(final)
        knowledge = self.knowledge.get(final)
        if info is None or knowledge is None:
            self.note(["P1 the final message is not a valid published message"])
            return
        known = [update for update in self.updates.values() if update.bit & knowledge.known]
        key = (final, knowledge.safe, tuple((update.bit, update.rank) for update in known))
        verdict = self.engine.verdicts.get(key)
        if verdict is None:
            verdict = self.engine.verdicts[key] = check_survival(info.data, known, knowledge.safe)
        self.note(list(verdict.violations))
        self.outcome.checked = verdict.checked
        self.outcome.lost_overwritten = len(verdict.lost)
        published = [bit for bit in self.updates if bit != 1]
        self.outcome.lost_dropped = sum(1 for bit in published if not bit & knowledge.known)


def run_case(engine: Engine, schedule: Schedule) -> Outcome:
    """Play `schedule` on `engine`'s scenario and check P1-P6."""
    run = Run(engine)
    for event in schedule.events:
        run.apply(event)
    run.outcome.events = len(schedule.events)
    if not run.settle(schedule.rotation):
        run.note(["P5 no quiescence within the round bound"])
    else:
        run.check_final()
    return run.outcome
