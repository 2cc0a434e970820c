"""Counterexamples: a failing case as JSON, with the trace that replays it and its command.

A case is named by (campaign seed, scenario index, schedule index) and an optional mutant; its
JSON also holds the explicit trace (scenario and schedule), so a shrunk case, which no longer
matches its seeds, replays exactly too.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .behaviours import BEHAVIOURS, MIXES, Setting
from .interleaving import Outcome, play
from .scenario import (
    Scenario,
    scenario_for,
    scenario_from_json,
    scenario_to_json,
)
from .schedule import Schedule, generate_schedule, schedule_from_json, schedule_to_json
from .world import World

SYSTEM = "config"
"""The `--system` name of the config-merge interleavings campaign, in its case files."""
SYSTEMS_READ = (SYSTEM, "swarm")
"""The systems of the case files this campaign replays: its own, and the campaign of swarms
of behaviours it took over (the same world and schedules)."""


@dataclass(frozen=True)
class Case:
    campaign_seed: int
    scenario_index: int
    schedule_index: int
    mutant: str | None
    scenario: Scenario
    schedule: Schedule
    shrunk: bool = False

    @property
    def name(self) -> str:
        suffix = f"-{self.mutant}" if self.mutant else ""
        return f"case-{self.campaign_seed}-{self.scenario_index}-{self.schedule_index}{suffix}"


def generate_case(
    campaign_seed: int,
    scenario_index: int,
    schedule_index: int,
    mutant: str | None = None,
    behaviours: tuple[str, ...] | None = None,
) -> Case:
    """The case of (seed, scenario, schedule): its clients of `behaviours` (repeated over the
    clients), or `spec` under a mutant, or of the mix the seed draws."""
    if mutant and not behaviours:
        behaviours = ("spec",)
    scenario = scenario_for(campaign_seed, scenario_index, behaviours)
    schedule = generate_schedule(scenario, campaign_seed, scenario_index, schedule_index)
    return Case(campaign_seed, scenario_index, schedule_index, mutant, scenario, schedule)


def outcome_of(
    scenario: Scenario, schedule: Schedule, mutant: str | None, client: str | None = None
) -> Outcome:
    """A trace played on a fresh world (its `client` clients through the adapter `client`)."""
    return play(World(scenario, Setting(client, mutant=mutant)), schedule)


def replay(case: Case, client: str | None = None) -> Outcome:
    """Run the case's trace on a fresh world (its `client` clients through `client`)."""
    return outcome_of(case.scenario, case.schedule, case.mutant, client)


def case_to_json(case: Case, outcome: Outcome, path: Path) -> dict[str, object]:
    mutant = f" --mutant {case.mutant}" if case.mutant else ""
    behaviours = case.scenario.behaviours
    if case.scenario.mix not in MIXES or mutant:
        mutant += f" --behaviours {','.join(dict.fromkeys(behaviours))}"
    return {
        "system": SYSTEM,
        "campaign_seed": case.campaign_seed,
        "scenario": case.scenario_index,
        "schedule": case.schedule_index,
        "mutant": case.mutant,
        "shrunk": case.shrunk,
        "properties": outcome.properties,
        "violations": outcome.violations,
        "replay": f"swarmconf fuzz replay {path}",
        "regenerate": f"swarmconf fuzz replay --case {case.campaign_seed}:{case.scenario_index}:"
        f"{case.schedule_index}{mutant}",
        "mix": case.scenario.mix,
        "clients": len(case.scenario.clients),
        "edits": case.scenario.edit_count,
        "events": len(case.schedule.events),
        "trace": {
            "scenario": scenario_to_json(case.scenario),
            "schedule": schedule_to_json(case.schedule),
        },
    }


def write_case(case: Case, outcome: Outcome, path: Path) -> None:
    path.write_text(json.dumps(case_to_json(case, outcome, path), indent=1) + "\n")


def read_case(path: Path) -> Case:
    return case_from_json(json.loads(path.read_text()))


def case_from_json(obj: dict[str, Any]) -> Case:
    """The case of a counterexample file's JSON (KeyError or ValueError if it is not one)."""
    trace = obj["trace"]
    if any("behaviour" not in client for client in trace["scenario"]["clients"]):
        raise ValueError(
            "a case of the message-layer model, whose clients had no state of their own; "
            "swarmconf no longer runs it: run its seeds again with `swarmconf fuzz replay "
            f"--case {obj['campaign_seed']}:{obj['scenario']}:{obj['schedule']}`"
        )
    scenario = scenario_from_json(trace["scenario"])
    for behaviour in scenario.behaviours:
        if behaviour not in BEHAVIOURS:
            raise ValueError(f"no behaviour {behaviour!r}; known: {', '.join(BEHAVIOURS)}")
    return Case(
        int(obj["campaign_seed"]),
        int(obj["scenario"]),
        int(obj["schedule"]),
        obj.get("mutant"),
        scenario,
        schedule_from_json(trace["schedule"]),
        bool(obj.get("shrunk", False)),
    )


def parse_case_id(
    text: str, mutant: str | None = None, swarm: tuple[str, ...] | None = None
) -> Case:
    """A case from "SEED:SCENARIO:SCHEDULE" (its clients of the `swarm` behaviours, if given)."""
    parts = text.split(":")
    if len(parts) != 3 or not all(part.isdigit() for part in parts):
        raise ValueError(f"a case is SEED:SCENARIO:SCHEDULE, not {text!r}")
    seed, scenario, schedule = (int(part) for part in parts)
    return generate_case(seed, scenario, schedule, mutant, swarm)
