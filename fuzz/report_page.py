"""The campaign report as one HTML page that reads at a glance.

The verdict comes first (passed or failed, how much was checked, how long it took, which client),
then each property with a one-line description and its count, the counterexamples as links with
their replay commands, then the charts. Numbers are written as a person writes them (12,345;
3 min 20 s); a chart with nothing to show says so in words instead of drawing an empty axis.
"""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

STYLE = """
body{font-family:system-ui,sans-serif;margin:2rem auto;max-width:64rem;color:#222;padding:0 1rem}
.verdict{padding:1rem 1.4rem;border-radius:.5rem;margin-bottom:1.5rem}
.verdict h1{margin:0 0 .3rem 0;font-size:1.8rem}.verdict p{margin:.2rem 0;font-size:1.05rem}
.passed{background:#e6f4ea;border:1px solid #7bb88a}
.failed{background:#fce8e6;border:1px solid #d77}
table{border-collapse:collapse;margin:.5rem 0 1.5rem 0}
th,td{text-align:left;padding:.3rem .8rem;border-bottom:1px solid #ddd;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums}
.ok{color:#1e7b34;font-weight:600}.bad{color:#b3261e;font-weight:600}
code{background:#f3f3f3;padding:.1rem .3rem;border-radius:.2rem;font-size:.9em}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(30rem,1fr));gap:1rem}
.charts figure{margin:0}.charts img{max-width:100%}
figure .none{border:1px dashed #aaa;border-radius:.4rem;padding:2rem 1rem;text-align:center}
.none{color:#555;font-style:italic}
"""


def number(value: float) -> str:
    """12345 -> "12,345"; 0.5 -> "0.5"; 1234.5 -> "1,234.5"."""
    if isinstance(value, int) or float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.1f}" if abs(value) >= 10 else f"{value:,.2f}"


def duration(seconds: float) -> str:
    """Seconds as "850 ms", "42 s", "3 min 20 s" or "2 h 5 min"."""
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 60:
        return f"{seconds:.1f} s" if seconds < 10 else f"{seconds:.0f} s"
    minutes, rest = divmod(round(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {rest} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min"


@dataclass(frozen=True)
class Property:
    name: str
    description: str
    count: int


@dataclass(frozen=True)
class Counterexample:
    path: str
    label: str
    replay: str


@dataclass
class Page:
    title: str
    passed: bool
    headline: list[str]
    properties: list[Property]
    facts: list[tuple[str, str]] = field(default_factory=list)
    counterexamples: list[Counterexample] = field(default_factory=list)
    charts: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    facts_title: str = "The campaign"
    no_counterexample: str = "None: every case passed."


def render(page: Page) -> str:
    verdict = "passed" if page.passed else "failed"
    lines = "".join(f"<p>{html.escape(line)}</p>" for line in page.headline)
    rows = "".join(
        f"<tr><th>{html.escape(p.name)}</th><td>{html.escape(p.description)}</td>"
        f'<td class="n {"ok" if p.count == 0 else "bad"}">'
        f"{'none' if p.count == 0 else number(p.count)}</td></tr>"
        for p in page.properties
    )
    facts = "".join(
        f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>" for k, v in page.facts
    )
    examples = "".join(
        f'<li><a href="{html.escape(c.path)}">{html.escape(c.label)}</a><br>'
        f"<code>{html.escape(c.replay)}</code></li>"
        for c in page.counterexamples
    )
    notes = "".join(f"<p>{html.escape(note)}</p>" for note in page.notes)
    if not examples:
        examples_block = f'<p class="none">{html.escape(page.no_counterexample)}</p>'
    else:
        examples_block = f"<ol>{examples}</ol>"
    charts = "".join(page.charts)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(page.title)}</title>
<style>{STYLE}</style></head><body><main><article>
<section class="verdict {verdict}"><h1>{verdict.capitalize()}: {html.escape(page.title)}</h1>
{lines}</section>
<h2>Properties</h2>
<table><tr><th></th><th>checks that</th><th>violations</th></tr>{rows}</table>
{notes}
<h2>Counterexamples</h2>
{examples_block}
<h2>{html.escape(page.facts_title)}</h2><table>{facts}</table>
<h2>Charts</h2><div class="charts">{charts}</div>
</article></main></body></html>
"""


def chart(title: str, data: Mapping[Any, float], xlabel: str, ylabel: str, empty: str = "") -> str:
    """A bar chart as an HTML figure, or `empty` in words when every value is zero."""
    if not data or not any(data.values()):
        text = empty or f"{title}: nothing to show."
        return f'<figure><p class="none">{html.escape(text)}</p></figure>'
    return f'<figure><img alt="{html.escape(title)}" src="data:image/png;base64,' + (
        bar_png(title, data, xlabel, ylabel) + '"></figure>'
    )


def bar_png(title: str, data: Mapping[Any, float], xlabel: str, ylabel: str) -> str:
    """The chart as base64 PNG: at most a dozen x labels, rotated when long, no overlaps."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    labels = [str(key) for key in data]
    figure, axes = plt.subplots(figsize=(6, 3.4))
    positions = list(range(len(labels)))
    axes.bar(positions, list(data.values()), color="#3b6ea5")
    step = max(1, len(labels) // 12)
    shown: Sequence[int] = positions[::step]
    axes.set_xticks(shown, [labels[i] for i in shown])
    if max(len(labels[i]) for i in shown) > 4:
        axes.tick_params(axis="x", labelrotation=30)
    axes.yaxis.set_major_locator(MaxNLocator(nbins=6, integer=True))
    axes.yaxis.set_major_formatter(FuncFormatter(lambda value, _: number(value)))
    axes.set_title(title)
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=90)
    plt.close(figure)
    return base64.b64encode(buffer.getvalue()).decode()
