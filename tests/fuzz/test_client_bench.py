"""The client bench: the campaign's own CPU share is its CPU beyond the oracle's, over the
adapter's and the oracle's; every side's CPU time is measured, and the campaign without a
client on the same interleavings bounds the first ratio."""

from bench.fuzz.client import measure, ratio_line

from .adapters import EXAMPLE


def test_the_own_cpu_share_is_the_campaigns_cpu_beyond_the_oracles_over_both_others() -> None:
    found = measure(EXAMPLE, 1, 20, 10)
    assert found["requests"] > 40
    campaign, oracle = found["campaign_cpu_seconds"], found["oracle_cpu_seconds"]
    assert oracle > 0 and campaign > 0
    adapter = found["adapter_cpu_seconds"]
    assert found["own_cpu_share"] == (campaign - oracle) / (adapter + oracle)
    tick = 0.01  # /proc counts CPU time in clock ticks
    assert 0 <= found["adapter_alone_cpu_seconds"] <= found["adapter_alone_seconds"] + tick
    assert 0 <= adapter <= found["campaign_seconds"] + tick
    internal = found["internal_cpu_seconds"]
    assert internal > 0
    assert found["cpu_ratio_saturated"] == internal / (campaign + adapter)
    assert found["cpu_ratio_spare_cores"] == internal / campaign


def test_a_ratio_is_of_the_medians_of_alternated_runs() -> None:
    line = ratio_line("x", [100.0, 300.0, 200.0], [90.0, 10.0, 150.0], ">= 80 %")
    assert "median 90/s through the client, 200/s without: 45%" in line
    assert "100/90, 300/10, 200/150" in line
