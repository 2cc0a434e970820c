"""Node identities: an Ed25519 key per node, its node id derived from it, announced in Serf tags.

Each node keeps a secret identity key in its data directory (`identity.key`: the 32-byte seed,
base64, mode 0600, created on first start). Its node id is the first 16 bytes of
SHA-256(label ‖ public key), so an id cannot be claimed without the key it is derived from. The
public key travels in the Serf tag `kvg-pk` (hex) beside `kvg-id`; tags travel in the encrypted
gossip, so only members see them. `Directory` maps node ids to the keys the current membership
announces, ignoring any member whose `kvg-pk` does not derive its `kvg-id`; the sync handshake
(`membership`) accepts a peer only when it signs the transcript under that key.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import os
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from nacl.exceptions import BadSignatureError
from nacl.signing import SigningKey, VerifyKey

from swarmconf.spec.kvgossip import crypto

from .gossip import TAG_ID, TAG_KEY, tag_bytes
from .privacy import FILE_MODE, check_private_file
from .reasons import NodeReason
from .serf_rpc import Member

IDENTITY_FILE = "identity.key"
ID_SIZE = 16
SEED_SIZE = 32
REFRESH_INTERVAL = 0.2
"""An unknown node id asks the agent for the membership again at most this often (seconds)."""
_ID_LABEL = b"swarmconf kv node id"


class IdentityError(Exception):
    """The identity key file is unusable; `.reason` is a stable code."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


def node_id_of(public: bytes) -> bytes:
    """The node id an identity key stands for."""
    return hashlib.sha256(_ID_LABEL + public).digest()[:ID_SIZE]


@dataclass(frozen=True)
class Identity:
    """A node's identity key and the node id derived from it."""

    seed: bytes

    @cached_property
    def _signing(self) -> SigningKey:
        return SigningKey(self.seed)

    @property
    def public(self) -> bytes:
        """The Ed25519 public key."""
        return bytes(self._signing.verify_key)

    @property
    def node_id(self) -> bytes:
        """The node id: derived from the public key."""
        return node_id_of(self.public)

    def sign(self, message: bytes) -> bytes:
        """An Ed25519 signature of `message`."""
        return self._signing.sign(message).signature

    def tags(self) -> dict[str, str]:
        """The Serf tags announcing this identity."""
        return {TAG_ID: self.node_id.hex(), TAG_KEY: self.public.hex()}

    @classmethod
    def generate(cls) -> Identity:
        """A fresh random identity."""
        return cls(os.urandom(SEED_SIZE))


def load_identity(data_dir: Path) -> Identity:
    """The node's identity from `data_dir`, created (mode 0600) on first use."""
    path = data_dir / IDENTITY_FILE
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE)
    except FileExistsError:
        return _read_identity(path)
    identity = Identity.generate()
    os.fchmod(fd, FILE_MODE)  # os.open's mode is masked by the umask
    with os.fdopen(fd, "w") as out:
        out.write(base64.b64encode(identity.seed).decode() + "\n")
    return identity


def _read_identity(path: Path) -> Identity:
    check_private_file(path)
    try:
        seed = base64.b64decode(path.read_text().strip(), validate=True)
    except (OSError, binascii.Error, ValueError) as exc:
        raise IdentityError(NodeReason.BAD_ARGUMENT, f"{path} is unreadable") from exc
    if len(seed) != SEED_SIZE:
        raise IdentityError(NodeReason.BAD_ARGUMENT, f"{path} must hold {SEED_SIZE} bytes")
    return Identity(seed)


def verify(public: bytes, message: bytes, signature: bytes) -> bool:
    """True iff `signature` is `public`'s Ed25519 signature of `message` (not cached, unlike
    the records' `crypto.verify`: handshakes never repeat)."""
    try:
        VerifyKey(public).verify(message, signature)
    except (BadSignatureError, ValueError):
        return False
    return True


def announced(member: Member) -> tuple[bytes, bytes] | None:
    """(node id, identity key) a member's tags announce, if they are well-formed and bind."""
    node_id = tag_bytes(member.tags.get(TAG_ID, ""))
    public = tag_bytes(member.tags.get(TAG_KEY, ""))
    if public is None or len(public) != crypto.PUBLIC_KEY_SIZE or node_id != node_id_of(public):
        return None
    return node_id, public


Fetch = Callable[[], Awaitable[Iterable[Member] | None]]
"""The current members from the agent; None when it cannot be reached."""


class Directory:
    """Node id → identity key, as the current Serf membership announces them.

    Members that left are not in it, nor members whose tags do not bind their id to their key.
    An id not found makes `lookup` fetch the membership again (at most once per `interval`,
    one fetch at a time): a member that just joined is known before its first connection fails.
    """

    def __init__(
        self,
        fetch: Fetch | None = None,
        interval: float = REFRESH_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._fetch = fetch
        self.interval = interval
        self._clock = clock
        self._keys: dict[bytes, bytes] = {}
        self._fetched_at = -interval
        self._lock = asyncio.Lock()

    def __len__(self) -> int:
        """How many node ids are known."""
        return len(self._keys)

    def update(self, members: Iterable[Member]) -> None:
        """Replace the map by what `members` announce."""
        keys = {}
        for member in members:
            entry = announced(member) if member.status != "left" else None
            if entry is not None:
                keys[entry[0]] = entry[1]
        self._keys = keys

    async def lookup(self, node_id: bytes) -> bytes | None:
        """The identity key announced for `node_id`, or None if no member announces it."""
        key = self._keys.get(node_id)
        if key is not None or self._fetch is None:
            return key
        async with self._lock:
            if node_id not in self._keys and self._clock() - self._fetched_at >= self.interval:
                self._fetched_at = self._clock()
                members = await self._fetch()
                if members is not None:
                    self.update(members)
        return self._keys.get(node_id)
