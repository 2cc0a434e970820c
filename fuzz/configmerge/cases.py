"""Replaying and shrinking a config-merge counterexample.

These are the `Cases` hooks of the config-merge campaign (see `campaigns`): a case comes from
its file or from `SEED:SCENARIO:SCHEDULE`, replays on a fresh world (its `client` clients
through the adapter `--client` names), and shrinks to a smaller case that fails the same way.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from ..campaigns import CaseOptions, Replayed, Shrunk
from ..report import replay_command
from .behaviours import Setting
from .case import Case, case_from_json, parse_case_id, write_case
from .case import replay as replay_in_process


def load(obj: dict[str, Any], options: CaseOptions) -> Case:
    case = case_from_json(obj)
    return replace(case, mutant=options.mutant) if options.mutant else case


def parse(text: str, options: CaseOptions) -> Case:
    return parse_case_id(text, options.mutant, options.swarm)


def described(case: Case) -> str:
    scenario = case.scenario
    return (
        f"{case.name}: {len(scenario.clients)} clients ({', '.join(scenario.behaviours)}), "
        f"{scenario.edits_described}, {len(case.schedule.events)} events, lag {scenario.lag}"
    )


def properties_of(violations: list[str]) -> list[str]:
    return sorted({violation.split(" ", 1)[0] for violation in violations})


def replay(case: Case, options: CaseOptions) -> Replayed:
    violations = replay_in_process(case, options.client).violations
    return Replayed(case.name, [described(case)], violations, properties_of(violations))


def sizes(case: Case, small: Case) -> str:
    return (
        f"{case.name}: {len(case.scenario.clients)} -> {len(small.scenario.clients)} clients, "
        f"{case.scenario.edit_count} -> {small.scenario.edit_count} edits "
        f"({case.scenario.change_count} -> {small.scenario.change_count} changes), "
        f"{len(case.schedule.events)} -> {len(small.schedule.events)} events"
    )


def shrink(case: Case, options: CaseOptions) -> Shrunk:
    from .shrink import shrink as shrunk_trace

    client = options.client
    scenario, schedule = shrunk_trace((case.scenario, case.schedule), case.mutant, client=client)
    small = replace(case, scenario=scenario, schedule=schedule, shrunk=True)
    output = options.output or Path(f"{case.name}-shrunk.json")
    write_case(small, replay_in_process(small, client), output)
    return Shrunk([f"{sizes(case, small)}; wrote {output}"], replay_command(str(output), client))


def vectors(case: Case, options: CaseOptions) -> Shrunk:
    """The case's clients' scripts as a `client_steps` vector file under `options.output`."""
    from .export import export

    folder = options.output or Path("case-vectors")
    path = export(case, folder, Setting(options.client, options.client_timeout))
    return Shrunk(
        [f"{case.name}: wrote {path}"],
        f"swarmconf conformance run --client CMD --vectors {folder}",
    )
