"""The client bench: the overhead is the campaign's wall time beyond the adapter's answering
time, over that time, and both sides' CPU time is measured."""

from bench.fuzz.client import measure

from .adapters import EXAMPLE


def test_the_overhead_is_the_campaigns_time_beyond_the_adapters_over_the_adapters() -> None:
    found = measure(EXAMPLE, 20, 10)
    campaign, alone = found["campaign_seconds"], found["adapter_alone_seconds"]
    assert found["requests"] > 40
    assert found["overhead"] == (campaign - alone) / alone
    assert found["campaign_cpu_seconds"] > 0
    tick = 0.01  # /proc counts CPU time in clock ticks
    assert 0 <= found["adapter_alone_cpu_seconds"] <= alone + tick
    assert 0 <= found["adapter_cpu_seconds"] <= campaign + tick
