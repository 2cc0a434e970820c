"""A check's outputs: summary.json and report.html, in the campaign report's style.

The verdict comes first: which properties hold on how many states of which bound, at what
depth, or which fail at what depth; a pass that never reached one of the "sometimes" events
says so, and does not count as a pass.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .explore import Result
from .report_page import Counterexample, Page, Property, chart, duration, number, render

IN_PROCESS = "in process"
"""Where a search ran when it ran without Spark."""


def where(master: str, cores: int) -> str:
    """ "in process, 1 core" or "on local[2], 2 cores"."""
    place = master if master == IN_PROCESS else f"on {master}"
    return f"{place}, {cores} core{'' if cores == 1 else 's'}"


def property_names(properties: Mapping[str, str]) -> str:
    """The properties as a range when they run without a gap (P1-P6), else listed."""
    names = sorted(properties)
    numbers = [int(name[1:]) if name[1:].isdigit() else -1 for name in names]
    single_prefix = len({name[0] for name in names}) == 1
    if single_prefix and len(names) > 1 and numbers == list(range(numbers[0], numbers[-1] + 1)):
        return f"{names[0]}-{names[-1]}"
    return ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else names[0]


def verdict(
    result: Result, properties: Mapping[str, str], bound: str, sometimes: Mapping[str, str]
) -> tuple[bool, str]:
    """(passed, the verdict's sentence)."""
    names = property_names(properties)
    failing = sorted(result.violations.items(), key=lambda item: (item[1].depth, item[0]))
    if failing:
        parts = [f"{name} at depth {found.depth}" for name, found in failing]
        searched = "all" if result.complete else "the first"
        verb = "fails" if len(parts) == 1 else "fail"
        return False, (
            f"{', '.join(parts)} {verb} on {bound} (shortest traces; {searched} "
            f"{number(result.states)} states searched)"
        )
    missing = [name for name in sometimes if name not in result.witnesses]
    if not result.complete:
        return False, (
            f"{names} hold on the first {number(result.states)} states of {bound}, "
            f"depth {result.depth}, but the search stopped before exhausting them"
        )
    sentence = (
        f"{names} hold on all {number(result.states)} states of {bound}, depth {result.depth}"
    )
    if missing:
        return False, f"{sentence}, but the search never reached: {', '.join(missing)}"
    return True, sentence


def summarize(
    result: Result,
    *,
    properties: Mapping[str, str],
    sometimes: Mapping[str, str],
    bound: dict[str, Any],
    bound_text: str,
    bound_description: str,
    reductions: dict[str, Any],
    counterexamples: list[dict[str, Any]],
    master: str,
    cores: int,
) -> dict[str, Any]:
    passed, sentence = verdict(result, properties, bound_text, sometimes)
    rate = result.states / result.seconds if result.seconds else 0.0
    return {
        "passed": passed,
        "verdict": sentence,
        "bound": bound,
        "bound_text": bound_description,
        "verdict_bound": bound_text,
        "master": master,
        "cores": cores,
        "states": result.states,
        "transitions": result.transitions,
        "depth": result.depth,
        "complete": result.complete,
        "seconds": round(result.seconds, 3),
        "states_per_second": round(rate, 1),
        "states_per_second_per_core": round(rate / max(1, cores), 1),
        "violations": {
            name: result.violations[name].count if name in result.violations else 0
            for name in properties
        },
        "sometimes": {
            name: result.witnesses[name].count if name in result.witnesses else 0
            for name in sometimes
        },
        "reductions": {**reductions, "transitions_slept": result.slept},
        "levels": [
            {
                "depth": level.depth,
                "states": level.states,
                "transitions": level.transitions,
                "slept": level.slept,
                "seconds": round(level.seconds, 3),
            }
            for level in result.levels
        ],
        "counterexamples": counterexamples,
    }


def write_outputs(
    summary: dict[str, Any],
    out: Path,
    properties: Mapping[str, str],
    sometimes: Mapping[str, str],
) -> None:
    (out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    (out / "report.html").write_text(render(page(summary, properties, sometimes)))


def page(
    summary: dict[str, Any], properties: Mapping[str, str], sometimes: Mapping[str, str]
) -> Page:
    bound = summary["bound"]
    title = f"check of {summary['verdict_bound']}, lag {bound['lag']}"
    if bound.get("mutant"):
        title += f", mutant {bound['mutant']}"
    ran = where(summary["master"], summary["cores"])
    rate = number(round(summary["states_per_second"]))
    headline = [
        summary["verdict"] + ".",
        f"{number(summary['states'])} states and {number(summary['transitions'])} transitions "
        f"in {duration(summary['seconds'])}, {rate} states a second ({ran}).",
    ]
    reached = "; ".join(
        f"{name} in {number(count)} {'states or transitions' if count != 1 else 'state'}"
        if count
        else f"{name} never"
        for name, count in summary["sometimes"].items()
    )
    notes = [f"Sometimes (the search must reach each, or a pass is vacuous): {reached}."]
    notes.extend(f"{name}: {text}." for name, text in sometimes.items())
    reductions = summary["reductions"]
    facts = [
        ("bound", summary["bound_text"]),
        (
            "depth",
            f"{summary['depth']} "
            + ("(exhausted)" if summary["complete"] else "(stopped before exhausting the bound)"),
        ),
        ("states per second per core", number(round(summary["states_per_second_per_core"]))),
        (
            "sleep sets",
            f"{'on' if reductions['sleep_sets'] else 'off'}, "
            f"{number(reductions['transitions_slept'])} transitions skipped",
        ),
        ("where", ran),
    ]
    counterexamples = [
        Counterexample(
            Path(item["path"]).name,
            f"{item['property']} at depth {item['depth']}: {item['found']}"
            + ("" if item["replays"] else " (the replay does not show it)"),
            item["replay"],
        )
        for item in summary["counterexamples"]
    ]
    levels = {level["depth"]: level["states"] for level in summary["levels"]}
    total = 0
    growth = {}
    for depth, states in levels.items():
        total += states
        growth[depth] = total
    return Page(
        title=title,
        passed=summary["passed"],
        headline=headline,
        properties=[
            Property(name, text, summary["violations"][name]) for name, text in properties.items()
        ],
        facts=facts,
        counterexamples=counterexamples,
        charts=[
            chart("New states per level", levels, "depth", "states"),
            chart("States visited (growth curve)", growth, "depth", "states"),
        ],
        notes=notes,
        facts_title="The search",
        no_counterexample="None: no state or transition violates a property.",
    )
