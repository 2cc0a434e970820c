"""What every campaign's outputs share: counts by value, the client's line, replay commands,
the closing lines of a run, and the hostile-input campaigns' summary and page (the page is
drawn by `report_page`, the title and properties are the campaign record's)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from .campaigns import Closing, campaign_of
from .hostile import CAUSE_SHRINKERS, CauseShrinker
from .report_page import Counterexample, Page, Property, chart, duration, number, render
from .report_page import bar_png as bar_chart

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

    from .config import Config

__all__ = [
    "bar_chart",
    "cases_closing",
    "cause_label",
    "client_hello",
    "counts",
    "failure_groups",
    "hostile_closing",
    "lenient_facts",
    "quirk_totals",
    "reason_pair_totals",
    "replay_command",
    "write_hostile_outputs",
]


def counts(cases: DataFrame, column: str) -> dict[int, int]:
    rows = cases.groupBy(column).count().collect()
    return {int(row[column]): int(row["count"]) for row in sorted(rows, key=lambda r: r[column])}


def quirk_totals(counts: Iterable[str]) -> dict[str, int]:
    """The sum of per-quirk counts (each a JSON object), in the quirks' order (X1, X2, ...,
    X10)."""
    total: Counter[str] = Counter()
    for text in counts:
        total.update(json.loads(text))
    return dict(sorted(total.items(), key=lambda item: (len(item[0]), item[0])))


def reason_pair_totals(counts: Iterable[str]) -> dict[str, int]:
    """The sum of per-pair counts of refusals judged leniently (each a JSON object of
    `expected -> client's` to a count), the most frequent pair first."""
    total: Counter[str] = Counter()
    for text in counts:
        total.update(json.loads(text))
    return dict(sorted(total.items(), key=lambda item: (-item[1], item[0])))


def failure_groups(texts: Iterable[str]) -> list[dict[str, Any]]:
    """Client failures no quirk explains (C2) grouped by cause across rows (each a JSON object
    of each cause to its counts and first `example`, as `Tally.cause` writes it): each group's
    cause, counts summed and first example, the largest `count` first."""
    groups: dict[str, dict[str, Any]] = {}
    for text in texts:
        for cause, found in json.loads(text).items():
            group = groups.setdefault(cause, {"cause": cause, "example": found["example"]})
            for name, value in found.items():
                if name != "example":
                    group[name] = group.get(name, 0) + value
    return sorted(groups.values(), key=lambda group: (-group["count"], group["cause"]))


def shrunk_groups(
    groups: list[dict[str, Any]], shrinker: CauseShrinker | None, config: Config
) -> list[dict[str, Any]]:
    """Each C2 group with its first input shrunk through the campaign's client (`shrunk`: the
    smallest input found still failing with the group's cause, and its replay line), when the
    campaign has a shrinker."""
    if shrinker is None or config.client is None:
        return groups
    return [
        {
            **group,
            "shrunk": shrinker(
                group["example"],
                group["cause"],
                config.client,
                config.client_timeout,
                config.lenient_reasons,
            ),
        }
        for group in groups
    ]


def cause_label(group: dict[str, Any], unit: str) -> str:
    """A C2 group's line in the report: its count first, its cause, and how far its input
    shrank."""
    label = f"C2, {number(group['count'])} {unit}: {group['cause']}"
    shrunk = group.get("shrunk")
    return label if shrunk is None else f"{label}; shrunk to {shrunk['shrunk_to']}"


def lenient_facts(pairs: dict[str, int]) -> list[tuple[str, str]]:
    """The report's lines for refusals judged leniently: their total, then each pair."""
    if not pairs:
        return []
    total = ("refusals with another reason (--lenient-reasons)", number(sum(pairs.values())))
    return [total, *((f"reason {pair}", number(n)) for pair, n in pairs.items())]


def client_line(hello: dict[str, Any] | None) -> str:
    if not hello:
        return ""
    name = hello.get("name", "unnamed client")
    version = hello.get("version")
    language = hello.get("language")
    return f"{name}{f' {version}' if version else ''}{f' ({language})' if language else ''}"


def replay_command(path: str, client: str | None) -> str:
    return f"swarmconf fuzz replay {path}" + (f" --client {json.dumps(client)}" if client else "")


def client_hello(config: Config) -> dict[str, Any]:
    from .client import start

    assert config.client is not None
    client = start(config.client, config.client_timeout)
    client.close()
    return client.hello


# Hostile-input campaigns ------------------------------------------------------------------


def accepted(outcome: str) -> bool:
    """Whether an outcome key ("valid", or `target:valid` in K/V Gossip's tally) is not a
    refusal; a session that ended cleanly counts as accepted."""
    return outcome.rsplit(":", 1)[-1] in ("valid", "clean")


def write_hostile_outputs(
    cases: DataFrame, config: Config, seconds: float, master: str
) -> dict[str, Any]:
    """summary.json (the outcome tally, violations, first failing inputs) and report.html."""
    from collections import Counter

    campaign = campaign_of(config)
    rows = cases.collect()
    outcomes: Counter[str] = Counter()
    violations: Counter[str] = Counter()
    examples: list[dict[str, Any]] = []
    for row in rows:
        outcomes.update(json.loads(row["outcomes"]))
        violations.update(json.loads(row["violations"]))
        examples += json.loads(row["examples"])
    names = {
        name: text
        for name, text in campaign.properties.items()
        if config.client is not None or not name.startswith("C")
    }
    inputs = sum(row["inputs"] for row in rows)
    summary: dict[str, Any] = {
        "system": campaign.system,
        "campaign_seed": config.seed,
        "master": master,
        "client_command": config.client,
        "client": client_hello(config) if config.client else None,
        "inputs": inputs,
        "distinct_inputs": sum(row["distinct"] for row in rows),
        "seconds": round(seconds, 3),
        "inputs_per_second": round(inputs / seconds, 1),
        "slowest_input_seconds": round(max((row["slowest"] for row in rows), default=0.0), 4),
        "client_requests": sum(row["client_requests"] for row in rows),
        "client_skipped": sum(row["client_skipped"] for row in rows),
        "client_quirks": sum(row["client_quirks"] for row in rows),
        "client_quirks_by_quirk": quirk_totals(row["client_quirk_counts"] for row in rows),
        "client_reasons_lenient": reason_pair_totals(row["client_reason_pairs"] for row in rows),
        "violations": {name: violations.get(name, 0) for name in names},
        "failing_inputs": sum(violations.values()),
        "outcomes": dict(outcomes.most_common()),
        "examples": examples[:20],
        "client_failures_by_cause": shrunk_groups(
            failure_groups(row["client_failure_causes"] for row in rows),
            CAUSE_SHRINKERS.get(campaign.system),
            config,
        ),
    }
    (config.out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    headline = [
        f"{number(inputs)} inputs ({number(summary['distinct_inputs'])} distinct) in "
        f"{duration(seconds)} ({number(summary['inputs_per_second'])} per second), "
        f"{number(summary['failing_inputs'])} failing.",
        f"Slowest single input: {duration(summary['slowest_input_seconds'])}.",
    ]
    if config.client:
        headline.append(f"Client: {client_line(summary['client'])}, run as {config.client}.")
    top = dict(outcomes.most_common(24))
    page = Page(
        campaign.title,
        summary["failing_inputs"] == 0,
        headline,
        [Property(name, text, violations.get(name, 0)) for name, text in names.items()],
        [
            ("seed", str(config.seed)),
            ("Spark master", master),
            ("parsed as valid", number(sum(n for k, n in outcomes.items() if accepted(k)))),
            ("refused", number(sum(n for k, n in outcomes.items() if not accepted(k)))),
        ]
        + [(f"refused with {k}", number(n)) for k, n in outcomes.most_common() if not accepted(k)]
        + [(f"acceptable as {k}", number(n)) for k, n in summary["client_quirks_by_quirk"].items()]
        + lenient_facts(summary["client_reasons_lenient"]),
        [
            *(
                Counterexample(
                    "summary.json",
                    cause_label(group, "inputs"),
                    group.get("shrunk", group["example"])["replay"],
                )
                for group in summary["client_failures_by_cause"]
            ),
            *(
                Counterexample("summary.json", f"{e['property']}: {e['detail']}", json.dumps(e))
                for e in examples[:20]
            ),
        ],
        [chart("Outcomes (the 24 most common)", top, "outcome", "distinct inputs")],
    )
    (config.out / "report.html").write_text(render(page))
    return summary


def verdict(what: str, failing: int, violations: dict[str, int]) -> str:
    """`fuzz: 20,000 interleavings in 52 s (3,846/s), and no property failed in any (P1, P2
    judged).` or `fuzz: 3 of 20,000 interleavings in 52 s (...) failed: P1 in 1, P4 in 2.`;
    `what` is the run's count, unit and timing."""
    if failing:
        broken = ", ".join(
            f"{name} in {number(count)}" for name, count in violations.items() if count
        )
        return f"fuzz: {number(failing)} of {what} failed: {broken}."
    judged = f" ({', '.join(violations)} judged)" if violations else ""
    return f"fuzz: {what}, and no property failed in any{judged}."


def timing(summary: dict[str, Any], rate: str) -> str:
    return f"in {duration(summary['seconds'])} ({number(summary[rate])}/s)"


def cases_closing(unit: str) -> Callable[[dict[str, Any]], Closing]:
    """The closing sentence of a campaign of cases called `unit` (interleavings, runs): how
    many, how fast, which properties failed in how many, and what declared quirks explained."""

    def closing(summary: dict[str, Any]) -> Closing:
        failing = summary["failing_cases"]
        what = f"{number(summary['cases'])} {unit} {timing(summary, 'interleavings_per_second')}"
        line = verdict(what, failing, summary.get("violations", {}))
        acceptable = summary.get("acceptable") or {}
        if acceptable:
            quirks = ", ".join(f"{quirk} {number(count)}" for quirk, count in acceptable.items())
            line += f" Findings a declared quirk explains (acceptable): {quirks}."
        failure = f"{number(failing)} failing {unit} (see the report)" if failing else None
        return Closing([line], failure)

    return closing


def hostile_closing(summary: dict[str, Any]) -> Closing:
    """The closing sentence of a campaign of hostile inputs: their count, distinct inputs,
    time, rate and the properties failed."""
    failing = summary["failing_inputs"]
    what = (
        f"{number(summary['inputs'])} inputs ({number(summary['distinct_inputs'])} distinct) "
        f"{timing(summary, 'inputs_per_second')}"
    )
    line = verdict(what, failing, summary["violations"])
    failure = f"{number(failing)} failing inputs (see the report)" if failing else None
    return Closing([line], failure)
