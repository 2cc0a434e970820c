"""The client bench: the campaign's own CPU share is its CPU beyond the oracle's, over the
adapter's and the oracle's; every side's CPU time is measured, and the campaign without a
client on the same interleavings bounds the first ratio."""

from bench.fuzz.client import measure, ratio_line, with_ratios

from .adapters import EXAMPLE

FIGURES = {
    "interleavings": 20,
    "requests": 100,
    "campaign_seconds": 3.0,
    "campaign_cpu_seconds": 2.0,
    "adapter_cpu_seconds": 1.5,
    "adapter_alone_seconds": 1.0,
    "adapter_alone_cpu_seconds": 0.9,
    "oracle_cpu_seconds": 0.5,
    "internal_cpu_seconds": 0.8,
}


def test_the_ratios_are_computed_from_the_figures_given() -> None:
    found = with_ratios(FIGURES)
    assert {key: found[key] for key in FIGURES} == FIGURES
    assert found["own_cpu_share"] == (2.0 - 0.5) / (1.5 + 0.5)
    assert found["cpu_ratio_saturated"] == 0.8 / (2.0 + 1.5)
    assert found["cpu_ratio_spare_cores"] == 0.8 / 2.0
    assert found["own_cpu_us_per_request"] == (2.0 - 0.5) / 100 * 1e6


def test_a_measured_run_reports_every_figure_and_its_ratios() -> None:
    """A real run through the worked adapter: what it reports, never how long it took."""
    found = measure(EXAMPLE, 1, 20, 10)
    assert found["interleavings"] == 20
    assert found["requests"] > 40
    assert all(found[key] >= 0 for key in FIGURES)
    assert found["campaign_cpu_seconds"] > 0 and found["oracle_cpu_seconds"] > 0
    assert found["internal_cpu_seconds"] > 0
    assert found == with_ratios({key: found[key] for key in FIGURES})


def test_a_ratio_is_of_the_medians_of_alternated_runs() -> None:
    line = ratio_line("x", [100.0, 300.0, 200.0], [90.0, 10.0, 150.0], ">= 80 %")
    assert "median 90/s through the client, 200/s without: 45%" in line
    assert "100/90, 300/10, 200/150" in line


def test_a_ratio_names_its_two_kinds_of_run() -> None:
    sides = ("through the aborting adapter", "through the emulation")
    line = ratio_line("seed 3", [1000.0, 1400.0], [600.0, 800.0], ">= 50 %", sides)
    assert "median 700/s through the aborting adapter, 1,200/s through the emulation: 58%" in line
    assert "runs through the emulation/through the aborting adapter: 1,000/600, 1,400/800" in line
