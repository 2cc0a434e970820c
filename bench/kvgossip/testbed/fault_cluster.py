"""Real nodes in a namespace mesh (`fault_net`), and the faults of a schedule applied to them.

Each node is a `swarmconf kv agent` process, with the Serf agent it manages, inside its own
namespace: it binds its namespace's address, joins the others by theirs, and is reached by its
clients through its control socket (a file, so from outside the namespace). It runs in a
process group of its own, so a pause stops the node and its agent together, and a crash kills
both. A skewed node runs under Debian's `faketime` (the wall clock only: timers keep the true
monotonic clock).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from swarmconf.reference.kvgossip.control import call
from swarmconf.reference.kvgossip.membership import ClusterKey, write_cluster_key
from swarmconf.reference.kvgossip.privacy import private_dir

from .fault_net import Mesh
from .fault_schedule import PARTITIONS, Fault
from .localcluster import KEY_FILE

READY_TIMEOUT = 120.0
"""Seconds a node may take to start: 32 starting at once on two cores take tens of seconds."""
SERF_PORT = 7946
SERF_RPC_PORT = 7373
SYNC_PORT = 7400
CALL_TIMEOUT = 2.0


@dataclass
class FaultNode:
    """One node process in its namespace."""

    index: int
    data_dir: Path
    argv: list[str]
    process: asyncio.subprocess.Process | None = None
    skew: float = 0.0
    paused: bool = False

    @property
    def name(self) -> str:
        return f"n{self.index}"

    async def start(self, skew: float = 0.0) -> None:
        """Start the node (its clock moved by `skew` seconds) and wait until it is ready."""
        self.skew = skew
        argv = self.argv
        if skew:
            argv = [*argv[:4], "faketime", "-f", f"{skew:+.1f}", *argv[4:]]
        log = open(self.data_dir / "node.log", "ab")  # noqa: SIM115 - handed to the child
        try:
            self.process = await asyncio.create_subprocess_exec(
                *argv,
                stdout=asyncio.subprocess.PIPE,
                stderr=log,
                start_new_session=True,
                env={**os.environ, "FAKETIME_DONT_FAKE_MONOTONIC": "1"},
            )
        finally:
            log.close()
        assert self.process.stdout is not None
        line = await asyncio.wait_for(self.process.stdout.readline(), READY_TIMEOUT)
        if not line.startswith(f"node {self.name}:".encode()):
            raise RuntimeError(f"node {self.name} did not start: {line!r}")

    def signal(self, signum: int) -> None:
        """Send `signum` to the node and its Serf agent."""
        if self.process is not None and self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signum)

    def pause(self) -> None:
        self.signal(signal.SIGSTOP)
        self.paused = True

    def resume(self) -> None:
        self.signal(signal.SIGCONT)
        self.paused = False

    async def crash(self) -> None:
        """SIGKILL the node and its agent."""
        self.signal(signal.SIGKILL)
        self.paused = False
        if self.process is not None:
            await self.process.wait()

    async def stop(self) -> None:
        """Stop gracefully (SIGTERM), killing after 15 s."""
        self.resume()
        self.signal(signal.SIGTERM)
        if self.process is not None:
            try:
                await asyncio.wait_for(self.process.wait(), 15)
            except TimeoutError:
                await self.crash()

    async def call(self, request: dict[str, Any]) -> dict[str, Any]:
        """One control request, given up after `CALL_TIMEOUT` (a paused node answers none)."""
        return await asyncio.wait_for(call(self.data_dir, request), CALL_TIMEOUT)

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.returncode is None

    def pids(self) -> list[int]:
        """The node's process and its children (its Serf agent)."""
        if not self.running:
            return []
        assert self.process is not None
        pid = self.process.pid
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        return [pid, *map(int, children)]

    def resident(self) -> list[int]:
        """Resident memory in bytes of the node and of its Serf agent (`pids` order)."""
        sizes = []
        for pid in self.pids():
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    sizes.append(int(line.split()[1]) * 1024)
        return sizes

    def cpu_seconds(self) -> float:
        """CPU time used so far by the node and its Serf agent."""
        ticks = 0
        for pid in self.pids():
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])  # utime, stime
        return ticks / os.sysconf("SC_CLK_TCK")


@dataclass
class FaultCluster:
    """`size` nodes sharing a root key and a cluster key, one per namespace of `mesh`."""

    base_dir: Path
    root: bytes
    size: int
    resync_interval: float = 30.0
    mesh: Mesh = field(init=False)
    nodes: list[FaultNode] = field(default_factory=list)
    key: ClusterKey = field(default_factory=ClusterKey.generate)

    def __post_init__(self) -> None:
        self.mesh = Mesh(self.size)

    async def start(self, count: int | None = None) -> None:
        """Create the namespaces and start the first `count` nodes (default: all), at once;
        on failure, undo it all."""
        self.prepare()
        try:
            await self.launch(range(self.size if count is None else count))
        except BaseException:
            await self.close()
            raise

    def prepare(self) -> None:
        """Create the namespaces and every node's data directory, starting none."""
        private_dir(self.base_dir)
        key_file = self.base_dir / KEY_FILE
        write_cluster_key(key_file, self.key)
        self.mesh.create()
        for i in range(self.size):
            data_dir = self.base_dir / f"n{i}"
            private_dir(data_dir)
            self.nodes.append(FaultNode(i, data_dir, self._argv(i, key_file)))

    async def launch(self, indices: Iterable[int]) -> None:
        """Start these nodes at once and wait until each is ready."""
        await asyncio.gather(*(self.nodes[i].start() for i in indices))

    @property
    def running(self) -> list[FaultNode]:
        return [node for node in self.nodes if node.running]

    def _argv(self, i: int, key_file: Path) -> list[str]:
        joins = [
            arg
            for j in range(self.size)
            if j != i
            for arg in ("--join", f"{self.mesh.address(j)}:{SERF_PORT}")
        ]
        return self.mesh.command(
            i,
            [
                sys.executable, "-m", "swarmconf.cli", "kv", "agent",
                "--data", str(self.base_dir / f"n{i}"),
                "--root", self.root.hex(),
                "--name", f"n{i}",
                "--cluster-key", str(key_file),
                "--bind", self.mesh.address(i),
                "--sync-port", str(SYNC_PORT),
                "--serf-port", str(SERF_PORT),
                "--serf-rpc-port", str(SERF_RPC_PORT),
                "--query-timeout", "0.5",
                "--resync", str(self.resync_interval),
                "-v",
                *joins,
            ],
        )  # fmt: skip

    async def begin(self, fault: Fault) -> None:
        """Start `fault`."""
        node = self.nodes[fault.nodes[0]]
        if fault.kind == "majority" or fault.kind == "isolate":
            self.mesh.partition(fault.nodes, [i for i in range(self.size) if i not in fault.nodes])
        elif fault.kind == "bridge":
            bridge, *side = fault.nodes
            rest = [i for i in range(self.size) if i != bridge and i not in side]
            self.mesh.partition(side, rest)
        elif fault.kind == "pause":
            node.pause()
        elif fault.kind == "crash":
            await node.crash()
        elif fault.kind == "skew":
            await node.crash()
            await node.start(fault.skew)

    async def end(self, fault: Fault) -> None:
        """End `fault`: links back up, the node resumed or restarted on the true time."""
        node = self.nodes[fault.nodes[0]]
        if fault.kind in PARTITIONS:
            self.mesh.heal()
        elif fault.kind == "pause":
            node.resume()
        elif fault.kind in ("crash", "skew"):
            if fault.kind == "skew":
                await node.crash()
            await node.start()

    async def close(self) -> None:
        """Stop every node and remove the namespaces."""
        try:
            await asyncio.gather(*(node.stop() for node in self.running), return_exceptions=True)
        finally:
            self.mesh.destroy()
