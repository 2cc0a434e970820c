"""Cluster membership: one secret, the keys derived from it, and the sync-port handshake.

The operator creates the cluster secret once (`swarmconf kv cluster-key -o cluster.key`: 32
random bytes, base64, mode 0600) and gives the file to every node. Four keys are derived from
it with HMAC-SHA-256 under distinct labels, so none can stand in for another:

- Serf's gossip encryption key (`encrypt_key`): strangers can neither read nor inject gossip,
  user events or queries;
- Serf's RPC token (`rpc_auth`): a local user cannot send events or rewrite tags through the
  agent's RPC port;
- the handshake key: before a sync connection costs anything beyond its socket, both ends prove
  they hold it by MACing the other's fresh nonce (below);
- the wire key, which binds the keys of the sealed wire to the cluster (below).

Handshake, fixed sizes, done within `HANDSHAKE_TIMEOUT`:

1. initiator → responder: `MAGIC ‖ nonce_i ‖ id_i` (8 + 16 + 16 bytes);
2. responder → initiator: `nonce_r ‖ id_r ‖ HMAC(k, "R" ‖ transcript) ‖ Sig_r("R" ‖ transcript)`;
3. initiator → responder: `HMAC(k, "I" ‖ transcript) ‖ Sig_i("I" ‖ transcript)`;

where `transcript = nonce_i ‖ nonce_r ‖ id_i ‖ id_r` and `Sig_x` is an Ed25519 signature by the
identity key of node `x` (`identity`), under a label of its own. The MACs prove membership: a
stranger is refused (`HANDSHAKE_FAILED`) before its id is looked at. The signatures prove the
node id: each side checks the other's under the key the Serf membership announces for the id
claimed, and refuses an id no member announces (`UNKNOWN_NODE_ID`) or a signature that does not
verify (`NODE_ID_NOT_PROVEN`); an initiator also refuses a responder that is not the node it
meant to reach. So a member can neither claim several ids nor another member's. The labels keep
a reflected MAC or signature from passing; the nonces keep a replayed one from passing.

Then the key exchange seals the connection (`exchange_keys`), both ways at once:

4. each side → the other: `epk_x ‖ Sig_x("K" ‖ x ‖ transcript ‖ epk_x)`, a fresh X25519 key
   (libsodium's `crypto_kx`) signed by the identity key the handshake proved;
5. the initiator is `crypto_kx`'s client, the responder its server; each direction's key is
   `BLAKE2b(session key ‖ transcript ‖ epk_i ‖ epk_r)` keyed by the wire key, and every byte
   after that travels in one `crypto_secretstream_xchacha20poly1305` stream per direction
   (`wire`).

The ephemeral secret keys live only in memory for one connection, so a cluster key or an
identity key stolen later opens no recorded session (forward secrecy), and neither an outsider
nor a member on the path can stand in for either end: it would have to sign the ephemeral key.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import hmac
import json
import os
from dataclasses import dataclass
from pathlib import Path

from nacl.bindings import (
    crypto_kx_client_session_keys,
    crypto_kx_keypair,
    crypto_kx_server_session_keys,
)
from nacl.exceptions import CryptoError

from swarmconf.spec.kvgossip import crypto

from .identity import Directory, Identity, verify
from .privacy import check_private_file
from .reasons import NodeReason
from .wire import Report, SealedReader, SealedWriter

SECRET_SIZE = 32
NONCE_SIZE = 16
ID_SIZE = 16
MAC_SIZE = 32
SIG_SIZE = crypto.SIGNATURE_SIZE
MAGIC = b"KVGAUTH2"
HANDSHAKE_TIMEOUT = 2.0
OPENING_SIZE = len(MAGIC) + NONCE_SIZE + ID_SIZE
"""The initiator's first message: what a connection must send before it gets a stream."""
_GOSSIP_LABEL = b"swarmconf kv serf gossip"
_RPC_LABEL = b"swarmconf kv serf rpc"
_HANDSHAKE_LABEL = b"swarmconf kv sync handshake"
_SIGN_LABEL = b"swarmconf kv sync identity "
_WIRE_LABEL = b"swarmconf kv sync wire"
_WIRE_PERSON = b"kvg-wire-v1"
KX_PUBLIC_SIZE = 32
KX_SIZE = KX_PUBLIC_SIZE + SIG_SIZE
"""A key-exchange message: an ephemeral X25519 public key and its signature."""


@dataclass(frozen=True)
class Proven:
    """What a handshake established: the peer's node id, the identity key its membership
    announces, and the transcript both sides MACed and signed."""

    peer_id: bytes
    peer_key: bytes
    transcript: bytes


SERF_RECONNECT_INTERVAL = "1s"
"""How often Serf tries to reach one of the members it lost (set in the same file): at Serf's
default, 30 s, the two sides of a healed partition could go on without each other that long."""


class MembershipError(Exception):
    """A key file is unusable or a peer failed the handshake; `.reason` is a stable code."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason
        self.detail = detail


def _derive(secret: bytes, label: bytes) -> bytes:
    return hmac.new(secret, label, hashlib.sha256).digest()


@dataclass(frozen=True)
class ClusterKey:
    """The cluster secret and the keys derived from it."""

    secret: bytes

    @property
    def gossip_key(self) -> str:
        """Serf's `encrypt_key`: 32 bytes, base64."""
        return base64.b64encode(_derive(self.secret, _GOSSIP_LABEL)).decode()

    @property
    def rpc_token(self) -> str:
        """Serf's `rpc_auth` token."""
        return _derive(self.secret, _RPC_LABEL).hex()

    @property
    def handshake_key(self) -> bytes:
        """The MAC key of the sync-port handshake."""
        return _derive(self.secret, _HANDSHAKE_LABEL)

    @property
    def wire_key(self) -> bytes:
        """The BLAKE2b key that binds the sealed wire's keys to the cluster (`exchange_keys`)."""
        return _derive(self.secret, _WIRE_LABEL)

    @classmethod
    def generate(cls) -> ClusterKey:
        """A fresh random cluster secret."""
        return cls(os.urandom(SECRET_SIZE))


def write_cluster_key(path: Path, key: ClusterKey) -> None:
    """Create `path` (never overwriting) holding the secret in base64, mode 0600."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        raise MembershipError(
            NodeReason.BAD_ARGUMENT, f"cannot create {path}: {exc.strerror}"
        ) from exc
    with os.fdopen(fd, "w") as out:
        out.write(base64.b64encode(key.secret).decode() + "\n")


def write_serf_secrets(path: Path, key: ClusterKey, *, replace: bool = False) -> None:
    """Write a Serf agent config file (mode 0600) holding the gossip key and the RPC token
    (and how often to reach for lost members)."""
    if replace:
        path.unlink(missing_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        raise MembershipError(
            NodeReason.BAD_ARGUMENT, f"cannot create {path}: {exc.strerror}"
        ) from exc
    with os.fdopen(fd, "w") as out:
        json.dump(
            {
                "encrypt_key": key.gossip_key,
                "rpc_auth": key.rpc_token,
                "reconnect_interval": SERF_RECONNECT_INTERVAL,
            },
            out,
        )


def read_cluster_key(path: Path) -> ClusterKey:
    """The cluster key in `path`, refused if others may read it or it is not 32 bytes."""
    check_private_file(path)
    try:
        text = path.read_text().strip()
    except OSError as exc:
        raise MembershipError(
            NodeReason.BAD_ARGUMENT, f"cannot read {path}: {exc.strerror}"
        ) from exc
    try:
        secret = base64.b64decode(text, validate=True)
    except binascii.Error as exc:
        raise MembershipError(NodeReason.BAD_ARGUMENT, f"{path} is not base64") from exc
    if len(secret) != SECRET_SIZE:
        raise MembershipError(
            NodeReason.BAD_ARGUMENT, f"{path} must hold {SECRET_SIZE} bytes, not {len(secret)}"
        )
    return ClusterKey(secret)


def _mac(key: bytes, label: bytes, transcript: bytes) -> bytes:
    return hmac.new(key, label + transcript, hashlib.sha256).digest()


def _signed(label: bytes, transcript: bytes) -> bytes:
    return _SIGN_LABEL + label + transcript


async def _check_identity(
    directory: Directory, node_id: bytes, label: bytes, transcript: bytes, signature: bytes
) -> bytes:
    """Node `node_id`'s identity key, as its Serf tags announce it; raise unless `signature`
    is by that key."""
    public = await directory.lookup(node_id)
    if public is None:
        raise MembershipError(NodeReason.UNKNOWN_NODE_ID, f"no member announces {node_id.hex()}")
    if not verify(public, _signed(label, transcript), signature):
        raise MembershipError(
            NodeReason.NODE_ID_NOT_PROVEN, f"not signed by the key of {node_id.hex()}"
        )
    return public


async def _read(reader: asyncio.StreamReader, size: int) -> bytes:
    try:
        return await reader.readexactly(size)
    except (asyncio.IncompleteReadError, ConnectionError) as exc:
        raise MembershipError(NodeReason.HANDSHAKE_FAILED, "closed during the handshake") from exc


async def _send(writer: asyncio.StreamWriter, data: bytes) -> None:
    writer.write(data)
    try:
        await writer.drain()
    except ConnectionError as exc:
        raise MembershipError(NodeReason.HANDSHAKE_FAILED, "closed during the handshake") from exc


async def answer_handshake(
    key: ClusterKey,
    identity: Identity,
    directory: Directory,
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    deadline: float | None = None,
) -> bytes:
    """Responder side: return the initiator's node id once it has proved membership and id,
    within `HANDSHAKE_TIMEOUT` or by `deadline` (event-loop time)."""
    return (await answer_membership(key, identity, directory, reader, writer, deadline)).peer_id


async def answer_membership(
    key: ClusterKey,
    identity: Identity,
    directory: Directory,
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    deadline: float | None = None,
) -> Proven:
    """`answer_handshake`, returning all it established."""
    node_id = identity.node_id
    if deadline is None:
        deadline = asyncio.get_running_loop().time() + HANDSHAKE_TIMEOUT
    try:
        async with asyncio.timeout_at(deadline):
            hello = await _read(reader, OPENING_SIZE)
            if not hmac.compare_digest(hello[: len(MAGIC)], MAGIC):
                raise MembershipError(NodeReason.HANDSHAKE_FAILED, "no membership handshake")
            nonce_i = hello[len(MAGIC) : len(MAGIC) + NONCE_SIZE]
            id_i = hello[len(MAGIC) + NONCE_SIZE :]
            nonce_r = os.urandom(NONCE_SIZE)
            transcript = nonce_i + nonce_r + id_i + node_id
            await _send(
                writer,
                nonce_r
                + node_id
                + _mac(key.handshake_key, b"R", transcript)
                + identity.sign(_signed(b"R", transcript)),
            )
            proof = await _read(reader, MAC_SIZE + SIG_SIZE)
            if not hmac.compare_digest(proof[:MAC_SIZE], _mac(key.handshake_key, b"I", transcript)):
                raise MembershipError(NodeReason.HANDSHAKE_FAILED, "wrong cluster key")
            public = await _check_identity(directory, id_i, b"I", transcript, proof[MAC_SIZE:])
    except TimeoutError as exc:
        raise MembershipError(
            NodeReason.HANDSHAKE_FAILED, f"no handshake within {HANDSHAKE_TIMEOUT} s"
        ) from exc
    return Proven(id_i, public, transcript)


async def open_handshake(
    key: ClusterKey,
    identity: Identity,
    directory: Directory,
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    expect: bytes | None = None,
) -> Proven:
    """Initiator side: return what the handshake established once the responder has proved
    membership and id; with `expect`, refuse a responder that proves another id."""
    node_id = identity.node_id
    nonce_i = os.urandom(NONCE_SIZE)
    try:
        async with asyncio.timeout(HANDSHAKE_TIMEOUT):
            await _send(writer, MAGIC + nonce_i + node_id)
            reply = await _read(reader, NONCE_SIZE + ID_SIZE + MAC_SIZE + SIG_SIZE)
            nonce_r, id_r = reply[:NONCE_SIZE], reply[NONCE_SIZE : NONCE_SIZE + ID_SIZE]
            mac, signature = reply[NONCE_SIZE + ID_SIZE : -SIG_SIZE], reply[-SIG_SIZE:]
            transcript = nonce_i + nonce_r + node_id + id_r
            if not hmac.compare_digest(mac, _mac(key.handshake_key, b"R", transcript)):
                raise MembershipError(NodeReason.HANDSHAKE_FAILED, "peer has another cluster key")
            if expect is not None and id_r != expect:
                raise MembershipError(
                    NodeReason.NODE_ID_NOT_PROVEN, f"peer is {id_r.hex()}, not {expect.hex()}"
                )
            public = await _check_identity(directory, id_r, b"R", transcript, signature)
            await _send(
                writer,
                _mac(key.handshake_key, b"I", transcript)
                + identity.sign(_signed(b"I", transcript)),
            )
    except TimeoutError as exc:
        raise MembershipError(
            NodeReason.HANDSHAKE_FAILED, f"no handshake within {HANDSHAKE_TIMEOUT} s"
        ) from exc
    return Proven(id_r, public, transcript)


async def exchange_keys(
    key: ClusterKey,
    identity: Identity,
    proven: Proven,
    initiator: bool,
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    report: Report,
) -> tuple[SealedReader, SealedWriter]:
    """After the handshake: trade signed ephemeral X25519 keys and seal the connection both
    ways (`wire`), with keys bound to the handshake's transcript and the cluster key."""
    public, secret = crypto_kx_keypair()
    own, theirs = (b"KI", b"KR") if initiator else (b"KR", b"KI")
    await _send(writer, public + identity.sign(_signed(own, proven.transcript + public)))
    reply = await _read(reader, KX_SIZE)
    peer_public, signature = reply[:KX_PUBLIC_SIZE], reply[KX_PUBLIC_SIZE:]
    if not verify(proven.peer_key, _signed(theirs, proven.transcript + peer_public), signature):
        raise MembershipError(NodeReason.WIRE_TAMPERED, "key exchange not signed by the peer")
    try:
        if initiator:
            rx, tx = crypto_kx_client_session_keys(public, secret, peer_public)
            ephemeral = public + peer_public
        else:
            rx, tx = crypto_kx_server_session_keys(public, secret, peer_public)
            ephemeral = peer_public + public
    except CryptoError as exc:
        raise MembershipError(NodeReason.WIRE_TAMPERED, "unusable ephemeral key") from exc
    context = proven.transcript + ephemeral
    return (
        SealedReader(reader, _bind(key, rx, context), report),
        SealedWriter(writer, _bind(key, tx, context)),
    )


def _bind(key: ClusterKey, session_key: bytes, context: bytes) -> bytes:
    """One direction's stream key: the X25519 session key hashed with the handshake transcript
    and both ephemeral keys, under BLAKE2b keyed by the cluster's wire key."""
    return hashlib.blake2b(
        session_key + context, key=key.wire_key, digest_size=32, person=_WIRE_PERSON
    ).digest()


async def connect_member(
    host: str, port: int, key: ClusterKey, identity: Identity, directory: Directory
) -> tuple[SealedReader, SealedWriter]:
    """A sync connection that has passed the handshake as `identity` and is sealed (tools and
    tests: a refused stream is seen as the `FrameError` its reads raise)."""
    reader, writer = await asyncio.open_connection(host, port)
    try:
        async with asyncio.timeout(HANDSHAKE_TIMEOUT):
            proven = await open_handshake(key, identity, directory, reader, writer)
            return await exchange_keys(
                key, identity, proven, True, reader, writer, lambda reason, detail: None
            )
    except (MembershipError, TimeoutError):
        writer.close()
        raise
