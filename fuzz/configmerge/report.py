"""The config-merge campaign's outputs: summary.json, counterexamples with replay commands,
report.html.

Aggregates are computed by Spark SQL from the per-case Parquet; the page is drawn by
`report_page`. The page says which behaviours and mixes ran and how each mix fared; a campaign
whose clients include an adapter's (`--client`) adds the client's name and version, and its
counterexamples replay and shrink through the same command.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..campaigns import campaign_of
from ..report import client_hello, client_line, counts, replay_command
from ..report_page import Counterexample, Page, Property, chart, duration, number, render
from .behaviours import BEHAVIOURS, MIXES, MODIFIERS
from .case import Case, case_to_json, generate_case, replay
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
    "P1": "after the lockstep rounds the swarm's current messages collapse to one, whose data "
    "every client holds",
    "P2": "a client's merge of a poll leaves it in the same state in any order of the poll, "
    "with a duplicate and an already-included message (one distinct poll in four)",
    "P3": "every client takes each step as its twin does: the reference's client as the "
    "spec's of its profile, a mutant's as the intact spec's (every distinct step of one "
    "scenario in eight, and of every scenario of a mutant)",
    "P4": "no update inside the lag window is lost, under the clients' real timing (dirty "
    "clients edit in place, merges are pushed only when the client pushes)",
    "P5": "lockstep rounds (every client polls one snapshot, then pushes) quiesce within "
    "clients + 3 rounds: racing resolutions stop",
    "P6": "every pushed message parses and is in normal form; a conflict resolution carries "
    "no unknown key (D9) and the `=` its profile gives (D30)",
    "P7": "no client deletes a message it cannot parse (a later version's message stays, D27)",
    "C1": "a client played through an adapter answers each step as the spec's client of its "
    "profile does (what it pushes and deletes, its current hash, whether it needs a push)",
    "C2": "a client played through an adapter answers every step it is sent",
}
"""What every interleaving is judged on (P2, P3, P6 where a step is taken, P7 at each push,
P1, P4, P5 after the lockstep rounds)."""
TITLES = {
    "P1": "convergence",
    "P2": "determinism",
    "P3": "agreement with the twin",
    "P4": "no lost update",
    "P5": "termination",
    "P6": "validity",
    "P7": "no deletion of the unparseable",
    "C1": "the adapter agrees",
    "C2": "the adapter answers",
}
"""Each property in a few words, for the console."""
THROUGH_ADAPTER = ("C1", "C2")
"""The properties judged only of a client played through an adapter (`--client`)."""
PER_PROPERTY = 5


def judged(properties: Mapping[str, str], through_adapter: bool) -> dict[str, str]:
    """The properties judged of some clients: C1 and C2 only of a client played through an
    adapter."""
    return {
        name: text
        for name, text in properties.items()
        if through_adapter or name not in THROUGH_ADAPTER
    }


def properties_of(config: Config) -> Mapping[str, str]:
    """The properties the campaign of `config` judges."""
    return judged(campaign_of(config).properties, config.client is not None)


def opening(config: Config) -> list[str]:
    """What a run prints before its progress: which clients run and what is judged."""
    given = clients_given(config)
    if given:
        clients = (
            f"clients: {', '.join(dict.fromkeys(given))}, given to each scenario's clients in turn"
        )
    else:
        mixes = ", ".join(mix.name for mix in MIXES.values() if mix.settles)
        clients = f"clients: each scenario a mix of behaviours its seed draws: {mixes}"
    judged = ", ".join(f"{name} {TITLES[name]}" for name in properties_of(config))
    return [
        clients,
        f"modifiers its seed draws per client: {', '.join(MODIFIERS)}",
        f"judged: {judged} (the report says what each means)",
    ]


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
    by_mix = cases.groupBy("mix").agg(
        f.count("*").alias("n"),
        f.sum(f.when(f.col("violations") != "", 1).otherwise(0)).alias("failing"),
        f.sum(f.when(f.col("acceptable") != "", 1).otherwise(0)).alias("acceptable"),
    )
    summary["by_mix"] = {
        row["mix"]: {
            "interleavings": int(row["n"]),
            "failing": int(row["failing"] or 0),
            "acceptable": int(row["acceptable"] or 0),
        }
        for row in by_mix.orderBy("mix").collect()
    }
    return summary


def write_counterexample(case: Case, config: Config, path: Path, shrunk: bool = False) -> bool:
    """Write the case (shrunk first if asked) with its violations and replay command; True when
    it still fails."""
    client = config.client
    if shrunk:
        scenario, schedule = shrink((case.scenario, case.schedule), config.mutant, client=client)
        case = replace(case, scenario=scenario, schedule=schedule, shrunk=True)
    outcome = replay(case, client)
    obj = case_to_json(case, outcome, path)
    if client is not None:
        obj["client"] = client
        obj["replay"] = replay_command(str(path), client)
    path.write_text(json.dumps(obj, indent=1) + "\n")
    return bool(outcome.violations)


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
            case = generate_case(row["campaign_seed"], *key, config.mutant, behaviours_of(config))
            path = folder / f"{case.name}.json"
            fails = write_counterexample(case, config, path)
            paths.append(str(path))
            if number_ == 0 and fails:
                shrunk_path = folder / f"{case.name}-shrunk.json"
                write_counterexample(case, config, shrunk_path, shrunk=True)
                paths.append(str(shrunk_path))
    return paths


def behaviours_of(config: Config) -> tuple[str, ...] | None:
    """The behaviours a campaign's scenarios were given (None: the mixes their seeds draw)."""
    from .campaign import given_behaviours

    return given_behaviours(config.swarm, config.client)


def clients_given(config: Config) -> tuple[str, ...] | None:
    """The behaviours given to the scenarios' clients in turn (a mutant's: `spec`), or None
    where each scenario's seed draws a mix."""
    return behaviours_of(config) or (("spec",) if config.mutant is not None else None)


def clients_ran(config: Config) -> list[tuple[str, str]]:
    """The facts that say which clients ran: the mixes drawn, or the behaviours given."""
    given = clients_given(config)
    if given:
        names = dict.fromkeys(given)
        return [
            (
                "clients",
                f"{', '.join(names)}, given to each scenario's clients in turn",
            ),
            *((f"behaviour {name}", BEHAVIOURS[name].description) for name in names),
        ]
    return [
        ("clients", "each scenario a mix its seed draws (below)"),
        *((f"mix {mix.name}", mix.description) for mix in MIXES.values() if mix.settles),
    ]


def mix_facts(summary: dict[str, Any]) -> list[tuple[str, str]]:
    return [
        (
            f"interleavings of {name}",
            f"{number(found['interleavings'])}, {number(found['failing'])} failing, "
            f"{number(found['acceptable'])} with a finding a declared quirk explains",
        )
        for name, found in summary.get("by_mix", {}).items()
    ]


def write_report(summary: dict[str, Any], config: Config) -> None:
    names = properties_of(config)
    p4 = summary["p4"]
    what = f"{number(summary['cases'])} interleavings in {duration(summary['seconds'])}"
    headline = [
        f"{what} ({number(summary['interleavings_per_second'])} per second), "
        f"{number(summary['failing_cases'])} failing.",
    ]
    if config.client is not None:
        headline.append(f"Client: {client_line(summary.get('client'))}, run as {config.client}.")
    if config.mutant is not None:
        headline.append(f"Mutant: {config.mutant} (the spec with one rule broken).")
    facts = [
        ("seed", str(summary["campaign_seed"])),
        ("interleavings per scenario", number(summary["per_scenario"])),
        ("Spark master", summary["master"]),
        *clients_ran(config),
        *((f"modifier {name}", modifier.description) for name, modifier in MODIFIERS.items()),
        *mix_facts(summary),
        ("conflict resolutions made", number(summary["merges"])),
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
    notes = security_notes(summary.get("client"))
    if "X17" in summary.get("acceptable", {}):
        notes.append(
            "X17: a clean deployed client's conflict resolution lists every data key in `=` "
            "(the libsession profile does the same, D30); merged with a concurrent update it "
            "did not see and that ranks below it, it replays that key's old value over the "
            "update. The interleavings counted under X17 lost such an update inside the lag "
            "window; under the spec profile (rule 8) none does."
        )
    out = config.out.resolve()
    examples = [
        Counterexample(
            Path(path).resolve().relative_to(out).as_posix(),
            Path(path).stem,
            replay_command(path, config.client),
        )
        for path in summary["counterexample_files"]
    ]
    violations = summary["violations"]
    page = Page(
        campaign_of(config).title,
        summary["failing_cases"] == 0,
        headline,
        [
            Property(name, f"{TITLES[name]}: {text}", violations.get(name, 0))
            for name, text in names.items()
        ],
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
                "Conflict width (most messages a resolution merged at once)",
                summary["conflict_width"],
                "messages",
                "interleavings",
            ),
            chart(
                "Merge depth (resolutions of resolutions)",
                summary["merge_depth"],
                "depth",
                "interleavings",
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
    given = behaviours_of(config)
    summary: dict[str, Any] = {
        "campaign_seed": config.seed,
        "interleavings": config.interleavings,
        "per_scenario": config.per_scenario,
        "mutant": config.mutant,
        "master": master,
        "behaviours": list(dict.fromkeys(given)) if given else None,
        "mixes": None if given else [mix.name for mix in MIXES.values() if mix.settles],
        "seconds": round(seconds, 3),
        "interleavings_per_second": round(config.interleavings / seconds, 1),
    }
    if config.client is not None:
        summary["client_command"] = config.client
        summary["client"] = client_hello(config)
    names = list(properties_of(config))
    summary.update(summarize(cases, names))
    summary["counterexample_files"] = write_counterexamples(cases, config, names)
    (config.out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    write_report(summary, config)
    return summary
