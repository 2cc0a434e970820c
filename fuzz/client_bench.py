"""What a differential campaign costs beyond the client's own answering time.

    python -m swarmconf.fuzz.client_bench --client CMD [--interleavings N] [--per-scenario P]

Runs the campaign's tasks in one process (as one Spark executor runs them), recording every
batch sent to the adapter; then sends the same batches to a freshly started adapter with
nothing else to do. The campaign's overhead is its time over that answering time, minus one.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from swarmconf.conformance.client import Message

from .client import Answer, PooledClient, start
from .configmerge.differential import plan_client, run_client_tasks


class Recording(PooledClient):
    """A pooled client that keeps a copy of every batch it sends."""

    batches: list[list[Message]]

    def send(self, requests: list[Message]) -> Callable[[], list[Answer]]:
        self.batches.append(list(requests))
        return super().send(requests)


def measure(command: str, interleavings: int, per_scenario: int) -> dict[str, float]:
    started = start(command)
    client = Recording(command, started.timeout, started.client, started.hello)
    client.batches = []
    try:
        begin = time.perf_counter()
        tasks = plan_client(1, interleavings, per_scenario, command, started.timeout)
        for _ in run_client_tasks(tasks, client):
            pass
        campaign = time.perf_counter() - begin
    finally:
        client.close()
    alone = start(command)
    try:
        begin = time.perf_counter()
        for batch in client.batches:
            alone.exchange(batch)
        answering = time.perf_counter() - begin
    finally:
        alone.close()
    requests = sum(len(batch) for batch in client.batches)
    return {
        "interleavings": interleavings,
        "requests": requests,
        "campaign_seconds": campaign,
        "adapter_alone_seconds": answering,
        "overhead": campaign / answering - 1,
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
        f"{found['campaign_seconds']:.2f} s, the adapter alone {found['adapter_alone_seconds']:.2f}"
        f" s; overhead {found['overhead']:.0%}"
    )


if __name__ == "__main__":
    main()
