"""Cached operations for one scenario: parse, edit-and-publish, merge, each checked once.

Each edit and merge also carries what its push deletes from the swarm, as the primary's delete
rule says (`obsolete_after_edit`, `obsolete_after_merge`, D27): the swarm of a campaign deletes
exactly that, so a wrong delete rule shows as a lost message (P1) or a lost update (P4).

All schedules of a scenario share one engine, so a merge of the same messages is computed once
and its checks (P2 determinism, P3 agreement, P6 validity) run on that first computation; every
schedule that reaches it again sees the same result and the same violations. P3 runs the other
library on a deterministic sample of the distinct operations (all of them for a mutant, whose
intact spec shares the primary's parses); see CHECK_SAMPLE.
"""

from __future__ import annotations

import copy
import functools
import hashlib
from dataclasses import dataclass, field
from typing import Any

import nacl.signing

from swarmconf.spec.configmerge import bt
from swarmconf.spec.configmerge.message import message_hash
from swarmconf.spec.configmerge.reasons import ConfigError, Reason
from swarmconf.spec.configmerge.signing import sign

from .edits import Data, Path, apply_batch
from .impl import Implementation
from .oracle import Atom, Update, atoms_of, wiped_of, writes_of
from .scenario import Scenario

CHECK_SAMPLE = 4
"""P3 runs the checker on one distinct operation in CHECK_SAMPLE (all when it is a mutant's
intact spec, which shares the primary's parses)."""
API_SAMPLE = 32
"""A primary with a parsed-message merge also runs P2 through its bytes API on one distinct
merge in API_SAMPLE."""
UNKNOWN_KEY = b"_future"
"""The unknown top-level key a future client writes (D9)."""
UNKNOWN_ENTRY = bt.encode(UNKNOWN_KEY) + bt.encode(b"future")


@dataclass(frozen=True)
class Info:
    """What the oracle needs to know of a valid message."""

    seqno: int
    hash: bytes
    included: frozenset[tuple[int, bytes]]
    data: Data

    @property
    def rank(self) -> tuple[int, bytes]:
        return (self.seqno, self.hash)

    @functools.cached_property
    def included_ranked(self) -> tuple[tuple[int, bytes], ...]:
        return tuple(sorted(self.included))

    @functools.cached_property
    def carried(self) -> frozenset[tuple[int, bytes]]:
        """The ranks of the updates a merge replays from this message: its own, its lagged."""
        return self.included | {self.rank}


@dataclass(frozen=True)
class Published:
    """An edit published as an increment."""

    message: bytes
    writes: dict[Atom, object]
    wiped: frozenset[Path]
    violations: tuple[str, ...]
    obsolete: frozenset[bytes] = frozenset()
    """The messages its push deletes: the one edited (D27)."""


@dataclass(frozen=True)
class Merged:
    """A merge: its result, whether it is a new message, the inputs D14 kept, and the inputs
    the client deletes after it (D27; pushing the result, if new)."""

    message: bytes
    new: bool
    remaining: tuple[bytes, ...]
    violations: tuple[str, ...]
    obsolete: frozenset[bytes] = frozenset()


@dataclass
class Engine:
    scenario: Scenario
    primary: Implementation
    checker: Implementation | None
    infos: dict[bytes, Info | None] = field(default_factory=dict)
    parsed: dict[tuple[str, bytes], Any] = field(default_factory=dict)
    edits: dict[tuple[bytes, int, int], Published] = field(default_factory=dict)
    merges: dict[tuple[frozenset[bytes], bool], Merged] = field(default_factory=dict)
    known: dict[tuple[int, bytes], bytes] = field(default_factory=dict)

    def __post_init__(self) -> None:
        seed = self.scenario.key_seed
        signed = self.scenario.signed
        self.sign_key = seed if signed else None
        self.verify_key = bytes(nacl.signing.SigningKey(seed).verify_key) if signed else None
        self.forged_key = hashlib.blake2b(seed, digest_size=32).digest() if signed else None

    @functools.cached_property
    def bits(self) -> dict[tuple[int, int], int]:
        """The oracle's bit of each (client, batch): bit 0 is the shared starting message."""
        bits: dict[tuple[int, int], int] = {}
        for number, client in enumerate(self.scenario.clients):
            for batch in range(len(client.batches)):
                bits[(number, batch)] = 1 << (len(bits) + 1)
        return bits

    @functools.cached_property
    def base_update(self) -> Update:
        """The starting message as the oracle's first update: it writes all its data."""
        info = self.info(self.base)
        assert info is not None
        return Update(1, info.rank, atoms_of(info.data))

    @functools.cached_property
    def base(self) -> bytes:
        """The shared starting message."""
        message = self.primary.new(self.scenario.base_seqno, lag=self.scenario.lag)
        message.data.update(copy.deepcopy(self.scenario.base_data))
        return bytes(message.serialize(self.sign_key))

    def parse(self, impl: Implementation, message: bytes) -> Any:
        """`message` parsed by `impl` (once per engine), or None when it is invalid."""
        key = (impl.name, message)
        if key not in self.parsed:
            try:
                self.parsed[key] = impl.parse(
                    message, lag=self.scenario.lag, verify_key=self.verify_key
                )
            except ConfigError:
                self.parsed[key] = None
        return self.parsed[key]

    def info(self, message: bytes) -> Info | None:
        """The message as the primary parses it, or None when it is invalid."""
        if message not in self.infos:
            parsed = self.parse(self.primary, message)
            info = None
            if parsed is not None:
                included = frozenset((entry.seqno, entry.hash) for entry in parsed.lagged)
                info = Info(parsed.seqno, parsed.hash, included, parsed.data)
                self.known[info.rank] = message
            self.infos[message] = info
        return self.infos[message]

    def edit(self, base: bytes, client: int, batch: int) -> Published:
        """Client `client` increments `base`, applies its batch `batch` and serializes."""
        key = (base, client, batch)
        if key not in self.edits:
            if self.parse(self.primary, base) is None:
                # Only a broken merger hands a client an invalid message (already a P6)
                self.edits[key] = Published(base, {}, frozenset(), ())
                return self.edits[key]
            message, before, after = self.apply_edit(self.primary, base, client, batch)
            violations = list(self.check_valid(message, merged=False, client=client))
            if self.checker is not None and self.check(message):
                expected = self.apply_edit(self.checker, base, client, batch)[0]
                if expected != message:
                    violations.append(f"P3 edit differs from {self.checker.name}")
            deleted = self.primary.obsolete_after_edit(self.parse(self.primary, base))
            self.edits[key] = Published(
                message,
                writes_of(before, after),
                wiped_of(before, after),
                tuple(violations),
                among([base], deleted),
            )
        return self.edits[key]

    def apply_edit(
        self, impl: Implementation, base: bytes, client: int, batch: int
    ) -> tuple[bytes, Data, Data]:
        spec = self.scenario.clients[client]
        # increment() copies the data, so the cached parse stays intact
        message = self.parse(impl, base).increment()
        before = prune(message.data)
        apply_batch(message.data, spec.batches[batch])
        after = prune(message.data)
        key = self.sign_key if spec.signer else self.forged_key
        if spec.future:
            unsigned = bytes(message.serialize())
            # An increment keeps the unknown keys of its base (D9): then the key is there already
            future = unsigned if message.extra else with_unknown_key(unsigned)
            return (future if key is None else sign(future, key)), before, after
        return bytes(message.serialize(key)), before, after

    def merge(self, inputs: frozenset[bytes], signer: bool) -> Merged:
        """Merge what a client sees (its own message included); `signer`: it holds the key."""
        key = (inputs, signer)
        if key not in self.merges:
            self.merges[key] = self.compute_merge(inputs, signer)
        return self.merges[key]

    def compute_merge(self, inputs: frozenset[bytes], signer: bool) -> Merged:
        ordered = sorted(inputs)
        for message in ordered:
            self.info(message)
        sign_key = self.sign_key if signer else None
        try:
            merged = self.merged(self.primary, ordered, sign_key, parsed=True)
        except ConfigError as error:
            return Merged(ordered[0], False, (), (f"P6 merge refused its inputs: {error}",))
        result = self.bytes_of(merged, sign_key)
        valid = [m for m in (self.parse(self.primary, data) for data in ordered) if m is not None]
        deleted = self.primary.obsolete_after_merge(
            ordered, merged, lag=self.scenario.lag, verify_key=self.verify_key, valid=valid
        )
        violations: list[str] = []
        new = result not in inputs
        if self.checker is not None and self.check(result):
            expected = self.run_merge(self.checker, ordered, sign_key, parsed=True)
            if expected != result:
                violations.append(f"P3 merge differs from {self.checker.name}")
        if not self.stable(result, self.shuffled(ordered), sign_key):
            violations.append("P2 merge result depends on input order, duplicates or extras")
        remaining = self.remaining(ordered)
        if new:
            violations.extend(self.check_valid(result, merged=True, client=None))
        return Merged(result, new, remaining, tuple(violations), among(ordered, deleted))

    def check(self, message: bytes) -> bool:
        """Whether P3 checks the operation that produced `message`."""
        shares_parses = self.checker is not None and self.checker.parse is self.primary.parse
        return shares_parses or sampled(message, CHECK_SAMPLE)

    def stable(self, result: bytes, shuffled: list[bytes], sign_key: bytes | None) -> bool:
        """P2: the primary merges the shuffled inputs to the same bytes."""
        if self.primary.merge_parsed is None:
            return self.run_merge(self.primary, shuffled, sign_key) == result
        if self.run_merge(self.primary, shuffled, sign_key, parsed=True) != result:
            return False
        return not sampled(result, API_SAMPLE) or (
            self.run_merge(self.primary, shuffled, sign_key) == result
        )

    def run_merge(
        self,
        impl: Implementation,
        inputs: list[bytes],
        sign_key: bytes | None,
        parsed: bool = False,
    ) -> bytes:
        """The bytes `impl` publishes for a merge of `inputs` (see `merged`)."""
        return self.bytes_of(self.merged(impl, inputs, sign_key, parsed), sign_key)

    def merged(
        self,
        impl: Implementation,
        inputs: list[bytes],
        sign_key: bytes | None,
        parsed: bool = False,
    ) -> Any:
        """`impl`'s merge of `inputs`, its result as the library gives it; with `parsed`,
        through its merge of already parsed messages (each distinct message parsed once per
        engine)."""
        options = {"lag": self.scenario.lag, "verify_key": self.verify_key, "sign_key": sign_key}
        if parsed and impl.merge_parsed is not None:
            valid = [m for m in (self.parse(impl, data) for data in inputs) if m is not None]
            if not valid:
                raise ConfigError(Reason.NO_VALID_MESSAGE)
            return impl.merge_parsed(valid, **options)
        return impl.merge(inputs, **options)

    def bytes_of(self, result: Any, sign_key: bytes | None) -> bytes:
        """The bytes of a merge's `result` as published."""
        if not result.merged:
            # A single survivor is returned as parsed: find its bytes (D14)
            survivor = self.known.get((result.seqno, result.hash))
            if survivor is not None:
                return survivor
        return self.published(result, sign_key)

    def published(self, merged: Any, sign_key: bytes | None) -> bytes:
        """The bytes of a merge's result, signed with `sign_key` if given (the merge was)."""
        return bytes(merged.serialize())

    def shuffled(self, ordered: list[bytes]) -> list[bytes]:
        """The same inputs reversed, with a duplicate and an already-included message (P2)."""
        for message in ordered:
            info = self.info(message)
            for rank in info.included_ranked if info is not None else ():
                if rank in self.known:
                    return [*ordered[::-1], ordered[0], self.known[rank]]
        return [*ordered[::-1], ordered[0]]

    def remaining(self, inputs: list[bytes]) -> tuple[bytes, ...]:
        """The inputs the ignore rules keep (D14), worked out independently of the merger."""
        infos = [(message, info) for message in inputs if (info := self.info(message)) is not None]
        if not infos:
            return ()
        floor = max(info.seqno for _, info in infos) - self.scenario.lag
        included = frozenset().union(*(info.included for _, info in infos))
        return tuple(
            message for message, info in infos if info.seqno > floor and info.rank not in included
        )

    def check_valid(self, message: bytes, *, merged: bool, client: int | None) -> list[str]:
        """P6: a published message parses, is in normal form; a merge carries no unknown keys
        (D9) and an empty `=` (D15)."""
        if client is not None and not self.scenario.clients[client].signer:
            return []
        parsed = self.parse(self.primary, message)
        if parsed is None:
            return ["P6 published message does not parse"]
        problems = []
        if bytes(parsed.serialize()) != message:
            problems.append("P6 published message is not in normal form")
        if merged and parsed.extra:
            problems.append("P6 merge result carries unknown keys")
        if merged and parsed.diff:
            problems.append("P6 merge result has a non-empty diff")
        return problems


def among(messages: list[bytes], hashes: list[bytes]) -> frozenset[bytes]:
    """The `messages` whose hashes are in `hashes` (what a push deleting `hashes` removes)."""
    wanted = set(hashes)
    return frozenset(message for message in messages if message_hash(message) in wanted)


def sampled(message: bytes, one_in: int) -> bool:
    """A deterministic one-in-`one_in` choice of messages for the costlier checks."""
    return hashlib.blake2b(message, digest_size=1).digest()[0] % one_in == 0


def prune(data: Data) -> Data:
    """A copy of `data` without empty sets and dicts."""
    result: Data = {}
    for key, value in data.items():
        if isinstance(value, dict):
            value = prune(value)
        elif isinstance(value, set):
            value = set(value)
        if value or isinstance(value, int | bytes):
            result[key] = value
    return result


def with_unknown_key(unsigned: bytes) -> bytes:
    """The unsigned message with the unknown top-level key added (D9). The key sorts after the
    known keys of an unsigned message (`#`, `&`, `<`, `=`), so its entry is the last one."""
    return unsigned[:-1] + UNKNOWN_ENTRY + b"e"
