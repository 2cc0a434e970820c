"""The config-merge campaign's outputs: summary.json, counterexamples with replay commands,
report.html.

Aggregates are computed by Spark SQL from the per-case Parquet; the page is drawn by
`report_page`. A campaign through a client (`--client`) adds the client's name and version, its
C1 and C2 counts, and the requests it skipped or answered as a declared quirk; its
counterexamples replay and shrink through the same command, and its C2 failures are grouped by
cause, each group's first case shrunk to one still failing with that cause.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..campaigns import Closing, campaign_of
from ..report import (
    cause_label,
    client_hello,
    client_line,
    counts,
    failure_groups,
    interleavings_closing,
    lenient_facts,
    quirk_totals,
    reason_pair_totals,
    replay_command,
)
from ..report_page import Counterexample, Page, Property, chart, duration, number, render
from .case import Case, case_to_json, generate_case, parse_case_id, replay
from .impl import choose
from .shrink import shrink

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from ..config import Config

SECURITY_QUIRKS = {
    "X15": "Security: the client declares X15, decompression without a bound. A `z` blob of a"
    " few hundred bytes in the swarm makes it allocate megabytes before any check (256 bytes"
    " stored inflate to 5,000,034), one blob at the 76,800-byte limit about 2.5 GB: anyone"
    " who can store a blob can exhaust its memory (errata X15).",
}
"""Declared quirks that are security findings, and what the report says of each."""


def security_notes(hello: Mapping[str, Any] | None) -> list[str]:
    """The report's notes on the security findings among a client's declared quirks."""
    declared = (hello or {}).get("quirks") or []
    return [SECURITY_QUIRKS[quirk] for quirk in SECURITY_QUIRKS if quirk in declared]


PROPERTIES = {
    "P1": "every client ends with the same bytes, and the swarm collapses to that message",
    "P2": "a merge gives the same bytes in any order, with duplicates or included messages",
    "P3": "the spec and the reference produce identical bytes (on a sample of operations)",
    "P4": "no update inside the lag window is lost",
    "P5": "merge rounds quiesce within the bound",
    "P6": "every published message parses and is in normal form",
}
PER_PROPERTY = 5
SHRINK_SECONDS = 60.0
"""Seconds a case may spend shrinking through the client (each candidate replays on a new
adapter process): a client that dies often would otherwise hold the report for minutes."""


def properties_of(config: Config) -> Mapping[str, str]:
    """The properties the campaign of `config` checks."""
    return campaign_of(config).properties


def summarize(cases: DataFrame, names: list[str]) -> dict[str, Any]:
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
    exploded = cases.filter(f.col("violations") != "").select(
        f.explode(f.split("violations", " ")).alias("property")
    )
    by_property = {
        row["property"]: row["count"] for row in exploded.groupBy("property").count().collect()
    }
    lost = cases.withColumn("lost", f.col("lost_dropped") + f.col("lost_overwritten"))
    acceptable = cases.filter(f.col("acceptable") != "").select(
        f.explode(f.split("acceptable", " ")).alias("quirk")
    )

    def rate(column: str) -> dict[int, float]:
        rows = cases.groupBy(column).agg(f.count("*").alias("n"), f.sum("seconds").alias("s"))
        found = {int(r[column]): r["n"] / r["s"] for r in rows.collect() if r["s"]}
        return dict(sorted(found.items()))

    summary = {
        "cases": int(totals["cases"]),
        "failing_cases": int(totals["failing"] or 0),
        "violations": {name: int(by_property.get(name, 0)) for name in names},
        "merges": int(totals["merges"] or 0),
        "acceptable": {
            row["quirk"]: row["count"]
            for row in acceptable.groupBy("quirk").count().orderBy("quirk").collect()
        },
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
    if "client_requests" in cases.columns:
        sums = cases.agg(
            *(f.sum(name).alias(name) for name in ("client_requests", "client_skipped")),
            *(f.sum(name).alias(name) for name in ("client_quirks", "client_failures")),
            f.sum("client_seconds").alias("client_seconds"),
        ).first()
        assert sums is not None
        summary["client_counts"] = {
            "requests": int(sums["client_requests"] or 0),
            "skipped": int(sums["client_skipped"] or 0),
            "declared_quirks": int(sums["client_quirks"] or 0),
            "failures": int(sums["client_failures"] or 0),
            "seconds_waiting": round(float(sums["client_seconds"] or 0.0), 3),
            "by_quirk": quirk_totals(
                row[0]
                for row in cases.filter(f.col("client_quirk_counts") != "{}")
                .select("client_quirk_counts")
                .collect()
            ),
            "by_reasons": reason_pair_totals(
                row[0]
                for row in cases.filter(f.col("client_reason_pairs") != "{}")
                .select("client_reason_pairs")
                .collect()
            ),
        }
    return summary


def client_case(case: Case, config: Config, shrunk: bool) -> tuple[Case, list[str]]:
    """The case replayed (and shrunk, if asked) through the campaign's client."""
    from ..client import start
    from .differential import replay_with_client, shrink_through_client

    assert config.client is not None
    if shrunk:
        scenario, schedule = shrink_through_client(
            (case.scenario, case.schedule),
            config.client,
            config.client_timeout,
            seconds=SHRINK_SECONDS,
        )
        case = replace(case, scenario=scenario, schedule=schedule, shrunk=True)
    client = start(config.client, config.client_timeout)
    try:
        outcome = replay_with_client(case.scenario, case.schedule, client)[0]
    finally:
        client.close()
    return case, outcome.violations


def cause_counterexample(group: dict[str, Any], config: Config, number_: int) -> dict[str, Any]:
    """A C2 group's first case shrunk through the client to a smaller one still failing with
    the group's cause (`SHRINK_SECONDS` at most), written as a counterexample file; its
    path, size, replay command, and the first request failing with that cause in its replay
    (with the line that sends it to the client again)."""
    from ..client import replay_line
    from .differential import replays_through, shrink_through_client

    assert config.client is not None
    case = parse_case_id(group["example"]["case"])
    scenario, schedule = shrink_through_client(
        (case.scenario, case.schedule),
        config.client,
        config.client_timeout,
        cause=group["cause"],
        seconds=SHRINK_SECONDS,
    )
    small = replace(case, scenario=scenario, schedule=schedule, shrunk=True)
    replayed = replays_through(config.client, config.client_timeout)((scenario, schedule))
    failing = [request for _, request in replayed.causes().get(group["cause"], [])]
    folder = config.out / "counterexamples"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"c2-{number_}-{small.name}-shrunk.json"
    obj = case_to_json(small, replay(small), path)
    obj["client"] = config.client
    obj["violations"] = replayed.outcome.violations
    obj["properties"] = replayed.outcome.properties
    obj["cause"] = group["cause"]
    obj["replay"] = replay_command(str(path), config.client)
    path.write_text(json.dumps(obj, indent=1) + "\n")
    request = failing[0] if failing else group["example"]["request"]
    return {
        "file": str(path),
        "shrunk_to": ", ".join(
            f"{count:,} {noun}{'' if count == 1 else 's'}"
            for count, noun in (
                (len(scenario.clients), "client"),
                (scenario.edit_count, "edit"),
                (len(schedule.events), "event"),
            )
        ),
        "replay": obj["replay"],
        "request": request,
        "request_replay": replay_line(request, config.client),
    }


def cause_groups(cases: DataFrame, config: Config) -> list[dict[str, Any]]:
    """The client's failures no declared quirk explains (C2) by cause, the largest first, each
    with its first case shrunk (`cause_counterexample`)."""
    from pyspark.sql import functions as f

    texts = (
        row[0]
        for row in cases.filter(f.col("client_failure_causes") != "{}")
        .select("client_failure_causes")
        .collect()
    )
    return [
        {**group, "shrunk": cause_counterexample(group, config, number_)}
        for number_, group in enumerate(failure_groups(texts), 1)
    ]


def write_counterexample(case: Case, config: Config, path: Path, shrunk: bool = False) -> bool:
    """Write the case (shrunk first if asked) with its violations and replay command; True when
    it still fails."""
    if config.client is None or config.swarm:
        # A swarm plays its `client` clients through the adapter itself
        client = config.client
        if shrunk:
            scenario, schedule = shrink(
                (case.scenario, case.schedule), config.mutant, client=client
            )
            case = replace(case, scenario=scenario, schedule=schedule, shrunk=True)
        outcome = replay(case, client)
        obj = case_to_json(case, outcome, path)
        violations = outcome.violations
        if client is not None:
            obj["client"] = client
            obj["replay"] = replay_command(str(path), client)
    else:
        case, violations = client_case(case, config, shrunk)
        obj = case_to_json(case, replay(case), path)
        obj["client"] = config.client
        obj["violations"] = violations
        obj["properties"] = sorted({v.split(" ", 1)[0] for v in violations})
        obj["replay"] = replay_command(str(path), config.client)
    path.write_text(json.dumps(obj, indent=1) + "\n")
    return bool(violations)


def write_counterexamples(cases: DataFrame, config: Config, names: list[str]) -> list[str]:
    """For each violated property, its first PER_PROPERTY failing cases as JSON, the first of
    them also minimized (a `-shrunk` file)."""
    from pyspark.sql import functions as f

    folder = config.out / "counterexamples"
    folder.mkdir(parents=True, exist_ok=True)
    paths: list[str] = []
    written: set[tuple[int, int]] = set()
    for name in names:
        failing = (
            cases.filter(f.array_contains(f.split("violations", " "), name))
            .orderBy("scenario", "schedule")
            .limit(PER_PROPERTY)
            .collect()
        )
        for number_, row in enumerate(failing):
            key = (row["scenario"], row["schedule"])
            if key in written:
                continue
            written.add(key)
            case = generate_case(row["campaign_seed"], *key, config.mutant, config.swarm)
            path = folder / f"{case.name}.json"
            fails = write_counterexample(case, config, path)
            paths.append(str(path))
            if number_ == 0 and fails:
                shrunk_path = folder / f"{case.name}-shrunk.json"
                write_counterexample(case, config, shrunk_path, shrunk=True)
                paths.append(str(shrunk_path))
    return paths


def write_report(summary: dict[str, Any], config: Config) -> None:
    names = properties_of(config)
    p4 = summary["p4"]
    client = summary.get("client_counts")
    what = f"{number(summary['cases'])} interleavings in {duration(summary['seconds'])}"
    headline = [
        f"{what} ({number(summary['interleavings_per_second'])} per second), "
        f"{number(summary['failing_cases'])} failing.",
    ]
    if config.client is not None:
        headline.append(f"Client: {client_line(summary.get('client'))}, run as {config.client}.")
    elif config.mutant is not None:
        headline.append(f"Mutant merger: {config.mutant}.")
    facts = [
        ("seed", str(summary["campaign_seed"])),
        ("schedules per scenario", number(summary["per_scenario"])),
        ("Spark master", summary["master"]),
        ("runs the clients", summary["primary"]),
        ("merges made", number(summary["merges"])),
        *(
            (f"interleavings with a finding {quirk} explains (acceptable)", number(count))
            for quirk, count in summary.get("acceptable", {}).items()
        ),
        ("winning writes checked (P4)", number(p4["atoms_checked"])),
        (
            "updates lost beyond the lag window (expected)",
            f"{number(p4['lost_beyond_window_dropped'])} dropped as too old, "
            f"{number(p4['lost_beyond_window_overwritten'])} overwritten after leaving the window,"
            f" in {number(p4['cases_with_losses'])} interleavings",
        ),
    ]
    notes = []
    if client is not None:
        facts += [
            ("requests sent to the client", number(client["requests"])),
            ("skipped by the client", number(client["skipped"])),
            ("acceptable as a declared quirk", number(client["declared_quirks"])),
            *((f"acceptable as {name}", number(n)) for name, n in client["by_quirk"].items()),
            *lenient_facts(client.get("by_reasons", {})),
            ("time waiting for the client", duration(client["seconds_waiting"])),
        ]
        if client["skipped"]:
            notes.append(
                f"The client skipped {number(client['skipped'])} requests: those operations "
                "were not checked."
            )
    notes += security_notes(summary.get("client"))
    out = config.out.resolve()
    examples = [
        *(
            Counterexample(
                Path(group["shrunk"]["file"]).resolve().relative_to(out).as_posix(),
                cause_label(group, "requests")
                + f" (in {number(group['interleavings'])} interleavings)",
                group["shrunk"]["replay"],
            )
            for group in summary.get("client_failures_by_cause", [])
        ),
        *(
            Counterexample(
                Path(path).resolve().relative_to(out).as_posix(),
                Path(path).stem,
                replay_command(path, config.client),
            )
            for path in summary["counterexample_files"]
        ),
    ]
    violations = summary["violations"]
    page = Page(
        campaign_of(config).title,
        summary["failing_cases"] == 0,
        headline,
        [Property(name, text, violations.get(name, 0)) for name, text in names.items()],
        facts,
        examples,
        [
            chart(
                "Violations by property",
                violations,
                "property",
                "interleavings",
                empty=f"No property was violated in {number(summary['cases'])} interleavings.",
            ),
            chart(
                "Conflict width (most messages merged at once)",
                summary["conflict_width"],
                "messages",
                "interleavings",
            ),
            chart(
                "Merge depth (merges of merges)", summary["merge_depth"], "depth", "interleavings"
            ),
            chart(
                "Updates lost beyond the lag window, per interleaving",
                p4["lost_per_case"],
                "updates",
                "interleavings",
            ),
            chart(
                "Core throughput by clients (one core)",
                summary["core_rate_by_clients"],
                "clients",
                "interleavings per second",
            ),
            chart(
                "Core throughput by edits per scenario (one core)",
                summary["core_rate_by_edits"],
                "edits",
                "interleavings per second",
            ),
        ],
        notes,
    )
    (config.out / "report.html").write_text(render(page))


def write_outputs(cases: DataFrame, config: Config, seconds: float, master: str) -> dict[str, Any]:
    if config.client is not None:
        primary, checker = "swarmconf.reference (the oracle; the spec judges)", None
    elif config.swarm:
        primary = f"client-layer clients: {', '.join(config.swarm)} (repeated over the clients)"
        checker = None
    else:
        impl, check = choose(config.mutant, config.differential)
        primary, checker = impl.name, check.name if check else None
    summary: dict[str, Any] = {
        "campaign_seed": config.seed,
        "interleavings": config.interleavings,
        "per_scenario": config.per_scenario,
        "mutant": config.mutant,
        "master": master,
        "primary": primary,
        "checker": checker,
        "seconds": round(seconds, 3),
        "interleavings_per_second": round(config.interleavings / seconds, 1),
    }
    if config.client is not None:
        summary["client_command"] = config.client
        summary["client"] = client_hello(config)
    names = list(properties_of(config))
    summary.update(summarize(cases, names))
    summary["counterexample_files"] = write_counterexamples(cases, config, names)
    if "client_failure_causes" in cases.columns:  # the interleavings through a client
        summary["client_failures_by_cause"] = cause_groups(cases, config)
    (config.out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    write_report(summary, config)
    return summary


def client_closing(summary: dict[str, Any]) -> Closing:
    """A campaign through a client closes as any campaign of cases, after a `SWARMCONF BUG`
    line when the reference contradicted the spec (R1): the campaign then fails whatever the
    client did."""
    closing = interleavings_closing(summary)
    bugs = summary["violations"].get("R1", 0)
    if not bugs:
        return closing
    line = (
        f"fuzz: SWARMCONF BUG: the reference contradicts the spec in {bugs} interleavings "
        "(R1, first in the report)"
    )
    return Closing([line, *closing.lines], closing.failure or f"{bugs} R1 interleavings")
