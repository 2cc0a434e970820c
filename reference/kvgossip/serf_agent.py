"""Start and stop a local `serf agent` process (Debian's `serf` package)."""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import shutil
import signal
import socket
import sys
from dataclasses import dataclass, field
from pathlib import Path

from swarmconf.reference.kvgossip.membership import ClusterKey, write_serf_secrets
from swarmconf.reference.kvgossip.serf_rpc import SerfError, SerfRPC

SERF_BINARY = "serf"
_PR_SET_PDEATHSIG = 1
BIND_ATTEMPTS = 4


class AgentExited(SerfError):
    """The agent process ended before its RPC answered."""


def _die_with_parent() -> None:
    """In the child before exec: get SIGKILL when the parent dies, so no agent is orphaned."""
    if sys.platform == "linux":
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def free_port(host: str = "127.0.0.1") -> int:
    """A port that is free for both TCP and UDP on `host` right now (Serf gossips on both)."""
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as tcp:
            tcp.bind((host, 0))
            port = int(tcp.getsockname()[1])
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
                try:
                    udp.bind((host, port))
                except OSError:
                    continue
                return port


@dataclass
class AgentConfig:
    """How to run one agent; ports default to free ones on `host`."""

    node: str
    host: str = "127.0.0.1"
    bind_port: int = field(default_factory=free_port)
    rpc_port: int = field(default_factory=free_port)
    tags: dict[str, str] = field(default_factory=dict)
    profile: str = "local"
    log_path: Path | None = None
    key: ClusterKey | None = None
    """The cluster key: gossip encryption and RPC auth. None runs the agent open (loopback)."""
    config_path: Path | None = None
    """Where the agent's secrets are written (0600) when `key` is set; never on argv."""

    def command(self) -> list[str]:
        """The `serf agent` command line (secrets go in the config file, out of `ps`)."""
        bind = f"{self.host}:{self.bind_port}"
        args = [
            SERF_BINARY,
            "agent",
            f"-node={self.node}",
            f"-bind={bind}",
            f"-advertise={bind}",
            f"-rpc-addr={self.host}:{self.rpc_port}",
            f"-profile={self.profile}",
            "-log-level=info",
        ]
        for name, value in sorted(self.tags.items()):
            args.append(f"-tag={name}={value}")
        if self.key is not None:
            args.append(f"-config-file={self.secrets_path}")
        return args

    @property
    def secrets_path(self) -> Path:
        """The agent's secrets file."""
        if self.config_path is None:
            raise SerfError(f"agent {self.node} has a cluster key but no config_path")
        return self.config_path

    def write_secrets(self) -> None:
        """Write the gossip key and RPC token for the agent, readable by this user only."""
        if self.key is not None:
            write_serf_secrets(self.secrets_path, self.key, replace=True)

    @property
    def rpc_token(self) -> str | None:
        """The token an RPC client must present, if any."""
        return None if self.key is None else self.key.rpc_token

    @property
    def gossip_address(self) -> str:
        """The address other agents join through."""
        return f"{self.host}:{self.bind_port}"


class SerfAgent:
    """A running `serf agent` child process."""

    def __init__(self, config: AgentConfig) -> None:
        self.config = config
        self._process: asyncio.subprocess.Process | None = None

    async def start(self, *, ready_timeout: float = 15.0, rebind: bool = False) -> None:
        """Start the agent and wait until its RPC answers a handshake.

        With `rebind`, an agent that exits at once (its ports were taken between choosing and
        binding them) is started again on fresh free ports, up to `BIND_ATTEMPTS` times.
        """
        for attempt in range(1, BIND_ATTEMPTS + 1):
            try:
                await self._start_once(ready_timeout)
                return
            except AgentExited:
                if not rebind or attempt == BIND_ATTEMPTS:
                    raise
                self.config.bind_port = free_port(self.config.host)
                self.config.rpc_port = free_port(self.config.host)

    async def _start_once(self, ready_timeout: float) -> None:
        if shutil.which(SERF_BINARY) is None:
            raise SerfError("the `serf` binary is not installed (apt-get install serf)")
        self.config.write_secrets()
        output = (
            open(self.config.log_path, "ab")  # noqa: SIM115 - owned by the child process
            if self.config.log_path
            else asyncio.subprocess.DEVNULL
        )
        try:
            self._process = await asyncio.create_subprocess_exec(
                *self.config.command(),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=output,
                stderr=asyncio.subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=_die_with_parent,
            )
        finally:
            if not isinstance(output, int):
                output.close()
        await self._wait_ready(ready_timeout)

    async def _wait_ready(self, timeout: float) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            assert self._process is not None
            if self._process.returncode is not None:
                raise AgentExited(
                    f"serf agent {self.config.node} exited with status {self._process.returncode}"
                )
            try:
                client = await self.connect()
            except SerfError:
                if loop.time() > deadline:
                    await self.kill()
                    raise
                await asyncio.sleep(0.1)
                continue
            await client.close()
            return

    async def connect(self) -> SerfRPC:
        """A new RPC connection to this agent."""
        return await SerfRPC.connect(
            self.config.host, self.config.rpc_port, timeout=2.0, auth=self.config.rpc_token
        )

    @property
    def pid(self) -> int | None:
        """The agent's process id while it runs."""
        return self._process.pid if self._process else None

    @property
    def running(self) -> bool:
        """Whether the agent process is alive."""
        return self._process is not None and self._process.returncode is None

    async def stop(self, *, timeout: float = 10.0) -> None:
        """Leave gracefully (SIGINT), killing the process if it does not exit in time."""
        if not self.running:
            return
        assert self._process is not None
        with contextlib.suppress(ProcessLookupError):
            self._process.send_signal(signal.SIGINT)
        try:
            await asyncio.wait_for(self._process.wait(), timeout)
        except TimeoutError:
            await self.kill()

    async def kill(self) -> None:
        """Kill the agent at once (SIGKILL): it leaves no goodbye, like a crash."""
        if self._process is None:
            return
        if self._process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self._process.kill()
        await self._process.wait()
