"""The world every config-merge campaign and the checker race: client-layer clients (D28..D32)
of one scenario, each of its own behaviour, their steps memoized and checked where they happen.

A client's state as the world sees it is a `Key` (behaviour, whether it signs, clean, dirty or
waiting, its message as it would push it, its current hash, the hashes it will delete): one
client object stands for each key, and a step from a key is computed once per scenario. Where
a step is computed, the properties that step can break are judged, and the violations are
handed back with the step each time it is taken:
- P2: a poll merged in another order, with a duplicate and an already-included message, leaves
  the client in the same state (sampled, `CHECK_SAMPLE`);
- P3: the behaviour's twin (the spec's client beside the reference's, the intact spec beside a
  mutant) takes the same step from the same state and ends in the same one;
- P6: a pushed message parses, is in normal form, and a conflict resolution carries no unknown
  key (D9) and the `=` its profile gives it (D30: empty; or, under `libsession`, every data key).
"""

from __future__ import annotations

import copy
import functools
import hashlib
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from swarmconf.reference.configmerge.message import ConfigMessage as ReferenceMessage
from swarmconf.spec.configmerge import bt
from swarmconf.spec.configmerge.data import pruned as without_empties
from swarmconf.spec.configmerge.message import ConfigMessage as SpecMessage
from swarmconf.spec.configmerge.reasons import ConfigError

from .behaviours import Behaviours, Serializations, Setting, behaviour, check_names, copied
from .edits import Data, apply_batch
from .messages import Messages, sampled
from .oracle import Update, Verdict, wiped_of, writes_of
from .scenario import Scenario
from .swarm_client import AdapterClient, AdapterError

CHECK_SAMPLE = 4
"""P2 merges one distinct poll in CHECK_SAMPLE again in another order."""
UNKNOWN_KEY = b"_future"
"""The unknown top-level key a later version's client writes (D9)."""
FUTURE_VALUE = bt.encode(b"future")
"""The value of the unknown key a later version's client writes (D9)."""


class Key(NamedTuple):
    """A client's state as the world sees it: what decides its future steps."""

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


class Step(NamedTuple):
    """Where a step leads, what it pushed (a push), what it broke, and the findings a quirk
    its behaviour declares explains (each led by the quirk)."""

    key: Key
    pushed: Pushed | None
    violations: tuple[str, ...]
    acceptable: tuple[str, ...] = ()
    merged: tuple[bytes, ...] | None = None
    """A poll that made a message none of its inputs is: the inputs the ignore rules kept
    (D14), whose knowledge the P4 oracle merges (see `interleaving`)."""


def swarm_hash(blob: bytes) -> bytes:
    """The hash the swarm stores a blob under: BLAKE2b-256 of its bytes (D1)."""
    return hashlib.blake2b(blob, digest_size=32).digest()


def editable_copy(message: Any) -> Any:
    """A copy of an editable message (a dirty client's) that an edit may change in place."""
    if isinstance(message, SpecMessage):
        spec_copy = copy.copy(message)
        spec_copy.data = copy.deepcopy(message.data)
        spec_copy.extra = dict(message.extra)
        return spec_copy
    # The reference's message is compiled and cannot be copied by `copy`: the same message made
    # anew from its data at creation, its lagged entries and its signing secret
    made: Any = ReferenceMessage(
        message.seqno,
        message._bt,
        list(message.lagged),
        lag=message.lag,
        extra=dict(message.extra),
        merged=message.merged,
    )
    made._sign_secret = message._sign_secret
    made.data = copy.deepcopy(message.data)
    return made


def holder(client: Any) -> Any:
    """The object that holds the client's message: a mutated client's inner client, else the
    client."""
    inner = vars(client).get("inner")
    return holder(inner) if inner is not None else client


@dataclass
class World:
    """One scenario's clients as client objects, with every step memoized and judged."""

    scenario: Scenario
    setting: Setting = field(default_factory=Setting)
    messages: Messages = field(init=False)
    objects: dict[Key, Any] = field(default_factory=dict)
    twins: dict[Key, Any] = field(default_factory=dict)
    """The twin standing beside each key's client (P3)."""
    edits: dict[tuple[Key, int, int], Step] = field(default_factory=dict)
    polls: dict[tuple[Key, tuple[bytes, ...]], Step] = field(default_factory=dict)
    pushes: dict[Key, Step] = field(default_factory=dict)
    resolutions: set[bytes] = field(default_factory=set)
    """Messages a poll made (merges, conflict resolutions), as pushed."""
    every_key: set[bytes] = field(default_factory=set)
    """The resolutions among them that list every data key in `=` (D30, X17)."""
    resolution_bits: dict[bytes, int] = field(default_factory=dict)
    """The P4 oracle's bit of each such resolution (see `interleaving`)."""
    serializations: Serializations = field(default_factory=Serializations)
    prunes: dict[bytes, Data] = field(default_factory=dict)
    updates: dict[tuple[int, bytes, bytes], Update] = field(default_factory=dict)
    survivors: dict[frozenset[bytes], tuple[bytes, ...]] = field(default_factory=dict)
    verdicts: dict[tuple[Any, ...], Verdict] = field(default_factory=dict)
    """P4 verdicts by (final message, safe updates, replayed or made, known bits and ranks)."""
    starts: dict[int, Key] = field(default_factory=dict)
    """Each client's key at the start of every interleaving."""
    currents: dict[tuple[bytes, ...], tuple[bytes, ...]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        behaviours = self.scenario.behaviours
        check_names(behaviours, self.setting)
        self.behaviours = behaviours
        self.messages = Messages(self.scenario)
        self.records = Behaviours(self.setting)

    def declares(self, name: str, quirk: str) -> bool:
        return self.records.declares(name, quirk)

    @functools.cached_property
    def starting_swarm(self) -> dict[bytes, bytes]:
        """The swarm every interleaving starts from: the starting message and the scenario's
        blobs, by hash."""
        blobs = (self.messages.base, *self.scenario.blobs)
        return {swarm_hash(blob): blob for blob in blobs}

    def start(self, client: int) -> Key:
        """Client `client` holding the swarm's starting message, clean (made once per world:
        every interleaving starts from the same clients)."""
        found = self.starts.get(client)
        if found is None:
            found = self.starts[client] = self.started(client)
        return found

    def started(self, client: int) -> Key:
        messages = self.messages
        signer = self.scenario.clients[client].signer
        name = self.behaviours[client]
        arguments = (
            self.scenario.lag,
            messages.sign_key if signer else None,
            messages.verify_key,
            messages.base,
        )
        key = self.kept(name, signer, self.records.factory(name)(*arguments))
        twin = self.records.twin(name)
        if twin is not None and key not in self.twins:
            self.twins[key] = twin(*arguments)
        return key

    def key_of(self, name: str, signer: bool, made: Any) -> Key:
        return Key(
            name,
            signer,
            made.state.value,
            self.serialized(made),
            made.current_hash,
            frozenset(made.to_delete),
        )

    def kept(self, name: str, signer: bool, made: Any) -> Key:
        """The key of a client object, which stands for its key from now on if none does."""
        key = self.key_of(name, signer, made)
        self.objects.setdefault(key, made)
        return key

    def serialized(self, made: Any) -> bytes:
        """The client's message as it would push it, once per message object (a step that
        keeps the message shares the object; an edit works on a copy, `editable_copy`): through
        the serializations the client's library keeps for its own pushes, if it keeps them and
        no mutant is in place (a mutated client serializes under its mutant)."""
        message = made.message
        if message is None:
            return b""
        kept = vars(holder(made)).get("serializations") if self.setting.mutant is None else None
        return (kept or self.serializations)(message, made.sign_key)

    def copy(self, key: Key) -> Any:
        """A client in state `key` of its own: the representative's messages are shared (a
        step replaces a client's message rather than change it, but for an edit of a dirty
        client, see `editable_copy`), its sets copied."""
        return copied(self.objects[key])

    # The steps ------------------------------------------------------------------------------

    def edit(self, key: Key, client: int, batch: int) -> Step:
        """The client edits its data with its batch `batch` (read-only clients cannot: D32)."""
        found = self.edits.get((key, client, batch))
        if found is None:
            found = self.edits[(key, client, batch)] = self.stepped(
                key, "edit", lambda made: self.edited(made, key, client, batch)
            )
        return found

    def edited(self, made: Any, key: Key, client: int, batch: int) -> None:
        if made.read_only:
            return
        message_holder = holder(made)
        # An adapter's client holds no message an edit changes: it sends the edited data
        if message_holder.state.value == "dirty" and not isinstance(made, AdapterClient):
            message_holder.message = editable_copy(message_holder.message)
        data = copy.deepcopy(made.message.data)
        spec = self.scenario.clients[client]
        apply_batch(data, spec.batches[batch])
        made.edit(data)
        later = spec.future and not behaviour(key.behaviour).needs_command
        if later and message_holder.state.value == "dirty":
            # Only a message the edit made its own: an edit that changed nothing leaves a
            # clean client's stored message as it is (X18)
            message_holder.message.extra[UNKNOWN_KEY] = FUTURE_VALUE

    def poll(self, key: Key, view: tuple[bytes, ...]) -> Step:
        """The client merges what a poll returned (D29); P2 on a sample."""
        found = self.polls.get((key, view))
        if found is None:
            found = self.stepped(key, "poll", lambda made: made.receive(list(view)))
            after = found.key.message
            if after != key.message:
                if found.key.state == "dirty":
                    self.resolved(after)
                inputs = {*view, key.message} if key.message else set(view)
                if after not in inputs:
                    found = found._replace(merged=self.remaining(inputs))
            if view and sampled(b"".join(view), CHECK_SAMPLE):
                found = self.p2(key, view, found)
            self.polls[(key, view)] = found
        return found

    def resolved(self, message: bytes) -> None:
        """A poll made `message`: a resolution, listing every key in `=` or none (D30)."""
        self.resolutions.add(message)
        parsed = self.messages.parse(message)
        if parsed is not None and parsed.diff:
            self.every_key.add(message)

    def resolution_bit(self, message: bytes) -> int:
        """The oracle's bit of a resolution listing every key, after every edit's bit."""
        found = self.resolution_bits.get(message)
        if found is None:
            first = len(self.messages.bits) + 1
            found = self.resolution_bits[message] = 1 << (first + len(self.resolution_bits))
        return found

    def p2(self, key: Key, view: tuple[bytes, ...], found: Step) -> Step:
        """P2: the same poll in another order, with a duplicate and an already-included
        message, leaves the client as it left it (the hashes to delete aside: an extra
        stored input may join them). Only the current hash differing is X12's index quirk."""
        made = self.copy(key)
        finding = f"P2 a {key.behaviour} client's merge of a poll depends on its order"
        try:
            made.receive(self.messages.shuffled(list(view)))
        except AdapterError as error:
            if error.quirk is None:
                raise
            return found._replace(acceptable=(*found.acceptable, f"{error.quirk} {finding}"))
        except Exception as error:  # what a client raises is a finding
            return found._replace(violations=(*found.violations, f"{finding}: {raised(error)}"))
        again = self.key_of(key.behaviour, key.signer, made)
        if again[:5] == found.key[:5]:
            return found
        if again[:4] == found.key[:4] and self.declares(key.behaviour, "X12"):
            return found._replace(acceptable=(*found.acceptable, f"X12 {finding}"))
        return found._replace(violations=(*found.violations, finding))

    def push(self, key: Key) -> Step:
        """What a client that needs a push sends, confirmed (D31); P6 on what it sent."""
        if key.state == "clean":
            return Step(key, None, ())
        found = self.pushes.get(key)
        if found is None:
            found = self.stepped(key, "push", pushed_and_confirmed)
            if found.pushed is not None:
                found = found._replace(violations=found.violations + self.p6(key, found.pushed))
            self.pushes[key] = found
        return found

    def stepped(self, key: Key, name: str, step: Any) -> Step:
        """`step` taken on a copy of `key`'s client, and on its twin (P3). A client that
        raises stays as it was: it refused its own state (P6, such as a message it made that
        does not parse)."""
        made = self.copy(key)
        try:
            result = step(made)
        except AdapterError:
            raise
        except Exception as error:  # what a client raises is a finding
            return Step(
                key, None, (f"P6 a {key.behaviour} client's {name} raised {raised(error)}",)
            )
        pushed = None if result is None else as_pushed(result)
        after = self.kept(key.behaviour, key.signer, made)
        twin = self.twins.get(key)
        if twin is None:
            return Step(after, pushed, ())
        twin = copied(twin)
        try:
            twin_result = step(twin)
        except Exception as error:  # what a twin raises is a finding
            return Step(
                after, pushed, (f"P3 a {key.behaviour} client's twin raised {raised(error)}",)
            )
        twin_pushed = None if twin_result is None else as_pushed(twin_result)
        self.twins.setdefault(after, twin)
        if behaviour(key.behaviour).needs_command:
            answer, expected = self.answered(made), self.answered(twin)
            if answer == expected and twin_pushed == pushed:
                return Step(after, pushed, ())
            finding = f"C1 the client's answer to its {name} differs from the spec's"
            x12 = x12_only(answer, expected, pushed, twin_pushed)
            if self.declares(key.behaviour, "X12") and x12:
                return Step(after, pushed, (), (f"X12 {finding} (the hashes it deletes)",))
            explained = made.as_deployed(finding)
            if explained:
                return Step(after, pushed, (), explained)
            return Step(after, pushed, (finding,))
        if self.key_of(key.behaviour, key.signer, twin) == after and twin_pushed == pushed:
            return Step(after, pushed, ())
        return Step(after, pushed, (f"P3 a {key.behaviour} client's {name} differs from its twin",))

    def answered(self, client: Any) -> Answered:
        """A client's answer to a step: its current hash, whether it needs a push, its
        message as it would push it, the hashes its next push deletes."""
        return Answered(
            client.current_hash,
            client.needs_push(),
            self.serialized(client),
            frozenset(client.to_delete),
        )

    def p6(self, key: Key, pushed: Pushed) -> tuple[str, ...]:
        """P6: what a client pushed parses and is in normal form; a conflict resolution carries
        no unknown key (D9) and the `=` of its behaviour's profile (D30)."""
        parsed = self.messages.parse(pushed.message)
        name = key.behaviour
        if parsed is None:
            return (f"P6 a {name} client pushed a message that does not parse",)
        problems = []
        if bytes(parsed.serialize()) != pushed.message:
            problems.append(f"P6 a {name} client pushed a message not in normal form")
        if pushed.message in self.resolutions:
            if parsed.extra:
                problems.append(f"P6 a {name} client's conflict resolution carries unknown keys")
            keys = set(parsed.diff)
            every_key = behaviour(name).profile != "spec" and keys == set(parsed.data)
            if keys and not every_key:
                problems.append(f"P6 a {name} client's conflict resolution has another `=`")
        return tuple(problems)

    # What the P4 oracle asks of messages (see `interleaving`), once per world ---------------

    def pruned(self, message: bytes) -> Data:
        """The data of a message that parses, without empty sets and dicts ({} otherwise)."""
        found = self.prunes.get(message)
        if found is None:
            info = self.messages.info(message)
            found = self.prunes[message] = without_empties(info.data) if info is not None else {}
        return found

    def update(self, bit: int, start: bytes, message: bytes) -> Update:
        """The update of `bit`: what the edits from `start` to `message` wrote, at its rank."""
        key = (bit, start, message)
        found = self.updates.get(key)
        if found is None:
            old, new = self.pruned(start), self.pruned(message)
            info = self.messages.info(message)
            assert info is not None
            found = self.updates[key] = Update(
                bit, info.rank, writes_of(old, new), wiped_of(old, new)
            )
        return found

    def remaining(self, inputs: frozenset[bytes] | set[bytes]) -> tuple[bytes, ...]:
        """The inputs the ignore rules keep (D14)."""
        key = frozenset(inputs)
        found = self.survivors.get(key)
        if found is None:
            found = self.survivors[key] = self.messages.remaining(sorted(key))
        return found

    def current(self, held: tuple[bytes, ...]) -> tuple[bytes, ...]:
        """The swarm's current messages: the blobs it holds that the ignore rules keep (D14)."""
        found = self.currents.get(held)
        if found is None:
            found = self.currents[held] = self.messages.remaining(list(held))
        return found

    def parses(self, blob: bytes) -> bool:
        """Whether swarmconf's reference parses `blob` in this scenario."""
        return self.messages.info(blob) is not None


class Answered(NamedTuple):
    """What a client's answer to a step says besides a push (the `client` operation's)."""

    current: bytes | None
    needs_push: bool
    message: bytes
    """Its message as it would push it."""
    to_delete: frozenset[bytes]


def x12_only(
    answer: Answered, expected: Answered, pushed: Pushed | None, twin_pushed: Pushed | None
) -> bool:
    """Whether two answers differ only where X12 says the deployed client's do: the hashes a
    push deletes, or the current hash a merge reports."""
    same = (answer.needs_push, answer.message) == (expected.needs_push, expected.message)
    if not same or (pushed is None) != (twin_pushed is None):
        return False
    return pushed is None or twin_pushed is None or pushed[:2] == twin_pushed[:2]


def raised(error: Exception) -> str:
    """An exception as a finding names it: its reason code, or its type and message."""
    if isinstance(error, ConfigError):
        return str(error)
    return f"{type(error).__name__}: {error}"


def pushed_and_confirmed(made: Any) -> Any:
    """A push, confirmed at once (what the world's swarm does)."""
    sent = made.push()
    made.confirm()
    return sent


def as_pushed(sent: Any) -> Pushed:
    return Pushed(bytes(sent.message), bytes(sent.hash), tuple(sent.deleted))
