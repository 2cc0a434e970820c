"""A cluster of nodes on loopback, each a `swarmconf kv agent` process next to its own Serf agent.

Used by the integration tests and the benchmark. The Serf agents are started here (not by the
nodes), so a node can be killed and restarted on its agent, and an agent can be killed and
restarted under a running node (a network partition and its healing).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from swarmconf.reference.kvgossip.control import ControlError, call
from swarmconf.reference.kvgossip.identity import Directory, Identity
from swarmconf.reference.kvgossip.membership import ClusterKey, write_cluster_key
from swarmconf.reference.kvgossip.node import SERF_SECRETS_FILE
from swarmconf.reference.kvgossip.privacy import private_dir
from swarmconf.reference.kvgossip.serf_agent import AgentConfig, SerfAgent

READY_TIMEOUT = 30.0
KEY_FILE = "cluster.key"


@dataclass
class LocalNode:
    """One node of a `LocalCluster`."""

    name: str
    data_dir: Path
    agent: SerfAgent
    command: Callable[[], list[str]]
    """The node's command line, built when it starts (its agent's ports are known by then)."""
    process: asyncio.subprocess.Process | None = None

    async def start(self) -> None:
        """Start the node process and wait until it reports its sync port."""
        log = open(self.data_dir / "node.log", "ab")  # noqa: SIM115 - handed to the child
        try:
            self.process = await asyncio.create_subprocess_exec(
                *self.command(), stdout=asyncio.subprocess.PIPE, stderr=log
            )
        finally:
            log.close()
        assert self.process.stdout is not None
        line = await asyncio.wait_for(self.process.stdout.readline(), READY_TIMEOUT)
        if not line.startswith(f"node {self.name}:".encode()):
            raise RuntimeError(f"node {self.name} did not start: {line!r}")

    async def kill(self) -> None:
        """SIGKILL the node process (its Serf agent keeps running)."""
        if self.process is not None and self.process.returncode is None:
            self.process.kill()
            await self.process.wait()

    async def stop(self) -> None:
        """Stop the node process gracefully."""
        if self.process is not None and self.process.returncode is None:
            self.process.terminate()
            try:
                await asyncio.wait_for(self.process.wait(), 15)
            except TimeoutError:
                await self.kill()

    async def call(self, request: dict[str, Any]) -> dict[str, Any]:
        """One control request to this node."""
        return await call(self.data_dir, request)

    async def status(self) -> dict[str, Any]:
        """The node's status."""
        return dict((await self.call({"op": "status"}))["status"])

    async def value(self, key: str) -> bytes | None:
        """The value stored for `key`, or None if absent or deleted."""
        record = (await self.call({"op": "get", "key": key}))["record"]
        if record is None or record["state"] != "set":
            return None
        return bytes(record["value"])


@dataclass
class LocalCluster:
    """Nodes sharing a root key and a cluster key, joined through the first node's Serf agent."""

    base_dir: Path
    root: bytes
    query_timeout: float = 0.5
    resync_interval: float = 30.0
    nodes: dict[str, LocalNode] = field(default_factory=dict)
    key: ClusterKey = field(default_factory=ClusterKey.generate)
    members: list[SerfAgent] = field(default_factory=list)
    """Agents of `add_member`: members without a node."""

    @property
    def key_file(self) -> Path:
        """The cluster key file every node is started with (written on first use)."""
        path = self.base_dir / KEY_FILE
        if not path.exists():
            write_cluster_key(path, self.key)
        return path

    async def add(
        self, name: str, *, start: bool = True, push: bool = True, advertise_port: int = 0
    ) -> LocalNode:
        """Create a node with its own Serf agent (joined to the cluster) and start it.

        `push=False` starts it with `--no-push`: its writes spread without pushes;
        `advertise_port` is the sync port it announces (a forwarder's, in front of its own).
        """
        private_dir(self.base_dir)
        data_dir = self.base_dir / name
        private_dir(data_dir)
        agent = SerfAgent(
            AgentConfig(
                node=name,
                log_path=data_dir / "serf.log",
                key=self.key,
                config_path=data_dir / SERF_SECRETS_FILE,
            )
        )
        node = LocalNode(name, data_dir, agent, lambda: self._command(name, push, advertise_port))
        self.nodes[name] = node
        if start:
            await agent.start(rebind=True)
            await node.start()
        return node

    async def add_member(self, name: str, identity: Identity) -> SerfAgent:
        """A Serf agent that holds the cluster key and announces `identity`, with no node
        behind it (a member gone bad, played by a test or benchmark); joined once every node
        sees it."""
        data_dir = self.base_dir / name
        private_dir(data_dir)
        agent = SerfAgent(
            AgentConfig(
                node=name,
                tags=identity.tags(),
                log_path=data_dir / "serf.log",
                key=self.key,
                config_path=data_dir / SERF_SECRETS_FILE,
            )
        )
        self.members.append(agent)
        await agent.start(rebind=True)
        rpc = await agent.connect()
        try:
            first = next(iter(self.nodes.values()))
            await rpc.join([first.agent.config.gossip_address])
        finally:
            await rpc.close()
        for node in self.nodes.values():
            await _until(functools.partial(_knows, node, identity))
        return agent

    async def directory(self) -> Directory:
        """The node ids and identity keys the membership announces, as any member sees them."""
        rpc = await next(iter(self.nodes.values())).agent.connect()
        try:
            directory = Directory()
            directory.update(await rpc.members())
            return directory
        finally:
            await rpc.close()

    def _command(self, name: str, push: bool, advertise_port: int) -> list[str]:
        node = self.nodes[name]
        first = next(iter(self.nodes.values()))
        join = [] if first is node else ["--join", first.agent.config.gossip_address]
        return [
            sys.executable,
            "-m",
            "swarmconf.cli",
            "kv",
            "agent",
            "--data",
            str(node.data_dir),
            "--root",
            self.root.hex(),
            "--name",
            node.name,
            "--cluster-key",
            str(self.key_file),
            "--serf-rpc",
            f"127.0.0.1:{node.agent.config.rpc_port}",
            "--query-timeout",
            str(self.query_timeout),
            "--resync",
            str(self.resync_interval),
            "-v",
            *join,
            *([] if push else ["--no-push"]),
            *(["--advertise-port", str(advertise_port)] if advertise_port else []),
        ]

    async def statuses(self) -> dict[str, dict[str, Any]]:
        """Every running node's status."""
        return {name: await node.status() for name, node in self.nodes.items()}

    async def converged(self, names: list[str] | None = None, *, timeout: float = 30.0) -> None:
        """Wait until the nodes agree on tree and revocation hashes."""
        chosen = [self.nodes[n] for n in names or list(self.nodes)]

        async def agree() -> bool:
            statuses = await self._statuses_or_none(chosen)
            return (
                statuses is not None
                and len({(s["tree_hash"], s["revset_hash"]) for s in statuses}) == 1
            )

        await _until(agree, timeout, f"nodes {[n.name for n in chosen]} did not converge")

    async def linked(self, *, timeout: float = 30.0) -> None:
        """Wait until every node pushes to every other one (its Serf view holds them all, so a
        write takes the push path)."""
        nodes = list(self.nodes.values())

        async def pushing_to_all() -> bool:
            statuses = await self._statuses_or_none(nodes)
            return statuses is not None and all(
                set(self.nodes) - {node.name} <= set(status["push_peers"])
                for node, status in zip(nodes, statuses, strict=True)
            )

        await _until(pushing_to_all, timeout, "nodes did not link up")

    @staticmethod
    async def _statuses_or_none(nodes: list[LocalNode]) -> list[dict[str, Any]] | None:
        """The nodes' statuses, or None while one of them does not answer yet."""
        try:
            return [await node.status() for node in nodes]
        except ControlError:
            return None

    async def close(self) -> None:
        """Stop every node and agent."""
        for node in self.nodes.values():
            with contextlib.suppress(ProcessLookupError):
                await node.stop()
            await node.agent.stop(timeout=5)
        for agent in self.members:
            await agent.stop(timeout=5)


async def _knows(node: LocalNode, identity: Identity) -> bool:
    """True once `node`'s agent lists a member announcing `identity`."""
    rpc = await node.agent.connect()
    try:
        return any(m.tags == identity.tags() for m in await rpc.members())
    finally:
        await rpc.close()


async def _until(
    check: Callable[[], Awaitable[bool]], timeout: float = READY_TIMEOUT, failure: str = ""
) -> None:
    """Poll `check` until it holds; past `timeout`, TimeoutError saying `failure`."""
    try:
        async with asyncio.timeout(timeout):
            while not await check():
                await asyncio.sleep(0.05)
    except TimeoutError as exc:
        raise TimeoutError(failure or f"not ready in {timeout} s") from exc
