"""What a differential campaign costs beyond the client's own answering time.

    python -m bench.fuzz.client --client CMD [--interleavings N] [--per-scenario P]

Runs the campaign's tasks in one process (as one Spark executor runs them), recording every
batch sent to the adapter; then sends the same batches to a freshly started adapter with
nothing else to do. The campaign's overhead is the wall time the campaign takes beyond that
answering time, over the answering time: (campaign - alone) / alone. Both start timing with
the adapter already started and its `hello` read.

The CPU seconds of each side are shown beside the wall times: the campaign's process (the spec
playing the interleavings and answering every request, the pipe's threads, the judging) and the
adapter's process (read from /proc while it runs), in both runs. Last, the spec answers the same
batches on its own, each on a fresh cache as a task's oracle starts: the least CPU the
campaign can spend while the spec is its oracle, whatever else it does.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

from swarmconf.conformance.client import Message, ProcessClient
from swarmconf.fuzz.client import Answer, PooledClient, start
from swarmconf.fuzz.configmerge.cached_spec import CachedSpec, SpecOracle
from swarmconf.fuzz.configmerge.differential import plan_client, run_client_tasks


class Recording(PooledClient):
    """A pooled client that keeps a copy of every batch it sends."""

    batches: list[list[Message]]

    def send(self, requests: list[Message]) -> Callable[[], list[Answer]]:
        self.batches.append(list(requests))
        return super().send(requests)


def cpu_seconds(client: ProcessClient) -> float:
    """User and system CPU time of the adapter process so far."""
    assert client.process is not None
    with open(f"/proc/{client.process.pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def spec_answering(batches: list[list[Message]]) -> float:
    """CPU seconds the spec takes to answer `batches`, each on a fresh cache."""
    started = time.process_time()
    for batch in batches:
        oracle = SpecOracle(CachedSpec())
        for request in batch:
            oracle.handle(request)
    return time.process_time() - started


def measure(command: str, interleavings: int, per_scenario: int) -> dict[str, float]:
    started = start(command)
    client = Recording(command, started.timeout, started.client, started.hello)
    client.batches = []
    try:
        adapter_cpu = cpu_seconds(client.client)
        begin, cpu = time.perf_counter(), time.process_time()
        tasks = plan_client(1, interleavings, per_scenario, command, started.timeout)
        for _ in run_client_tasks(tasks, client):
            pass
        campaign = time.perf_counter() - begin
        campaign_cpu = time.process_time() - cpu
        adapter_cpu = cpu_seconds(client.client) - adapter_cpu
    finally:
        client.close()
    alone = start(command)
    try:
        alone_cpu = cpu_seconds(alone.client)
        begin = time.perf_counter()
        for batch in client.batches:
            alone.exchange(batch)
        answering = time.perf_counter() - begin
        alone_cpu = cpu_seconds(alone.client) - alone_cpu
    finally:
        alone.close()
    requests = sum(len(batch) for batch in client.batches)
    return {
        "spec_answering_cpu_seconds": spec_answering(client.batches),
        "interleavings": interleavings,
        "requests": requests,
        "campaign_seconds": campaign,
        "campaign_cpu_seconds": campaign_cpu,
        "adapter_cpu_seconds": adapter_cpu,
        "adapter_alone_seconds": answering,
        "adapter_alone_cpu_seconds": alone_cpu,
        "overhead": (campaign - answering) / answering,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--client", required=True, metavar="CMD")
    parser.add_argument("--interleavings", type=int, default=400)
    parser.add_argument("--per-scenario", type=int, default=100)
    args = parser.parse_args(argv)
    found = measure(args.client, args.interleavings, args.per_scenario)
    print(
        f"{found['interleavings']:,} interleavings, {found['requests']:,} requests: campaign "
        f"{found['campaign_seconds']:.2f} s (CPU: its own {found['campaign_cpu_seconds']:.2f} s,"
        f" the adapter's {found['adapter_cpu_seconds']:.2f} s), the adapter alone "
        f"{found['adapter_alone_seconds']:.2f} s (CPU {found['adapter_alone_cpu_seconds']:.2f} s);"
        f" overhead {found['overhead']:.0%}; the spec alone answering the same requests: CPU"
        f" {found['spec_answering_cpu_seconds']:.2f} s"
    )


if __name__ == "__main__":
    main()
