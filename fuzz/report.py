"""The campaign's outputs: summary.json, counterexamples with replay commands, report.html.

Aggregates are computed by Spark SQL from the per-case Parquet; plots are drawn with
matplotlib and embedded in a single HTML file.
"""

from __future__ import annotations

import base64
import html
import io
import json
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from .configmerge.case import generate_case, replay, write_case
from .configmerge.impl import choose
from .configmerge.shrink import shrink

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from .config import Config

PROPERTIES = ("P1", "P2", "P3", "P4", "P5", "P6")
PER_PROPERTY = 5


def counts(cases: DataFrame, column: str) -> dict[int, int]:
    rows = cases.groupBy(column).count().collect()
    return {int(row[column]): int(row["count"]) for row in sorted(rows, key=lambda r: r[column])}


def summarize(cases: DataFrame) -> dict[str, Any]:
    """Totals and distributions over all cases."""
    from pyspark.sql import functions as f

    totals = cases.agg(
        f.count("*").alias("cases"),
        f.sum(f.when(f.col("violations") != "", 1).otherwise(0)).alias("failing"),
        f.sum("checked").alias("checked"),
        f.sum("lost_dropped").alias("lost_dropped"),
        f.sum("lost_overwritten").alias("lost_overwritten"),
        f.sum(f.when(f.col("lost_dropped") + f.col("lost_overwritten") > 0, 1).otherwise(0)).alias(
            "cases_with_losses"
        ),
        f.sum("merges").alias("merges"),
    ).first()
    assert totals is not None
    names = cases.filter(f.col("violations") != "").select(
        f.explode(f.split("violations", " ")).alias("property")
    )
    by_property = {
        row["property"]: row["count"] for row in names.groupBy("property").count().collect()
    }
    lost = cases.withColumn("lost", f.col("lost_dropped") + f.col("lost_overwritten"))

    def rate(column: str) -> dict[int, float]:
        rows = cases.groupBy(column).agg(f.count("*").alias("n"), f.sum("seconds").alias("s"))
        found = {int(r[column]): r["n"] / r["s"] for r in rows.collect() if r["s"]}
        return dict(sorted(found.items()))

    return {
        "cases": int(totals["cases"]),
        "failing_cases": int(totals["failing"] or 0),
        "violations": {name: int(by_property.get(name, 0)) for name in PROPERTIES},
        "merges": int(totals["merges"] or 0),
        "p4": {
            "atoms_checked": int(totals["checked"] or 0),
            "lost_beyond_window_dropped": int(totals["lost_dropped"] or 0),
            "lost_beyond_window_overwritten": int(totals["lost_overwritten"] or 0),
            "cases_with_losses": int(totals["cases_with_losses"] or 0),
            "lost_per_case": counts(lost, "lost"),
        },
        "conflict_width": counts(cases, "max_width"),
        "merge_depth": counts(cases, "max_depth"),
        "core_rate_by_clients": rate("clients"),
        "core_rate_by_edits": rate("edits"),
    }


def write_counterexamples(cases: DataFrame, config: Config) -> list[str]:
    """For each violated property, its first PER_PROPERTY failing cases as JSON, the first of
    them also minimized (a `-shrunk` file)."""
    from pyspark.sql import functions as f

    folder = config.out / "counterexamples"
    folder.mkdir(parents=True, exist_ok=True)
    paths: list[str] = []
    written: set[tuple[int, int]] = set()
    for name in PROPERTIES:
        failing = (
            cases.filter(f.array_contains(f.split("violations", " "), name))
            .orderBy("scenario", "schedule")
            .limit(PER_PROPERTY)
            .collect()
        )
        for number, row in enumerate(failing):
            key = (row["scenario"], row["schedule"])
            if key in written:
                continue
            written.add(key)
            case = generate_case(row["campaign_seed"], *key, config.mutant)
            outcome = replay(case)
            path = folder / f"{case.name}.json"
            write_case(case, outcome, path)
            paths.append(str(path))
            if number == 0 and outcome.violations:
                scenario, schedule = shrink((case.scenario, case.schedule), config.mutant)
                small = replace(case, scenario=scenario, schedule=schedule, shrunk=True)
                shrunk_path = folder / f"{case.name}-shrunk.json"
                write_case(small, replay(small), shrunk_path)
                paths.append(str(shrunk_path))
    return paths


def bar_chart(title: str, data: dict[Any, float], xlabel: str, ylabel: str) -> str:
    """A bar chart as a base64 PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6, 3.2))
    labels = [str(key) for key in data]
    axes.bar(labels, list(data.values()), color="#3b6ea5")
    axes.set_title(title)
    axes.set_xlabel(xlabel)
    axes.set_ylabel(ylabel)
    figure.tight_layout()
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=90)
    plt.close(figure)
    return base64.b64encode(buffer.getvalue()).decode()


def write_report(summary: dict[str, Any], config: Config) -> None:
    p4 = summary["p4"]
    charts = [
        bar_chart("Violations by property", summary["violations"], "property", "cases"),
        bar_chart(
            "Conflict width (most messages merged at once)",
            summary["conflict_width"],
            "messages",
            "cases",
        ),
        bar_chart("Merge depth (merges of merges)", summary["merge_depth"], "depth", "cases"),
        bar_chart(
            "Updates lost beyond the lag window, per case", p4["lost_per_case"], "updates", "cases"
        ),
        bar_chart(
            "Core throughput by clients (one core)",
            summary["core_rate_by_clients"],
            "clients",
            "interleavings/s",
        ),
        bar_chart(
            "Core throughput by edits per scenario (one core)",
            summary["core_rate_by_edits"],
            "edits",
            "interleavings/s",
        ),
    ]
    rows = "".join(
        f"<tr><th>{html.escape(str(key))}</th><td>{html.escape(json.dumps(value))}</td></tr>"
        for key, value in summary.items()
        if not isinstance(value, dict)
    )
    examples = "".join(
        f"<li><code>swarmconf fuzz replay {html.escape(path)}</code></li>"
        for path in summary["counterexample_files"]
    )
    images = "".join(f'<img src="data:image/png;base64,{chart}">' for chart in charts)
    page = f"""<!doctype html>
<html><head><meta charset="utf-8"><title>swarmconf fuzz report</title>
<style>body{{font-family:sans-serif;margin:2em}}img{{margin:.5em}}th{{text-align:left;padding-right:1em}}</style>
</head><body>
<h1>swarmconf fuzz campaign</h1>
<table>{rows}</table>
<h2>Properties</h2>
<p>Violations: {html.escape(json.dumps(summary["violations"]))}.
P4 checked {p4["atoms_checked"]} winning writes; updates lost beyond the lag window (expected,
not violations): {p4["lost_beyond_window_dropped"]} dropped as too old,
{p4["lost_beyond_window_overwritten"]} overwritten after leaving the window, in
{p4["cases_with_losses"]} cases.</p>
{images}
<h2>Counterexamples</h2><ul>{examples or "<li>none</li>"}</ul>
</body></html>
"""
    (config.out / "report.html").write_text(page)


def write_outputs(cases: DataFrame, config: Config, seconds: float, master: str) -> dict[str, Any]:
    primary, checker = choose(config.mutant, config.differential)
    summary: dict[str, Any] = {
        "campaign_seed": config.seed,
        "interleavings": config.interleavings,
        "per_scenario": config.per_scenario,
        "mutant": config.mutant,
        "master": master,
        "primary": primary.name,
        "checker": checker.name if checker else None,
        "seconds": round(seconds, 3),
        "interleavings_per_second": round(config.interleavings / seconds, 1),
    }
    summary.update(summarize(cases))
    summary["counterexample_files"] = write_counterexamples(cases, config)
    (config.out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    write_report(summary, config)
    return summary
