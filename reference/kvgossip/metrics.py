"""Prometheus metrics of one node (`swarmconf kv agent --metrics HOST:PORT`).

The counters `kv status` shows are read at scrape time by a collector (from memory only: the
scrape runs on its own thread and never touches the store), so the node keeps one source of
truth; the propagation delay (a record's age when this node applied it from a peer)
is a histogram observed as sessions end.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any
from wsgiref.simple_server import WSGIServer

from prometheus_client import CollectorRegistry, Histogram, start_http_server
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

PROPAGATION_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)


def _by_reason(name: str, doc: str, counts: Mapping[str, int]) -> CounterMetricFamily:
    family = CounterMetricFamily(name, doc, labels=["reason"])
    for reason, count in sorted(counts.items()):
        family.add_metric([reason], count)
    return family


_NOTICES = {
    "received": ("kv_notices_received", "Change notices received."),
    "fetches": ("kv_notice_fetches", "One-key fetches that change notices caused."),
    "sessions": ("kv_notice_sessions", "Sessions that change notices caused."),
}


class _StatusCollector(Collector):
    """Turns the node's status map into metric families at each scrape."""

    def __init__(self, status: Callable[[], dict[str, Any]]) -> None:
        self._status = status

    def collect(self) -> Iterator[Metric]:
        s = self._status()
        yield CounterMetricFamily(
            "kv_sessions_ok", "Sync sessions that ended cleanly.", value=s["sessions_ok"]
        )
        yield _by_reason("kv_sessions_failed", "Sync sessions that failed.", s["sessions_failed"])
        yield _by_reason(
            "kv_connections_refused",
            "Sync connections refused before a session (handshake, slots).",
            s["refused_connections"],
        )
        yield _by_reason(
            "kv_wire_refused",
            "Sealed sync connections ended for what arrived on them (tampered, replayed, cut).",
            s["wire_refused"],
        )
        yield _by_reason("kv_refused", "Records, revocations and payloads refused.", s["refused"])
        yield CounterMetricFamily(
            "kv_records_applied", "Records applied from peers.", value=s["records_applied"]
        )
        yield CounterMetricFamily(
            "kv_session_bytes_received",
            "Bytes received on sync sessions.",
            value=s["session_bytes_received"],
        )
        notices = s["notices"]
        for key, (name, doc) in _NOTICES.items():
            yield CounterMetricFamily(name, doc, value=notices.get(key, 0))
        yield _by_reason(
            "kv_notices_dropped",
            "Change notices dropped without acting on them.",
            notices["dropped"],
        )
        yield GaugeMetricFamily("kv_sessions_active", "Sessions running.", s["sessions_active"])
        yield GaugeMetricFamily(
            "kv_handshakes_pending", "Connections in the handshake.", s["handshakes_pending"]
        )


class NodeMetrics:
    """One node's registry: status counters plus the propagation-delay histogram."""

    def __init__(self) -> None:
        self._server: WSGIServer | None = None
        self.registry = CollectorRegistry()
        self.propagation = Histogram(
            "kv_propagation_seconds",
            "Age of a record (now minus its timestamp) when applied from a peer.",
            buckets=PROPAGATION_BUCKETS,
            registry=self.registry,
        )

    def watch(self, status: Callable[[], dict[str, Any]]) -> None:
        """Report the counters of `status()` at every scrape."""
        self.registry.register(_StatusCollector(status))

    def serve(self, host: str, port: int) -> int:
        """Serve `/metrics` on HOST:PORT from a daemon thread; return the bound port."""
        self._server, _ = start_http_server(port, addr=host, registry=self.registry)
        return int(self._server.server_port)

    def close(self) -> None:
        """Stop serving, if serving."""
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
