"""`swarmconf kv agent` with the Serf agent it starts itself: no orphan after SIGKILL, restart."""

from __future__ import annotations

import asyncio
import signal
import sys
import time
from pathlib import Path

from swarmconf.reference.kvgossip.control import ControlError, call
from swarmconf.reference.kvgossip.membership import ClusterKey, write_cluster_key
from swarmconf.reference.kvgossip.node import serf_profile
from swarmconf.spec.kvgossip.fixtures import ROOT
from swarmconf.spec.kvgossip.records import make_record


def children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(c) for c in (task / "children").read_text().split()]
    return found


def alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "State:\tZ" not in status


async def ready(data: Path) -> dict[str, object]:
    async with asyncio.timeout(30):
        while True:
            try:
                status = (await call(data, {"op": "status"}))["status"]
            except ControlError:
                status = {}
            if status.get("serf_connected"):
                return dict(status)
            await asyncio.sleep(0.1)


def test_sigkilled_node_takes_its_agent_along_and_restarts(tmp_path: Path) -> None:
    data = tmp_path / "a"
    write_cluster_key(tmp_path / "cluster.key", ClusterKey.generate())
    args = [
        sys.executable, "-m", "swarmconf.cli", "kv", "agent", "--data", str(data),
        "--name", "a", "--root", ROOT.pk.hex(), "--serf-port", "0",
        "--serf-rpc-port", "0", "--cluster-key", str(tmp_path / "cluster.key"),
    ]  # fmt: skip

    async def scenario() -> None:
        node = await asyncio.create_subprocess_exec(*args, stdout=asyncio.subprocess.DEVNULL)
        try:
            first = await ready(data)
            record = make_record(ROOT.seed, "/kept", time.time_ns() // 10**6, b"v")
            await call(data, {"op": "put", "record": record.encode()})
            (serf,) = children(node.pid)
            node.send_signal(signal.SIGKILL)
            await node.wait()
            async with asyncio.timeout(10):
                while alive(serf):
                    await asyncio.sleep(0.05)
        finally:
            if node.returncode is None:
                node.kill()
                await node.wait()
        again = await asyncio.create_subprocess_exec(*args, stdout=asyncio.subprocess.DEVNULL)
        try:
            second = await ready(data)
            assert second["node_id"] == first["node_id"] and second["keys"] == 1
            (serf,) = children(again.pid)
        finally:
            again.terminate()
            await asyncio.wait_for(again.wait(), 20)
        assert again.returncode == 0 and not alive(serf)  # a clean stop stops the agent too

    asyncio.run(scenario())


def test_a_managed_agent_off_loopback_runs_serf_s_lan_timing() -> None:
    """At 32 nodes on two busy cores, `local`'s 200 ms probe timeout declared members failed."""
    assert serf_profile("127.0.0.1") == "local" and serf_profile("localhost") == "local"
    assert serf_profile("::1") == "local"
    assert serf_profile("10.77.20.3") == "lan"
