"""The K/V Gossip node: the spec's state machine and sync sessions on a real Serf cluster.

A node owns a SQLite store, a TCP sync server and an RPC connection to a Serf agent (one it
starts, or one it is pointed at). Discovery (notes 3.5): on start, on joins and after changes
it sends the state query `kvg-th`; the members whose hashes differ answer, and it runs a sync
session with the nearest few by network coordinate, sweeping again until nobody disagrees
(backing off), then again every `resync_interval`, both timers scaled with the member count
(`sizing`). A local write is pushed whole to the nearest alive peers
over kept-open connections (K9) and announced by the user event `kvg-ch`; a node that misses
the push fetches the one key from the writer (K10), falling back to a session. A new
revocation travels whole as the user event `kvg-rv`. Nothing a peer or the network sends can
crash the node: bad payloads and frames are counted under their reason code and dropped.

Only members talk to it: Serf runs with the gossip key and RPC token derived from the cluster
key, and the sync port admits a connection only after the membership handshake (`membership`,
`guard`), in which the peer also proves its node id with the identity key its Serf tags announce
(`identity`), within the limits of `limits`; pushes and fetches travel on such connections too.
The data directory and its files are private (`privacy`); refusals are counted, logged
(`refusals`) and exported (`metrics`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import random
from collections import Counter
from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from swarmconf.spec.kvgossip import messages as m
from swarmconf.spec.kvgossip.push import Answer
from swarmconf.spec.kvgossip.reasons import KvError, KvReason
from swarmconf.spec.kvgossip.records import Record
from swarmconf.spec.kvgossip.session import DEFAULT_MAX_LOOPS
from swarmconf.spec.kvgossip.state import (
    DEFAULT_SKEW_MS,
    Outcome,
    Verdict,
    apply_revocation,
    receive_record,
)

from . import gossip
from .door import Opening
from .fanout import PUSH_FANOUT, Ring, Target, handed_down, plan
from .frames import IDLE_TIMEOUT, FrameError, FrameReader, FrameWriter
from .guard import SyncGuard
from .identity import Directory, load_identity
from .limits import MAX_PENDING, SESSION_DEADLINE
from .membership import ClusterKey, MembershipError
from .metrics import NodeMetrics
from .notices import FETCH_LIMIT, NoticeBucket, NoticePacer, PendingNotices
from .privacy import check_private_file, private_dir, private_file
from .reasons import NodeReason
from .refusals import Refusals
from .serf_agent import AgentConfig, SerfAgent, free_port
from .serf_rpc import Member, MemberEvent, Query, SerfError, SerfRPC, StreamRecord, UserEvent
from .sizing import Relayed, query_timeout, resync_interval, sweep_sessions
from .store import SqliteStore
from .sync import PushLink, SessionOutcome, SyncSettings, serve, wall_clock_ms

log = logging.getLogger("swarmconf.reference.kvgossip")

STORE_FILE = "store.db"
SERF_SECRETS_FILE = "serf-secrets.json"
CHECKPOINT_INTERVAL = 1.0
"""Seconds between checkpoints of the store (when something was committed)."""
LINK_CHECK = 5.0
LINK_RENEW_AGE = SESSION_DEADLINE * 2 / 3
"""Push connections are replaced at this age, checked every `LINK_CHECK` seconds, before the
peer's session deadline ends them."""
LOOPBACK = ("127.", "::1", "localhost")
_STREAM_TYPES = ",".join(
    [
        f"user:{gossip.CHANGE_EVENT}",
        f"user:{gossip.REVOCATION_EVENT}",
        f"query:{gossip.STATE_QUERY}",
        "member-join",
        "member-update",
        "member-leave",
        "member-failed",
    ]
)


@dataclass
class NodeConfig:
    """Everything a node needs; addresses default to loopback."""

    data_dir: Path
    root: bytes
    name: str
    host: str = "127.0.0.1"
    sync_port: int = 0
    advertise_port: int = 0
    """The sync port announced to peers when they reach this one through a forwarder (a NAT
    or a proxy); 0 announces the sync port itself."""
    serf_rpc: tuple[str, int] | None = None
    """An agent already running; None starts one with the two ports below."""
    serf_port: int = 7946
    serf_rpc_port: int = 7373
    """0 for either: free ports, chosen again if taken before the agent binds them."""
    join: tuple[str, ...] = ()
    query_timeout: float = 1.0
    """Per decade of members (`sizing.query_timeout`)."""
    resync_interval: float = 30.0
    """Up to `sizing.RESYNC_MEMBERS` members, longer past that (`sizing.resync_interval`)."""
    skew_ms: int = DEFAULT_SKEW_MS
    max_loops: int = DEFAULT_MAX_LOOPS
    idle_timeout: float = IDLE_TIMEOUT
    synchronous: str = "NORMAL"
    """SQLite's sync level: NORMAL survives any process crash; FULL also a power loss."""
    push: bool = True
    """Push local writes (K9); off, writes spread by `kvg-ch`, fetch and sessions alone."""
    cluster_key: ClusterKey | None = None
    """The cluster secret (gossip encryption, RPC auth, sync handshake)."""
    insecure: bool = False
    """Run without a cluster key: allowed on loopback only, for experiments."""


def serf_profile(host: str) -> str:
    """The Serf timing profile of a managed agent: `local` on loopback; `lan` elsewhere,
    whose probe timeout (500 ms, not 200) and suspicion keep a busy member from being
    declared failed (at 32 nodes on two loaded cores, `local` declared busy members
    failed 15 times in six minutes)."""
    return "local" if host.startswith(LOOPBACK) else "lan"


class NodeStartError(Exception):
    """The node refuses to start; `.reason` is a stable code."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason
        self.detail = detail


def check_membership(config: NodeConfig) -> None:
    """A node needs the cluster key, unless it runs `--insecure` on loopback."""
    if config.cluster_key is not None:
        return
    if not config.insecure:
        raise NodeStartError(
            NodeReason.NO_CLUSTER_KEY,
            "give --cluster-key FILE (create one with `swarmconf kv cluster-key -o FILE`)",
        )
    if not config.host.startswith(LOOPBACK):
        raise NodeStartError(
            NodeReason.NO_CLUSTER_KEY, f"--insecure is for loopback only, not {config.host}"
        )
    log.warning(
        "running INSECURE: no cluster key, anyone on this host can sync and gossip,"
        " and the sync wire is in clear"
    )


@dataclass
class NodeStats:
    """Counters reported by `status`."""

    sessions_ok: int = 0
    sessions_failed: Counter[str] = field(default_factory=Counter)
    refused: Counter[str] = field(default_factory=Counter)
    """Payloads, records and revocations refused, by reason code."""
    sweeps: int = 0
    records_applied: int = 0
    notices: Counter[str] = field(default_factory=Counter)
    """Change notices received, and the fetches and sessions they caused."""
    notices_dropped: Counter[str] = field(default_factory=Counter)
    """Change notices dropped unacted, by reason code."""


def _applied(outcome: SessionOutcome) -> int:
    """Records and revocations a session applied to the store."""
    accepted = sum(1 for _, verdict, _ in outcome.log.verdicts if verdict is Outcome.ACCEPTED)
    return accepted + outcome.log.revocations_applied


class Node:
    """One running node. `await start()`, then `await stop()`."""

    def __init__(self, config: NodeConfig) -> None:
        self.config = config
        check_membership(config)
        private_dir(config.data_dir)
        private_file(config.data_dir / STORE_FILE)
        for journal in ("-wal", "-shm"):
            check_private_file(config.data_dir / (STORE_FILE + journal))
        self.identity = load_identity(config.data_dir)
        self.store = SqliteStore(
            config.data_dir / STORE_FILE, config.root, synchronous=config.synchronous
        )
        self.store.defer_checkpoints()
        self.node_id = self.identity.node_id
        self.settings = SyncSettings(
            store=self.store,
            root=config.root,
            node_id=self.node_id,
            skew_ms=config.skew_ms,
            max_loops=config.max_loops,
            idle_timeout=config.idle_timeout,
        )
        self.stats = NodeStats()
        self.metrics = NodeMetrics()
        self.metrics.watch(self.counters)
        self.sync_port = config.sync_port
        self.serf_name = config.name
        self._rpc: SerfRPC | None = None
        self._agent: SerfAgent | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self._wake = asyncio.Event()
        self._sweep_requested = True
        self._bucket = NoticeBucket()
        self._pending = PendingNotices()
        self._pacer = NoticePacer()
        self._settling: set[bytes] = set()
        """Writers whose notices a task is acting on."""
        self.refusals = Refusals()
        self.directory = Directory(self._members)
        self.guard = SyncGuard(
            self.settings, config.cluster_key, self.identity, self.directory, self.refusals
        )
        self._handlers: set[asyncio.Task[Any]] = set()
        self._door = self.guard.door(lambda opening: self._spawn(self._on_sync_connection(opening)))
        self._peer_hashes: dict[str, gossip.StateHashes] = {}
        self._nearest: list[gossip.Peer] = []
        """Alive peers, nearest first; refreshed on member events and sweeps."""
        self._ring = Ring.of(self.node_id, [])
        self._links: dict[bytes, PushLink] = {}
        self._relayed = Relayed()

    # --- lifecycle --------------------------------------------------------------------------

    async def start(self) -> None:
        """Open the sync port, reach the Serf agent and start discovery."""
        self.sync_port = self._door.open(self.config.host, self.config.sync_port, MAX_PENDING)
        if self.config.serf_rpc is None:
            self._agent = SerfAgent(
                AgentConfig(
                    node=self.config.name,
                    host=self.config.host,
                    bind_port=self.config.serf_port or free_port(self.config.host),
                    rpc_port=self.config.serf_rpc_port or free_port(self.config.host),
                    tags=self._tags(),
                    log_path=self.config.data_dir / "serf.log",
                    key=self.config.cluster_key,
                    config_path=self.config.data_dir / SERF_SECRETS_FILE,
                    profile=serf_profile(self.config.host),
                )
            )
        self._tasks = [
            asyncio.create_task(self._serf_loop()),
            asyncio.create_task(self._sweep_loop()),
            asyncio.create_task(self._checkpoint_loop()),
            asyncio.create_task(self._links_loop()),
        ]

    async def stop(self) -> None:
        """Stop discovery and sessions, leave the cluster and close the store."""
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._door.close()
        for link in self._links.values():
            link.close()
        for handler in list(self._handlers):
            handler.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await handler
        if self._rpc is not None:
            await self._rpc.close()
        if self._agent is not None:
            await self._agent.stop()
        self.metrics.close()
        self.store.close()

    async def _checkpoint_loop(self) -> None:
        """Checkpoint the store on a worker thread, so no write waits for a disk sync."""
        done = 0
        while True:
            await asyncio.sleep(CHECKPOINT_INTERVAL)
            if self.store.commits != done:
                done = self.store.commits
                await asyncio.to_thread(self.store.checkpoint)

    async def _links_loop(self) -> None:
        while True:
            await asyncio.sleep(LINK_CHECK)
            self._renew_links()

    def _renew_links(self) -> None:
        """Replace the push connections that near the peers' session deadline."""
        for peer, _ in self._push_peers():
            link = self._links.get(peer.node_id)
            if link is not None and link.age > LINK_RENEW_AGE:
                self._spawn(self._renew(peer, link))

    async def _renew(self, peer: gossip.Peer, link: PushLink) -> None:
        try:
            await link.renew()
        except Exception as exc:  # the peer is likely gone: the next push connects anew
            link.close()
            log.info("push link to %s not renewed: %s", peer.name, exc)

    def _tags(self) -> dict[str, str]:
        port = self.config.advertise_port or self.sync_port
        return {gossip.TAG_PORT: str(port), **self.identity.tags()}

    # --- Serf -------------------------------------------------------------------------------

    async def _connect_serf(self) -> SerfRPC:
        if self._agent is None:
            assert self.config.serf_rpc is not None
            host, port = self.config.serf_rpc
            key = self.config.cluster_key
            return await SerfRPC.connect(host, port, auth=key.rpc_token if key else None)
        if not self._agent.running:
            await self._agent.start(rebind=0 in (self.config.serf_port, self.config.serf_rpc_port))
        return await self._agent.connect()

    async def _serf_loop(self) -> None:
        """Stay connected to the agent; reconnect (restarting a managed agent) when it goes."""
        backoff = 0.2
        while True:
            try:
                rpc = await self._connect_serf()
            except SerfError as exc:
                log.warning("serf: %s", exc)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 5.0)
                continue
            backoff = 0.2
            try:
                await rpc.tags(self._tags())
                self.serf_name = str((await rpc.stats())["agent"]["name"])
                stream = await rpc.stream(_STREAM_TYPES)
                self._rpc = rpc
                await self._join(rpc)
                await self._refresh_peers(rpc)
                self._request_sweep()
                async for record in stream:
                    try:
                        await self._on_serf_record(rpc, record)
                    except SerfError:
                        raise
                    except Exception:  # never let one bad record end the subscription
                        log.exception("serf %s record", type(record).__name__)
            except SerfError as exc:
                log.warning("serf connection lost: %s", exc)
            finally:
                self._rpc = None
                self._nearest = []  # cut off from the cluster: push to nobody
                self._ring = Ring.of(self.node_id, [])
                await rpc.close()
            await asyncio.sleep(backoff)

    async def _join(self, rpc: SerfRPC) -> bool:
        if not self.config.join:
            return True
        try:
            return await rpc.join(list(self.config.join)) > 0
        except SerfError as exc:
            log.warning("serf join failed: %s", exc)
            return False

    async def _on_serf_record(self, rpc: SerfRPC, record: StreamRecord) -> None:
        if isinstance(record, Query):
            await self._on_state_query(rpc, record)
        elif isinstance(record, UserEvent) and record.name == gossip.CHANGE_EVENT:
            self._on_change(record.payload)
        elif isinstance(record, UserEvent) and record.name == gossip.REVOCATION_EVENT:
            self.revoke(record.payload)
        elif isinstance(record, MemberEvent):
            log.info("%s: %s", record.kind, ", ".join(mb.name for mb in record.members))
            await self._keep_tags(rpc, record)
            await self._refresh_peers(rpc)
            self._request_sweep()

    async def _keep_tags(self, rpc: SerfRPC, event: MemberEvent) -> None:
        """Put back this node's tags if someone with RPC access rewrote them."""
        mine = self._tags()
        for member in event.members:
            if member.name == self.serf_name and any(
                member.tags.get(name) != value for name, value in mine.items()
            ):
                log.warning("serf tags of %s changed to %s: restoring", member.name, member.tags)
                await rpc.tags(mine)

    async def _on_state_query(self, rpc: SerfRPC, query: Query) -> None:
        try:
            theirs = gossip.decode_state(query.payload)
        except KvError as exc:
            self.stats.refused[exc.reason.value] += 1
            return
        mine = self.hashes()
        if theirs.node_id == self.node_id:
            return
        if (theirs.tree_hash, theirs.revset_hash) == (mine.tree_hash, mine.revset_hash):
            return
        with contextlib.suppress(SerfError):
            await rpc.respond(query.id, mine.encode())

    def _on_change(self, payload: bytes) -> None:
        """Note a change notice for its writer's task (see `notices`), at O(1) cost."""
        self.stats.notices["received"] += 1
        if not self._bucket.take():
            self.stats.notices_dropped[NodeReason.NOTICE_RATE_LIMIT] += 1
            return
        try:
            change = gossip.decode_change(payload)
        except KvError as exc:
            self.stats.refused[exc.reason.value] += 1
            return
        if change.node_id == self.node_id:
            return
        if change.ts > wall_clock_ms() + self.config.skew_ms:
            self.stats.refused[KvReason.FUTURE_TIMESTAMP.value] += 1
            return  # any record it announces would be refused
        if self._writer(change.node_id) is None:
            self.stats.notices_dropped[NodeReason.NOTICE_UNKNOWN_WRITER] += 1
            return
        if self._holds(change):
            return
        self._pending.add(change)
        if change.node_id not in self._settling:
            self._settling.add(change.node_id)
            self._spawn(self._settle(change.node_id))

    def _holds(self, change: gossip.Change) -> bool:
        """Whether the store holds the announced version of the key, or a newer one."""
        local = self.store.lww_key(change.key)
        return local is not None and local >= (change.ts, change.entry_hash)

    def _writer(self, node_id: bytes) -> gossip.Peer | None:
        return next((p for p in self._nearest if p.node_id == node_id), None)

    async def _settle(self, writer: bytes) -> None:
        """Act on the notices naming `writer` until none waits: fetch a few keys (K10), or run
        one session with the writer for many keys or when a fetch does not settle its key;
        paced by what the last ones applied."""
        try:
            while self._pending.waiting(writer):
                await asyncio.sleep(self._pacer.wait_for(writer))
                changes, overflowed = self._pending.take(writer)
                peer = self._writer(writer)
                if peer is None:  # gone from the cluster: the sweeps settle what it wrote
                    continue
                if not overflowed and len(changes) <= FETCH_LIMIT:
                    applied = await self._fetch(peer, changes)
                    if applied is not None:
                        self._pacer.finished(writer, applied)
                        continue
                self.stats.notices["sessions"] += 1
                outcome = await self._session(peer)
                if outcome is None or outcome.error is not None:
                    self._request_sweep()
                if outcome is not None:
                    self._pacer.finished(writer, _applied(outcome))
        finally:
            self._settling.discard(writer)

    async def _fetch(self, peer: gossip.Peer, changes: list[gossip.Change]) -> int | None:
        """Fetch announced keys one by one from their writer (K10): the records applied, or
        None if a fetch failed or did not bring the announced version."""
        applied = 0
        try:
            for change in changes:
                self.stats.notices["fetches"] += 1
                reply = await self._link(peer).request(m.message(m.FETCH, [change.key]))
                if reply[0] == m.RECORDS:
                    with self.store.transaction():
                        for data in reply[1]:
                            verdict = receive_record(
                                self.store, data, self.config.root, wall_clock_ms()
                            )
                            applied += verdict.outcome is Outcome.ACCEPTED
                if not self._holds(change):
                    return None
        except (OSError, TimeoutError, FrameError, KvError, MembershipError) as exc:
            log.info("fetch from %s failed: %s", peer.name, exc)
            return None
        return applied

    # --- push (K9) --------------------------------------------------------------------------

    def _link(self, peer: gossip.Peer) -> PushLink:
        link = self._links.get(peer.node_id)
        if link is None or (link.host, link.port) != (peer.host, peer.port):
            if link is not None:
                link.close()
            link = self._links[peer.node_id] = PushLink(
                peer.host, peer.port, functools.partial(self.guard.connect, expect=peer.node_id)
            )
        return link

    def _push_peers(self, sender: bytes | None = None) -> list[tuple[gossip.Peer, Target | None]]:
        """Whom to push to (`fanout`): every alive peer, nearest first, when there are no more
        than `PUSH_FANOUT` (and nobody relays); else the ring's binomial tree, as the writer
        (`sender` None) or relaying what `sender` pushed."""
        if len(self._nearest) <= PUSH_FANOUT:
            return [(peer, None) for peer in self._nearest] if sender is None else []
        distance = None if sender is None else self._ring.distance(sender)
        if sender is not None and distance is None:
            return []  # a sender this node does not see: the change event covers the rest
        return self._on_ring(plan(self._ring.size, distance))

    def _on_ring(self, targets: list[Target]) -> list[tuple[gossip.Peer, Target | None]]:
        peers = {p.node_id: p for p in self._nearest}
        found = ((peers.get(self._ring.at(t.offset)), t) for t in targets)
        return [(peer, target) for peer, target in found if peer is not None]

    def _push(self, records: list[Record], sender: bytes | None = None) -> None:
        """Push records to `_push_peers`, a task each; a failed push is handed down to the
        members the failed one would have relayed to, and anything left to K10."""
        if not self.config.push or not records:
            return
        frame = m.message(m.PUSH, [r.encode() for r in records])
        for peer, target in self._push_peers(sender):
            self._spawn(self._push_to(peer, frame, target))

    async def _push_to(self, peer: gossip.Peer, frame: bytes, target: Target | None) -> None:
        try:
            await self._link(peer).request(frame)
        except Exception as exc:  # any failure: the change event covers it
            log.info("push to %s failed: %s", peer.name, exc)
            if target is not None:
                for below, where in self._on_ring(handed_down(target)):
                    self._spawn(self._push_to(below, frame, where))

    def _relay(self, got: Answer, sender: bytes | None) -> None:
        """Relay what a push from `sender` brought (`_push_peers`): each version the first time
        it is pushed here, whether new or already stored (fetched before the push came)."""
        if sender is None:
            return
        records = []
        for key, verdict in got.verdicts:
            record = verdict.record
            if verdict.outcome is Outcome.AGREE:
                record = self.store.get(key)
            if record is not None and self._relayed.first((key, record.ts, record.entry_hash)):
                records.append(record)
        self._push(records, sender)

    def _spawn(self, coroutine: Coroutine[Any, Any, None]) -> None:
        task = asyncio.create_task(coroutine)
        self._handlers.add(task)
        task.add_done_callback(self._handlers.discard)

    async def _refresh_peers(self, rpc: SerfRPC) -> None:
        try:
            self._nearest = await self._nearest_first(rpc, list((await self._peers(rpc)).values()))
        except SerfError as exc:
            log.info("peer list not refreshed: %s", exc)
            return
        self._ring = Ring.of(self.node_id, [p.node_id for p in self._nearest])
        if self.config.push:  # the first push need not wait for a connection and handshake
            for peer, _ in self._push_peers():
                link = self._link(peer)
                if not link.connected:
                    self._spawn(self._open_link(peer, link))

    async def _open_link(self, peer: gossip.Peer, link: PushLink) -> None:
        try:
            await link.open()
        except Exception as exc:  # the next push tries again
            log.info("push link to %s not opened: %s", peer.name, exc)

    # --- sync -------------------------------------------------------------------------------

    def _request_sweep(self) -> None:
        self._sweep_requested = True
        self._wake.set()

    async def _sweep_loop(self) -> None:
        """State-query sweeps when asked and periodically, backing off until nobody disagrees."""
        retry = 0.25
        while True:
            # Jittered: two nodes refusing each other's sessions (`MAX_SYNCS`) must not retry
            # in step.
            timeout = (
                retry * random.uniform(0.5, 1.5)
                if self._sweep_requested
                else resync_interval(self.config.resync_interval, self._members_count())
            )
            if not self._wake.is_set():
                try:
                    await asyncio.wait_for(self._wake.wait(), timeout)
                except TimeoutError:
                    self._sweep_requested = True
            self._wake.clear()
            rpc = self._rpc
            if rpc is None or not self._sweep_requested:
                continue
            self._sweep_requested = False
            try:
                if await self._sweep(rpc):
                    self._sweep_requested = True
            except SerfError as exc:
                log.warning("sweep: %s", exc)
                self._sweep_requested = True
            retry = min(retry * 2, self.config.resync_interval) if self._sweep_requested else 0.25

    def _members_count(self) -> int:
        """Alive members, this node included."""
        return len(self._nearest) + 1

    async def _members(self) -> list[Member] | None:
        """The members as the agent sees them now (for the identity directory)."""
        rpc = self._rpc
        if rpc is None:
            return None
        try:
            return await rpc.members()
        except SerfError:
            return None

    async def _peers(self, rpc: SerfRPC) -> dict[str, gossip.Peer]:
        members = await rpc.members()
        self.directory.update(members)
        peers = (gossip.peer_of(m) for m in members)
        return {p.name: p for p in peers if p is not None and p.node_id != self.node_id}

    async def _sweep(self, rpc: SerfRPC) -> bool:
        """One state query and a session with the nearest few disagreeing peers (`sizing`);
        True if any disagreed or the store changed meanwhile (sweep again)."""
        self.stats.sweeps += 1
        if self.config.join and not await self._peers(rpc) and not await self._join(rpc):
            return True  # not in the cluster yet: try again after the back-off
        await self._refresh_peers(rpc)
        mine = self.hashes()
        replies = await rpc.query(
            gossip.STATE_QUERY,
            mine.encode(),
            timeout=query_timeout(self.config.query_timeout, self._members_count()),
        )
        differing: set[str] = set()
        async for reply in replies:
            if reply.kind != "response":
                continue
            try:
                theirs = gossip.decode_state(reply.payload)
            except KvError as exc:
                self.stats.refused[exc.reason.value] += 1
                continue
            self._peer_hashes[reply.sender] = theirs
            if theirs.node_id != self.node_id:
                differing.add(reply.sender)
        log.info("sweep: %d peer(s) differ", len(differing))
        if not differing:
            return False
        peers = [p for name, p in (await self._peers(rpc)).items() if name in differing]
        nearest = await self._nearest_first(rpc, peers)
        for peer in sweep_sessions(nearest, changed=self.hashes() != mine):
            await self._session(peer)
        return True

    async def _nearest_first(self, rpc: SerfRPC, peers: list[gossip.Peer]) -> list[gossip.Peer]:
        mine = await rpc.get_coordinate(self.serf_name)
        coords = {p.name: await rpc.get_coordinate(p.name) for p in peers}
        return gossip.by_distance(peers, mine, coords)

    async def _session(self, peer: gossip.Peer) -> SessionOutcome | None:
        """A session with `peer`; None when one with it is running already, in either role
        (that one settles both directions, and a second would move every record twice), or
        when this node runs as many sessions as it may (`MAX_SYNCS`)."""
        if peer.node_id in self.settings.in_session:
            log.info("session with %s skipped: one is running", peer.name)
            return None
        if self.settings.running >= self.settings.max_syncs:
            log.info("session with %s skipped: %d running", peer.name, self.settings.running)
            return None
        log.info("session with %s (rtt %.2f ms)", peer.name, peer.rtt * 1000)
        self.settings.running += 1
        try:
            outcome = await self.guard.open(peer.host, peer.port, peer.node_id)
        finally:
            self.settings.running -= 1
        self._count(outcome)
        return outcome

    async def _on_sync_connection(self, opening: Opening) -> None:
        with contextlib.suppress(asyncio.CancelledError):  # the node is stopping
            outcome = await self.guard.accept(opening, self._respond)
            if outcome is not None:
                self._count(outcome)

    async def _respond(
        self, reader: FrameReader, writer: FrameWriter, peer_id: bytes | None
    ) -> SessionOutcome | None:
        """A session, or a push connection (None) answered until the peer leaves (K9, K10)."""
        return await serve(self.settings, reader, writer, self._relay, peer_id)

    def _count(self, outcome: SessionOutcome) -> None:
        if outcome.error is None:
            self.stats.sessions_ok += 1
        else:
            self.stats.sessions_failed[outcome.error.split(":")[0]] += 1
            log.info("session (%s) ended: %s", outcome.role.value, outcome.error)
        now = wall_clock_ms()
        accepted = []
        for key, verdict_outcome, reason in outcome.log.verdicts:
            if verdict_outcome is Outcome.REJECTED and reason is not None:
                self.stats.refused[reason.value] += 1
            elif verdict_outcome is Outcome.ACCEPTED:
                accepted.append(key)
        self.stats.records_applied += len(accepted)
        for ts in self.store.timestamps(accepted).values():
            self.metrics.propagation.observe(max(0, now - ts) / 1000)

    # --- local operations (the control API) ---------------------------------------------------

    def hashes(self) -> gossip.StateHashes:
        """This node's current state hashes."""
        return gossip.StateHashes(self.node_id, self.store.tree_hash(), self.store.revset_hash())

    async def put(self, data: bytes) -> Verdict:
        """Apply a locally signed record exactly as a remote one; announce it if accepted."""
        with self.store.transaction():
            verdict = receive_record(self.store, data, self.config.root, wall_clock_ms())
        if verdict.outcome is Outcome.ACCEPTED and verdict.record is not None:
            record = verdict.record
            change = gossip.Change(self.node_id, record.key, record.ts, record.entry_hash)
            # Both in the background, the pushes first: their frames leave before the event.
            self._push([record])
            self._spawn(self._fire(gossip.CHANGE_EVENT, change.encode()))
        return verdict

    def revoke(self, data: bytes) -> tuple[str | None, bool, tuple[str, ...]]:
        """Apply a revocation: (reason refused or None, whether it was new, purged keys)."""
        with self.store.transaction():
            verdict = apply_revocation(self.store, data, self.config.root)
        if verdict.reason is not None:
            self.stats.refused[verdict.reason.value] += 1
            return verdict.reason.value, False, ()
        if verdict.new:
            # Purged keys may have older still-valid versions elsewhere.
            self._request_sweep()
        return None, verdict.new, verdict.purged

    async def announce_revocation(self, data: bytes) -> None:
        """Send a revocation to the whole cluster as a user event."""
        await self._fire(gossip.REVOCATION_EVENT, data)
        self._request_sweep()

    async def _fire(self, name: str, payload: bytes) -> None:
        rpc = self._rpc
        if rpc is None:
            self._request_sweep()
            return
        try:
            await rpc.event(name, payload, coalesce=False)
        except SerfError as exc:
            log.warning("event %s not sent (%s); relying on state queries", name, exc)
            self._request_sweep()

    async def peers(self) -> list[dict[str, Any]]:
        """The other nodes Serf shows alive, nearest first."""
        rpc = self._rpc
        if rpc is None:
            return []
        try:
            peers = await self._nearest_first(rpc, list((await self._peers(rpc)).values()))
        except SerfError:
            return []
        return [
            {"name": p.name, "sync": f"{p.host}:{p.port}", "rtt_ms": round(p.rtt * 1000, 3)}
            for p in peers
        ]

    def counters(self) -> dict[str, Any]:
        """The counters of `status`, from memory only (safe to read from another thread)."""
        return {
            "sessions_ok": self.stats.sessions_ok,
            "sessions_failed": dict(self.stats.sessions_failed),
            "sessions_active": self.guard.sessions.held,
            "handshakes_pending": self.guard.pending.held,
            "session_bytes_received": self.guard.bytes_received,
            "refused_connections": dict(self.refusals.counts),
            "wire_refused": dict(self.guard.wire.counts),
            "refused": dict(self.stats.refused),
            "records_applied": self.stats.records_applied,
            "sweeps": self.stats.sweeps,
            "notices": {**self.stats.notices, "dropped": dict(self.stats.notices_dropped)},
        }

    def status(self) -> dict[str, Any]:
        """What `swarmconf kv status` shows (without the peers, which ask Serf)."""
        hashes = self.hashes()
        return {
            "name": self.serf_name,
            "node_id": self.node_id.hex(),
            "root": self.config.root.hex(),
            "sync_port": self.sync_port,
            "serf_connected": self._rpc is not None,
            "keys": self.store.count(),
            "revocations": len(self.store.revoked_ids()),
            "tree_hash": hashes.tree_hash.hex(),
            "revset_hash": hashes.revset_hash.hex(),
            **self.counters(),
            "insecure": self.config.cluster_key is None,
            "peer_tree_hashes": {n: h.tree_hash.hex() for n, h in self._peer_hashes.items()},
            "peers_alive": len(self._nearest),
            "push_peers": [p.name for p, _ in self._push_peers()],
        }
