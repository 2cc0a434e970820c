"""A scenario's messages, each parsed once by the reference: the starting message every client
holds, what the P4 oracle reads of each valid message (`Info`), and what the ignore rules keep
of a set of inputs (D14), worked out independently of any client's merge.
"""

from __future__ import annotations

import copy
import functools
import hashlib
from dataclasses import dataclass, field

import nacl.signing

from swarmconf.reference import configmerge as reference
from swarmconf.spec.configmerge.merge import Rank
from swarmconf.spec.configmerge.reasons import ConfigError

from .edits import Data
from .oracle import Update, atoms_of
from .scenario import Scenario


@dataclass(frozen=True)
class Info:
    """What the oracle needs to know of a valid message."""

    seqno: int
    hash: bytes
    included: frozenset[Rank]
    data: Data

    @property
    def rank(self) -> Rank:
        return (self.seqno, self.hash)

    @functools.cached_property
    def included_ranked(self) -> tuple[Rank, ...]:
        return tuple(sorted(self.included))

    @functools.cached_property
    def carried(self) -> frozenset[Rank]:
        """The ranks of the updates a merge replays from this message: its own, its lagged."""
        return self.included | {self.rank}


@dataclass
class Messages:
    """The messages of one scenario, parsed under its lag and verify key."""

    scenario: Scenario
    parsed: dict[bytes, reference.ConfigMessage | None] = field(default_factory=dict)
    infos: dict[bytes, Info | None] = field(default_factory=dict)
    known: dict[Rank, bytes] = field(default_factory=dict)
    """Each valid message parsed so far, by rank."""

    def __post_init__(self) -> None:
        seed = self.scenario.key_seed
        signed = self.scenario.signed
        self.sign_key = seed if signed else None
        self.verify_key = bytes(nacl.signing.SigningKey(seed).verify_key) if signed else None

    @functools.cached_property
    def base(self) -> bytes:
        """The shared starting message."""
        message = reference.ConfigMessage.new(self.scenario.base_seqno, lag=self.scenario.lag)
        message.data.update(copy.deepcopy(self.scenario.base_data))
        return bytes(message.serialize(self.sign_key))

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

    def parse(self, message: bytes) -> reference.ConfigMessage | None:
        """`message` parsed, or None when it is invalid."""
        if message not in self.parsed:
            try:
                self.parsed[message] = reference.parse(
                    message, lag=self.scenario.lag, verify_key=self.verify_key
                )
            except ConfigError:
                self.parsed[message] = None
        return self.parsed[message]

    def info(self, message: bytes) -> Info | None:
        """What the oracle reads of `message`, or None when it is invalid."""
        if message not in self.infos:
            parsed = self.parse(message)
            info = None
            if parsed is not None:
                included = frozenset((entry.seqno, entry.hash) for entry in parsed.lagged)
                info = Info(parsed.seqno, parsed.hash, included, parsed.data)
                self.known[info.rank] = message
            self.infos[message] = info
        return self.infos[message]

    def shuffled(self, ordered: list[bytes]) -> list[bytes]:
        """The same inputs reversed, with a duplicate and an already-included message (P2)."""
        for message in ordered:
            info = self.info(message)
            for rank in info.included_ranked if info is not None else ():
                if rank in self.known:
                    return [*ordered[::-1], ordered[0], self.known[rank]]
        return [*ordered[::-1], ordered[0]]

    def remaining(self, inputs: list[bytes]) -> tuple[bytes, ...]:
        """The inputs the ignore rules keep (D14), in the order given."""
        infos = [(message, info) for message in inputs if (info := self.info(message)) is not None]
        if not infos:
            return ()
        floor = max(info.seqno for _, info in infos) - self.scenario.lag
        included = frozenset().union(*(info.included for _, info in infos))
        return tuple(
            message for message, info in infos if info.seqno > floor and info.rank not in included
        )


def sampled(message: bytes, one_in: int) -> bool:
    """A deterministic one-in-`one_in` choice of messages for the costlier checks."""
    return hashlib.blake2b(message, digest_size=1).digest()[0] % one_in == 0
