"""A swarm of client-layer clients (D28..D32): each client its own behaviour, deletions only
with pushes, and the lockstep rounds in which racing clients either settle or never stop.

Where the interleavings campaign (`run`) pushes every new message at once and deletes what a
merge obsoletes right after it, here each client is a client object with the state the design
gives it (clean, dirty, waiting; its current message and hash; the hashes to delete), driven
through the same steps an app takes: `edit` changes its data (the first change increments its
message), `sync` polls a view of the swarm and merges it, `push` sends what a client that needs
a push holds, with the hashes it deletes, and is confirmed at once. A client deletes nothing
but with a push, and only the hashes it names.

Behaviours (`BEHAVIOURS`): `spec` and `reference` follow rule 8 (a conflict resolution's `=`
empty), `libsession` is the reference with the `libsession` profile (every data key in `=`, as
the deployed client pushes, D30), `deployed` the emulation of the deployed client's state
machine (X12, X17).

After the schedule, the swarm settles in lockstep rounds (`settle`): every client polls the same
snapshot, then each that needs a push pushes, in rotation order; rounds go on until one pushes
nothing. Two clients that resolve one conflict with different bytes push two messages of one
seqno, a new conflict the next round: P5 catches the race that never ends. Then P1 (every
client holds one message and the swarm collapses to it) and P7 (no client deletes a message it
cannot parse, such as a later major version's, D27) are judged.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any, NamedTuple

from swarmconf.reference.configmerge import client as reference_client
from swarmconf.reference.configmerge import parse as reference_parse
from swarmconf.reference.configmerge.message import ConfigMessage as ReferenceMessage
from swarmconf.spec.configmerge.message import ConfigMessage as SpecMessage
from swarmconf.spec.configmerge.reasons import ConfigError

from .edits import apply_batch
from .engine import Engine
from .impl import choose
from .run import MAX_EXTRA_ROUNDS, Outcome
from .scenario import Scenario
from .schedule import VIEWS, Event, Schedule
from .seeds import derive_rng
from .swarm_client import AdapterError

BEHAVIOURS = {
    "spec": "swarmconf's spec client, profile spec (rule 8: a resolution's `=` is empty)",
    "reference": "swarmconf's reference client, profile spec",
    "libsession": "swarmconf's reference client, profile libsession (every data key in `=`)",
    "deployed": "the emulation of the deployed client's state machine (X12, X17)",
    "client": "a client played through the adapter `--client` names (its `client` operation)",
}
"""The behaviours a swarm's clients may have, by the name `--swarm` takes."""

DECLARED = {"deployed": "X12"}
"""The behaviours whose P7 findings a declared quirk explains: the deployed client reports an
unparseable input as its current message and deletes it with its next push (errata X12)."""

SWARM_PROPERTIES = {
    "P1": "every client ends with the same message, and the swarm collapses to that message",
    "P5": "lockstep rounds (every client polls one snapshot, then pushes) quiesce within the "
    "bound: racing resolutions stop",
    "P7": "no client deletes a message it cannot parse (a later version's message stays, D27)",
    "C2": "a client played through an adapter answers every script it is sent",
}
"""What a swarm of client-layer clients is judged on."""


class Key(NamedTuple):
    """A client's state as the swarm sees it: what decides its future steps."""

    behaviour: str
    signer: bool
    state: str
    message: bytes
    """Its current message, serialized as it would push it."""
    current: bytes | None
    to_delete: frozenset[bytes]


class Pushed(NamedTuple):
    message: bytes
    hash: bytes
    deleted: tuple[bytes, ...]


def swarm_hash(blob: bytes) -> bytes:
    """The hash the swarm stores a blob under: BLAKE2b-256 of its bytes (D1)."""
    return hashlib.blake2b(blob, digest_size=32).digest()


@cache
def deployed_adapter() -> Any:
    from swarmconf.conformance.configmerge.deployed import DeployedAdapter

    return DeployedAdapter()


class Refused(NamedTuple):
    kind: type[ConfigError]
    reason: Any
    detail: str


def adapter_factory(
    command: str, timeout: float
) -> Callable[[int, bytes | None, bytes | None, bytes], Any]:
    """Clients played through the adapter `command` (`swarm_client`), of the `libsession`
    profile when its `hello` lists it, else `spec`."""
    from ..client import pooled
    from .swarm_client import AdapterClient

    profiles = pooled(command, timeout).hello.get("profiles") or ["spec"]
    profile = "libsession" if "libsession" in profiles else "spec"
    shadow = client_factory("libsession" if profile == "libsession" else "reference")

    def made(lag: int, sign: bytes | None, verify: bytes | None, raw: bytes) -> Any:
        request: dict[str, Any] = {"op": "client", "lag": lag, "profile": profile, "msg": raw.hex()}
        if sign is not None:
            request["sign_key"] = sign.hex()
        if verify is not None:
            request["verify_key"] = verify.hex()
        return AdapterClient(command, timeout, request, shadow(lag, sign, verify, raw))

    return made


class Parses:
    """A parser's answers, once per blob: a merge reads its inputs and never changes them,
    so the clients of one swarm share them; a refusal is kept and raised again."""

    def __init__(self, parse: Callable[[bytes, int, bytes | None], Any]) -> None:
        self.parse = parse
        self.found: dict[tuple[bytes, int, bytes | None], Any] = {}

    def __call__(self, raw: bytes, lag: int, verify: bytes | None) -> Any:
        key = (raw, lag, verify)
        found = self.found.get(key)
        if found is None:
            try:
                found = self.found[key] = self.parse(raw, lag, verify)
            except ConfigError as error:
                found = self.found[key] = Refused(type(error), error.reason, error.detail)
        if isinstance(found, Refused):
            # A new error each time: one kept and raised again would hold its tracebacks
            raise found.kind(found.reason, found.detail)
        return found


class ReferenceClient(reference_client.Client):
    """The reference's client, its polled blobs parsed through a swarm's `Parses`."""

    parses: Parses

    def _parsed(self, messages: list[bytes]) -> list[Any]:
        found = []
        for raw in messages:
            with contextlib.suppress(ConfigError):
                found.append(self.parses(raw, self.lag, self.verify_key))
        return found


def client_factory(
    behaviour: str, command: str | None = None, timeout: float = 10.0
) -> Callable[[int, bytes | None, bytes | None, bytes], Any]:
    """A function making a client of `behaviour` from lag, keys and its stored message; the
    clients it makes share their parses. A `client` is played through `command`."""
    if behaviour == "client":
        assert command is not None
        return adapter_factory(command, timeout)
    if behaviour == "spec":
        from swarmconf.spec.configmerge import parse as spec_parse
        from swarmconf.spec.configmerge.client import Client as SpecClient

        def spec_client(lag: int, sign: bytes | None, verify: bytes | None, raw: bytes) -> Any:
            current = spec_parse(raw, lag=lag, verify_key=verify)
            return SpecClient(
                lag=lag, profile="spec", verify_key=verify, sign_key=sign, current=current
            )

        return spec_client
    if behaviour in ("reference", "libsession"):
        profile = "spec" if behaviour == "reference" else "libsession"
        parses = Parses(lambda raw, lag, verify: reference_parse(raw, lag=lag, verify_key=verify))

        def made_reference(lag: int, sign: bytes | None, verify: bytes | None, raw: bytes) -> Any:
            made = ReferenceClient(
                lag=lag,
                profile=profile,
                verify_key=verify,
                sign_key=sign,
                current=parses(raw, lag, verify),
            )
            made.parses = parses
            return made

        return made_reference
    if behaviour != "deployed":
        raise ValueError(f"no behaviour {behaviour!r}; known: {', '.join(BEHAVIOURS)}")
    from swarmconf.conformance.configmerge.deployed_client import DeployedClient

    deployed_parses = Parses(deployed_adapter().parse_message)

    def deployed_client(lag: int, sign: bytes | None, verify: bytes | None, raw: bytes) -> Any:
        def parse(blob: bytes) -> Any:
            return deployed_parses(blob, lag, verify)

        return DeployedClient(
            lag=lag,
            profile="libsession",
            parse=parse,
            verify_key=verify,
            sign_key=sign,
            current=parse(raw),
        )

    return deployed_client


def copied(client: Any) -> Any:
    """A client object of its own: its sets copied, its messages shared (see `World.copy`),
    and the reference client an adapter's client keeps beside it copied the same way."""
    made = copy.copy(client)
    for name in ("to_delete", "old_hashes", "fired"):
        if name in vars(made):
            setattr(made, name, set(getattr(made, name)))
    if "shadow" in vars(made):
        made.shadow = copied(made.shadow)
    return made


def editable_copy(message: Any) -> Any:
    """A copy of an editable message (a dirty client's) that an edit may change in place."""
    if isinstance(message, SpecMessage):
        spec_copy = copy.copy(message)
        spec_copy.data = copy.deepcopy(message.data)
        return spec_copy
    # The reference's message is compiled and cannot be copied by `copy`: the same message made
    # anew from its data at creation, its lagged entries and its signing secret
    copied: Any = ReferenceMessage(
        message.seqno,
        message._bt,
        list(message.lagged),
        lag=message.lag,
        extra=dict(message.extra),
        merged=message.merged,
    )
    copied._sign_secret = message._sign_secret
    copied.data = copy.deepcopy(message.data)
    return copied


@dataclass
class World:
    """One scenario's clients as client objects, with every step memoized: a state (`Key`) is
    kept with one client object standing for it, a step from a state is computed once."""

    scenario: Scenario
    command: str | None = None
    """The adapter command `client` clients are played through."""
    timeout: float = 10.0
    engine: Engine = field(init=False)
    objects: dict[Key, Any] = field(default_factory=dict)
    edits: dict[tuple[Key, int, int], Key] = field(default_factory=dict)
    polls: dict[tuple[Key, tuple[bytes, ...]], Key] = field(default_factory=dict)
    pushes: dict[Key, tuple[Key, Pushed]] = field(default_factory=dict)
    serializations: dict[tuple[int, bytes | None], tuple[Any, bytes]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        behaviours = self.scenario.swarm
        if behaviours is None:
            raise ValueError("a swarm needs a behaviour for every client")
        self.behaviours = behaviours
        primary, _ = choose(None, False)
        self.engine = Engine(self.scenario, primary, None)
        if "client" in behaviours and self.command is None:
            raise ValueError("a swarm with a `client` behaviour needs an adapter command")
        self.factories = {
            name: client_factory(name, self.command, self.timeout) for name in set(behaviours)
        }

    def behaviour(self, client: int) -> str:
        return self.behaviours[client]

    def declares_x12(self, behaviour: str) -> bool:
        """Whether X12 explains a P7 finding of `behaviour`: the emulation's, or an adapter's
        that declares X12 in its `hello`."""
        if behaviour == "client" and self.command is not None:
            from ..client import pooled

            return "X12" in pooled(self.command, self.timeout).quirks
        return behaviour in DECLARED

    def signer(self, client: int) -> bool:
        return self.scenario.clients[client].signer

    def start(self, client: int) -> Key:
        """Client `client` holding the swarm's starting message, clean."""
        engine = self.engine
        signer = self.signer(client)
        behaviour = self.behaviour(client)
        made = self.factories[behaviour](
            self.scenario.lag,
            engine.sign_key if signer else None,
            engine.verify_key,
            engine.base,
        )
        return self.kept(behaviour, signer, made)

    def kept(self, behaviour: str, signer: bool, made: Any) -> Key:
        """The key of a client object, which stands for its key from now on if none does."""
        message = self.serialized(made)
        to_delete = getattr(made, "to_delete", None)
        if to_delete is None:
            to_delete = made.old_hashes
        key = Key(
            behaviour,
            signer,
            made.state.value,
            message,
            made.current_hash,
            frozenset(to_delete),
        )
        self.objects.setdefault(key, made)
        return key

    def serialized(self, made: Any) -> bytes:
        """The client's message as it would push it, once per message object (a step that
        keeps the message shares the object; an edit works on a copy, `editable_copy`)."""
        message = made.message
        if message is None:
            return b""
        key = (id(message), made.sign_key)
        found = self.serializations.get(key)
        if found is None or found[0] is not message:
            # The message is kept alive with its bytes, so that its id stays its own
            found = self.serializations[key] = (
                message,
                bytes(message.serialize(made.sign_key)),
            )
        return found[1]

    def copy(self, key: Key) -> Any:
        """A client in state `key` of its own: the representative's messages are shared (a
        step replaces a client's message rather than change it, but for an edit of a dirty
        client, see `editable_copy`), its sets copied."""
        return copied(self.objects[key])

    def edit(self, key: Key, client: int, batch: int) -> Key:
        """The client edits its data with its batch `batch` (read-only clients cannot: D32)."""
        found = self.edits.get((key, client, batch))
        if found is None:
            made = self.copy(key)
            if made.read_only:
                found = key
            else:
                holder = getattr(made, "shadow", made)
                if holder.state.value == "dirty":
                    holder.message = editable_copy(holder.message)
                data = copy.deepcopy(made.message.data)
                apply_batch(data, self.scenario.clients[client].batches[batch])
                made.edit(data)
                found = self.kept(key.behaviour, key.signer, made)
            self.edits[(key, client, batch)] = found
        return found

    def poll(self, key: Key, view: tuple[bytes, ...]) -> Key:
        """The client merges what a poll returned (D29)."""
        found = self.polls.get((key, view))
        if found is None:
            made = self.copy(key)
            made.receive(list(view))
            found = self.polls[(key, view)] = self.kept(key.behaviour, key.signer, made)
        return found

    def push(self, key: Key) -> tuple[Key, Pushed | None]:
        """What a client that needs a push sends, confirmed (D31); (key, None) if clean."""
        if key.state == "clean":
            return key, None
        found = self.pushes.get(key)
        if found is None:
            made = self.copy(key)
            sent = made.push()
            made.confirm()
            pushed = Pushed(bytes(sent.message), sent.hash, tuple(sent.deleted))
            found = self.pushes[key] = (self.kept(key.behaviour, key.signer, made), pushed)
        return found

    def parses(self, blob: bytes) -> bool:
        """Whether swarmconf's reference parses `blob` in this scenario."""
        return self.engine.info(blob) is not None


PUSH_SHARE = 0.35
"""The share of a swarm schedule's extra events that are pushes (the rest are polls)."""


def generate_swarm_schedule(
    scenario: Scenario, campaign_seed: int, scenario_index: int, index: int
) -> Schedule:
    """The interleaving for (campaign seed, scenario index, schedule index) of a swarm: each
    client's edits, each followed somewhere by a push, and polls (full, partial or stale views)
    and pushes of random clients, shuffled; then the settle's rotation."""
    rng = derive_rng("swarm-schedule", campaign_seed, scenario_index, index)
    count = len(scenario.clients)
    events = [
        Event(kind, number)
        for number, client in enumerate(scenario.clients)
        for _ in client.batches
        for kind in ("edit", "push")
    ]
    for _ in range(count + rng.randrange(2 * count + 1)):
        client = rng.randrange(count)
        if rng.random() < PUSH_SHARE:
            events.append(Event("push", client))
        else:
            mode = rng.choices(VIEWS, weights=(5, 3, 2))[0]
            events.append(Event("sync", client, mode, 1 + rng.randrange(63)))
    rng.shuffle(events)
    return Schedule(tuple(events), rng.randrange(count))


class SwarmRun:
    """One interleaving of a swarm of client-layer clients."""

    def __init__(self, world: World) -> None:
        self.world = world
        scenario = world.scenario
        count = len(scenario.clients)
        base = world.engine.base
        self.swarm: dict[bytes, bytes] = {
            swarm_hash(blob): blob for blob in (base, *scenario.blobs)
        }
        self.history: list[tuple[bytes, ...]] = [self.held()]
        self.clients = [world.start(client) for client in range(count)]
        self.next_batch = [0] * count
        self.batches = [len(client.batches) for client in scenario.clients]
        self.outcome = Outcome()
        self.seen: set[str] = set()

    def held(self) -> tuple[bytes, ...]:
        return tuple(self.swarm.values())

    def note(self, violation: str) -> None:
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

    def edit(self, client: int) -> None:
        batch = self.next_batch[client]
        if batch < self.batches[client]:
            self.next_batch[client] += 1
            self.clients[client] = self.world.edit(self.clients[client], client, batch)

    def sync(self, client: int, view: tuple[bytes, ...]) -> None:
        before = self.clients[client]
        after = self.clients[client] = self.world.poll(before, view)
        if after.state == "dirty" and after.message != before.message:
            self.outcome.merges += 1

    def push(self, client: int) -> bool:
        """The client pushes if it needs to: the swarm stores the message and deletes the hashes
        it names (D31); True when it pushed."""
        key, pushed = self.world.push(self.clients[client])
        self.clients[client] = key
        if pushed is None:
            return False
        for digest in pushed.deleted:
            blob = self.swarm.pop(digest, None)
            if blob is not None and not self.world.parses(blob):
                finding = (
                    f"P7 client {client} ({key.behaviour}) deleted a message it cannot parse "
                    f"({blob[:24]!r})"
                )
                if self.world.declares_x12(key.behaviour):
                    self.outcome.acceptable.append(f"X12 {finding}")
                else:
                    self.note(finding)
        self.swarm[pushed.hash] = pushed.message
        self.history.append(self.held())
        return True

    def apply(self, event: Event) -> None:
        if event.kind == "edit":
            self.edit(event.client)
        elif event.kind == "sync":
            self.sync(event.client, self.view(event.mode, event.pick))
        elif event.kind == "push":
            self.push(event.client)

    def settle(self, rotation: int) -> bool:
        """Lockstep rounds until one pushes nothing; False if none does within the bound."""
        count = len(self.clients)
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
        """Lockstep rounds from client `rotation` on, then P5 or P1."""
        if self.settle(rotation):
            self.check_final()
        else:
            self.note(self.unsettled())

    def current_messages(self) -> tuple[bytes, ...]:
        return self.world.engine.remaining(list(self.held()))

    def check_final(self) -> None:
        """P1: the swarm's current messages collapse to one, whose data every client holds (a
        client may hold it in a message of its own, such as an adopted message incremented)."""
        current = self.current_messages()
        if len(current) != 1:
            self.note(f"P1 the swarm holds {len(current)} current messages, not one")
            return
        info = self.world.engine.info
        final = info(current[0])
        assert final is not None
        for client, key in enumerate(self.clients):
            held = info(key.message)
            if held is None or held.data != final.data:
                self.note(f"P1 client {client} ({key.behaviour}) holds other data than the swarm")

    def unsettled(self) -> str:
        """What the last round left: the race P5 reports."""
        current = self.current_messages()
        seqnos = sorted({info.seqno for m in current if (info := self.world.engine.info(m))})
        return (
            f"P5 no quiescence within {self.outcome.rounds} lockstep rounds: the last left "
            f"{len(current)} current messages (seqno {', '.join(map(str, seqnos))})"
        )


def run_swarm(world: World, schedule: Schedule) -> Outcome:
    """Play `schedule` on the world's clients, settle in lockstep rounds, judge P1, P5, P7."""
    outcome = Outcome(events=len(schedule.events))
    try:
        run = SwarmRun(world)
        run.outcome = outcome
        for event in schedule.events:
            run.apply(event)
        run.settle_and_judge(schedule.rotation)
    except AdapterError as error:
        outcome.violations.append(f"C2 {error}")
    return outcome
