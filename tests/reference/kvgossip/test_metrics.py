"""The node's Prometheus metrics, served over HTTP from its counters."""

from __future__ import annotations

import urllib.request
from typing import Any

from swarmconf.reference.kvgossip.metrics import NodeMetrics


def counters(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "sessions_ok": 7,
        "sessions_failed": {"SESSION_TIMEOUT": 2},
        "sessions_active": 1,
        "handshakes_pending": 3,
        "session_bytes_received": 4096,
        "refused_connections": {"HANDSHAKE_FAILED": 12, "PEER_LIMIT": 1},
        "refused": {"UNAUTHORIZED": 5},
        "wire_refused": {"WIRE_TAMPERED": 4},
        "records_applied": 9,
        "notices": {"received": 600, "fetches": 2, "dropped": {"NOTICE_RATE_LIMIT": 90}},
    }
    return {**base, **changes}


def test_metrics_are_served_from_the_counters_at_each_scrape() -> None:
    current = counters()
    metrics = NodeMetrics()
    metrics.watch(lambda: current)
    metrics.propagation.observe(0.004)
    metrics.propagation.observe(0.2)
    port = metrics.serve("127.0.0.1", 0)

    def scrape() -> set[str]:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as reply:
            return set(reply.read().decode().splitlines())

    lines = scrape()
    assert 'kv_connections_refused_total{reason="HANDSHAKE_FAILED"} 12.0' in lines
    assert 'kv_sessions_failed_total{reason="SESSION_TIMEOUT"} 2.0' in lines
    assert 'kv_wire_refused_total{reason="WIRE_TAMPERED"} 4.0' in lines
    assert 'kv_refused_total{reason="UNAUTHORIZED"} 5.0' in lines
    assert "kv_sessions_ok_total 7.0" in lines
    assert "kv_handshakes_pending 3.0" in lines
    assert "kv_notices_received_total 600.0" in lines
    assert "kv_notice_fetches_total 2.0" in lines
    assert "kv_notice_sessions_total 0.0" in lines
    assert 'kv_notices_dropped_total{reason="NOTICE_RATE_LIMIT"} 90.0' in lines
    assert 'kv_propagation_seconds_bucket{le="0.005"} 1.0' in lines
    assert "kv_propagation_seconds_count 2.0" in lines
    current["refused_connections"] = {"HANDSHAKE_FAILED": 13}
    assert 'kv_connections_refused_total{reason="HANDSHAKE_FAILED"} 13.0' in scrape()
    metrics.close()
