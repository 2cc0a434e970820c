"""The client bench's verdict line: the medians' ratio, with every run's figure."""

from bench.fuzz.client import ratio_line


def test_the_ratio_is_the_medians_ratio_with_every_run() -> None:
    line = ratio_line("interleavings", [100.0, 300.0, 200.0], [50.0, 90.0, 100.0], ">= 80 %")
    assert "median 90/s through the client, 200/s without: 45%" in line
    assert "runs without/through the client: 100/50, 300/90, 200/100" in line
