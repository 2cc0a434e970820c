"""The K/V Gossip campaign's outputs: summary.json, counterexample files, report.html.

Aggregates are computed by Spark SQL from the per-case Parquet; the page is the shared one
(`report_page`), verdict first. For each violated property the first failing cases are written
as counterexample files (`case`), the first of them also shrunk, each with the
`swarmconf fuzz replay` command that runs it again.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..report import counts, replay_command
from ..report_page import Counterexample, Page, Property, chart, duration, number, render
from .case import SYSTEM, KvCase, run, write_case
from .properties import PROPERTIES

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from ..config import Config

PER_PROPERTY = 3
"""Failing cases written per violated property."""
LISTED = 20
"""Failing cases listed in summary.json."""


def write_counterexample(case: KvCase, path: Path, shrunk_for: str | None = None) -> bool:
    """Write the case (shrunk first, still failing property `shrunk_for`, if given) with its
    violations and replay command; True when it still fails."""
    if shrunk_for is not None:
        from .shrink import shrink

        case = shrink(case, shrunk_for)
    result = run(case)
    write_case(case, result, path)
    return bool(result["violations"])


def write_counterexamples(cases: DataFrame, config: Config) -> list[str]:
    """For each violated property, its first PER_PROPERTY failing cases as JSON, the first of
    them also shrunk, still failing that property (a `-shrunk` file)."""
    from pyspark.sql import functions as f

    folder = config.out / "counterexamples"
    paths: list[str] = []
    written: set[int] = set()
    for name in PROPERTIES:
        failing = (
            cases.filter(f.array_contains(f.split("properties", " "), name))
            .orderBy("case")
            .limit(PER_PROPERTY)
            .collect()
        )
        for number_, row in enumerate(failing):
            if row["case"] in written:
                continue
            written.add(row["case"])
            folder.mkdir(parents=True, exist_ok=True)
            case = KvCase(row["campaign_seed"], row["case"], config.mutant)
            path = folder / f"{case.name}.json"
            fails = write_counterexample(case, path)
            paths.append(str(path))
            if number_ == 0 and fails:
                shrunk_path = folder / f"{case.name}-shrunk.json"
                write_counterexample(case, shrunk_path, shrunk_for=name)
                paths.append(str(shrunk_path))
    return paths


def summarize(cases: DataFrame) -> dict[str, Any]:
    """Totals and distributions over all cases."""
    from pyspark.sql import functions as f

    totals = cases.agg(
        f.count("*").alias("cases"),
        f.sum(f.when(f.col("violations") != "", 1).otherwise(0)).alias("failing"),
        f.sum(f.col("attacker").cast("long")).alias("attacker"),
        f.sum(f.col("churn").cast("long")).alias("churn"),
        f.sum("sessions").alias("sessions"),
        f.sum("events").alias("events"),
    ).first()
    assert totals is not None
    exploded = cases.filter(f.col("properties") != "").select(
        f.explode(f.split("properties", " ")).alias("property")
    )
    found = {
        row["property"]: int(row["count"]) for row in exploded.groupBy("property").count().collect()
    }
    return {
        "cases": int(totals["cases"]),
        "failing_cases": int(totals["failing"] or 0),
        "violations": {name: found.get(name, 0) for name in sorted({*PROPERTIES, *found})},
        "cases_with_attacker": int(totals["attacker"] or 0),
        "cases_with_churn": int(totals["churn"] or 0),
        "sessions_run": int(totals["sessions"] or 0),
        "events_run": int(totals["events"] or 0),
        "nodes": counts(cases, "nodes"),
        "sessions": counts(cases, "sessions"),
    }


def listed(cases: DataFrame, mutant: str | None) -> list[dict[str, Any]]:
    """The first LISTED failing cases, each with the command regenerating it."""
    from pyspark.sql import functions as f

    failing = cases.filter(f.col("violations") != "").orderBy("case").limit(LISTED).collect()
    option = f" --mutant {mutant}" if mutant else ""
    return [
        {
            "case": row["case"],
            "violations": row["violations"].splitlines(),
            "replay": f"swarmconf fuzz replay --system {SYSTEM} "
            f"{row['campaign_seed']}:{row['case']}{option}",
        }
        for row in failing
    ]


def write_kv_outputs(
    cases: DataFrame, config: Config, seconds: float, master: str
) -> dict[str, Any]:
    """summary.json, the counterexample files and report.html; returns the summary."""
    summary: dict[str, Any] = {
        "system": SYSTEM,
        "campaign_seed": config.seed,
        "interleavings": config.interleavings,
        "mutant": config.mutant,
        "master": master,
        "seconds": round(seconds, 3),
        "interleavings_per_second": round(config.interleavings / seconds, 1),
    }
    summary.update(summarize(cases))
    summary["counterexamples"] = listed(cases, config.mutant)
    summary["counterexample_files"] = write_counterexamples(cases, config)
    (config.out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    (config.out / "report.html").write_text(render(page(summary, config)))
    return summary


def page(summary: dict[str, Any], config: Config) -> Page:
    """The report: the verdict, each property's count, the counterexamples, then the charts."""
    what = f"{number(summary['cases'])} simulated runs in {duration(summary['seconds'])}"
    headline = [
        f"{what} ({number(summary['interleavings_per_second'])} per second), "
        f"{number(summary['failing_cases'])} failing."
    ]
    if config.mutant is not None:
        headline.append(f"Mutant of the spec: {config.mutant}.")
    out = config.out.resolve()
    examples = [
        Counterexample(
            Path(path).resolve().relative_to(out).as_posix(),
            Path(path).stem,
            replay_command(path, None),
        )
        for path in summary["counterexample_files"]
    ]
    violations = summary["violations"]
    descriptions = {**dict.fromkeys(violations, "a violation naming no property"), **PROPERTIES}
    return Page(
        "swarmconf K/V Gossip campaign",
        summary["failing_cases"] == 0,
        headline,
        [Property(name, descriptions[name], count) for name, count in violations.items()],
        [
            ("seed", str(summary["campaign_seed"])),
            ("Spark master", summary["master"]),
            ("runs with an attacker", number(summary["cases_with_attacker"])),
            ("runs with a node leaving or joining late", number(summary["cases_with_churn"])),
            ("sync sessions run", number(summary["sessions_run"])),
            ("simulated events", number(summary["events_run"])),
        ],
        examples,
        [
            chart(
                "Violations by property",
                violations,
                "property",
                "runs",
                empty=f"No property was violated in {number(summary['cases'])} runs.",
            ),
            chart("Honest nodes per run", summary["nodes"], "nodes", "runs"),
            chart("Sync sessions per run", summary["sessions"], "sessions", "runs"),
        ],
    )
