"""The report page: verdict first, numbers as people write them, no empty charts."""

from swarmconf.fuzz.report_page import Page, Property, chart, duration, number, render


def test_numbers_and_durations_read_naturally() -> None:
    assert number(1234567) == "1,234,567"
    assert number(12.0) == "12"
    assert number(1234.56) == "1,234.6"
    assert duration(0.25) == "250 ms"
    assert duration(200) == "3 min 20 s"
    assert duration(7500) == "2 h 5 min"


def test_a_chart_of_nothing_is_a_sentence_not_an_empty_axis() -> None:
    empty = chart("Violations", {"P1": 0, "P2": 0}, "property", "cases", empty="No violation.")
    assert "<img" not in empty and "No violation." in empty
    drawn = chart("Violations", {"P1": 3, "P2": 0}, "property", "cases")
    assert "data:image/png;base64," in drawn


def test_the_verdict_comes_first() -> None:
    page = render(Page("campaign", False, ["2,000 interleavings"], [Property("C1", "agrees", 4)]))
    assert page.index("Failed") < page.index("Properties") < page.index("Counterexamples")
    assert "4</td>" in page
