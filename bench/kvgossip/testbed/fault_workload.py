"""The clients of a fault schedule, one set per schedule, writing and reading on every side.

- a writer per node writes fresh keys (`/f/<schedule>/<node>/<n>`) signed by the root;
- a granted writer writes `/g/<schedule>/<n>` under a grant the root issued for the
  schedule, to a random node, until and after the grant is revoked;
- a revoker revokes that grant at a random moment, on the first node that acknowledges it;
- a forger sends records no one may write: signed by a key outside the grant, or with a value
  that does not match its signature;
- a reader reads random keys written so far, from random nodes;
- a monitor polls every node's revocation count.

Each records what it did in the run's `History`.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import random
import time
from collections.abc import Callable, Coroutine
from typing import Any

from swarmconf.reference.kvgossip.control import ControlError
from swarmconf.spec.kvgossip import crypto
from swarmconf.spec.kvgossip.encoding import encode
from swarmconf.spec.kvgossip.fixtures import MALLORY, ROOT
from swarmconf.spec.kvgossip.grants import Grant, issue_grant, revoke_grant
from swarmconf.spec.kvgossip.records import make_record

from .fault_cluster import FaultCluster
from .fault_history import FORGED, GRANTED, READ, REVOKE, WRITE, History, Op, Sample

PACE = 0.15
"""Seconds between one client's operations (at five nodes: a larger cluster is given more, so
that the cluster's whole load stays within what the machine does)."""
MONITOR_PACE = 0.05
"""Seconds between the monitor's polls, per node."""


def now_ms() -> int:
    return time.time_ns() // 1_000_000


class Workload:
    """The clients of schedule `schedule`, running until `stop` is set."""

    def __init__(
        self,
        cluster: FaultCluster,
        history: History,
        schedule: int,
        rng: random.Random,
        clock: Callable[[], float],
        pace: float = PACE,
    ) -> None:
        self.cluster, self.history, self.schedule, self.rng = cluster, history, schedule, rng
        self.clock, self.pace = clock, pace
        self.writer_seed = hashlib.sha256(b"fault writer %d" % schedule).digest()
        self.prefix = f"/g/{schedule}/"
        self.grant: Grant = issue_grant(
            ROOT.seed, crypto.public_key(self.writer_seed), self.prefix + "**",
            subgrant=False, issued_at=now_ms() - 1000,
        )  # fmt: skip
        self.stop = asyncio.Event()
        self.written: list[str] = []

    def tasks(self, revoke_at: float) -> list[Coroutine[Any, Any, None]]:
        """Every client; the revoker acts `revoke_at` seconds in."""
        size = self.cluster.size
        return [
            *(self._writer(node) for node in range(size)),
            self._granted(),
            self._forger(),
            self._reader(),
            self._monitor(),
            self._revoker(revoke_at),
        ]

    async def _op(
        self,
        kind: str,
        node: int,
        key: str,
        value: bytes | None,
        request: dict[str, Any],
        size: int = 0,
    ) -> Op:
        start = self.clock()
        try:
            await self.cluster.nodes[node].call(request)
            outcome = "ok"
        except ControlError as exc:
            outcome = "unknown" if exc.reason == "NODE_NOT_RUNNING" else "fail"
        except (TimeoutError, OSError):
            outcome = "unknown"
        op = Op(self.schedule, kind, node, key, value, start, self.clock(), outcome, size)
        self.history.ops.append(op)
        return op

    async def _paced(self, step: Callable[[int], Coroutine[Any, Any, None]]) -> None:
        n = 0
        while not self.stop.is_set():
            await step(n)
            n += 1
            await asyncio.sleep(self.pace * self.rng.uniform(0.5, 1.5))

    async def _writer(self, node: int) -> None:
        async def step(n: int) -> None:
            key, value = f"/f/{self.schedule}/{node}/{n}", os.urandom(12)
            record = make_record(ROOT.seed, key, now_ms(), value)
            self.written.append(key)
            data = record.encode()
            await self._op(WRITE, node, key, value, {"op": "put", "record": data}, len(data))

        await self._paced(step)

    async def _granted(self) -> None:
        async def step(n: int) -> None:
            key, value = f"{self.prefix}{n}", os.urandom(12)
            record = make_record(self.writer_seed, key, now_ms(), value, [self.grant])
            self.written.append(key)
            node, data = self.rng.randrange(self.cluster.size), record.encode()
            await self._op(GRANTED, node, key, value, {"op": "put", "record": data}, len(data))

        await self._paced(step)

    async def _forger(self) -> None:
        async def step(n: int) -> None:
            key, value = f"{self.prefix}forged-{n}", os.urandom(12)
            if n % 2:  # signed by a key the grant does not name
                data = make_record(MALLORY.seed, key, now_ms(), value, [self.grant]).encode()
            else:  # the writer's signature over another value
                record = make_record(self.writer_seed, key, now_ms(), b"signed", [self.grant])
                data = encode([record.body, record.signature, value, [self.grant.encode()]])
            node = self.rng.randrange(self.cluster.size)
            self.written.append(key)
            await self._op(FORGED, node, key, value, {"op": "put", "record": data})

        await self._paced(step)

    async def _reader(self) -> None:
        async def step(n: int) -> None:
            if not self.written:
                return
            key, node = self.rng.choice(self.written), self.rng.randrange(self.cluster.size)
            start = self.clock()
            try:
                reply = await self.cluster.nodes[node].call({"op": "get", "key": key})
            except (ControlError, TimeoutError, OSError):
                return
            record = reply["record"]
            value = None if record is None or record["state"] != "set" else bytes(record["value"])
            self.history.ops.append(
                Op(self.schedule, READ, node, key, value, start, self.clock(), "ok")
            )

        await self._paced(step)

    async def _monitor(self) -> None:
        while not self.stop.is_set():
            for node in self.cluster.nodes:
                try:
                    status = (await node.call({"op": "status"}))["status"]
                except (ControlError, TimeoutError, OSError):
                    continue
                self.history.samples.append(
                    Sample(node.index, self.clock(), int(status["revocations"]))
                )
            await asyncio.sleep(MONITOR_PACE * self.cluster.size)

    async def _revoker(self, at: float) -> None:
        await asyncio.sleep(at)
        revocation = revoke_grant(ROOT.seed, self.grant, now_ms(), ROOT.pk).encode()
        while not self.stop.is_set():
            node = self.rng.randrange(self.cluster.size)
            op = await self._op(
                REVOKE, node, self.prefix, None, {"op": "revoke", "revocation": revocation}
            )
            if op.outcome == "ok":
                return
            await asyncio.sleep(self.pace)
