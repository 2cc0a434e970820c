"""Replaying and shrinking a K/V Gossip counterexample: the `Cases` hooks of the simulation
campaign (see `campaigns`). A case comes from its file or from `SEED:INDEX`."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from ..campaigns import CaseOptions, Replayed, Shrunk
from ..report import replay_command
from .case import KvCase, case_from_json, parse_case_id, run, scenario_of, write_case
from .network import Faults
from .properties import properties_of
from .scenario import Scenario


def load(obj: dict[str, Any], options: CaseOptions) -> KvCase:
    case = case_from_json(obj)
    case = replace(case, mutant=options.mutant) if options.mutant else case
    scenario_of(case)  # a cut that does not fit its scenario is a ValueError now, not later
    return case


def parse(text: str, options: CaseOptions) -> KvCase:
    return parse_case_id(text, options.mutant)


def described(case: KvCase, scenario: Scenario) -> str:
    attacker = ", an attacker" if scenario.attacker else ""
    parts = [
        *(["a partition"] if scenario.partition else []),
        *(["churn"] if scenario.churn else []),
    ]
    extra = f", {' and '.join(parts)}" if parts else ""
    return (
        f"{case.name}: {len(scenario.identities) - bool(scenario.attacker)} honest nodes"
        f"{attacker}, {len(scenario.ops)} operations{extra}"
    )


def replay(case: KvCase, options: CaseOptions) -> Replayed:
    violations = [str(item) for item in run(case)["violations"]]
    lines = [described(case, scenario_of(case))]
    return Replayed(case.name, lines, violations, properties_of(violations))


def shrink(case: KvCase, options: CaseOptions) -> Shrunk:
    from .shrink import shrink as smaller

    small = smaller(case)
    output = options.output or Path(f"{case.name}-shrunk.json")
    write_case(small, run(small), output)
    before, after = scenario_of(case), scenario_of(small)
    gone = [
        part
        for part, had, has in (
            ("partition", before.partition, after.partition),
            ("churn", before.churn, after.churn),
            ("datagram faults", before.faults != Faults(), after.faults != Faults()),
        )
        if had and not has
    ]
    without = f", without its {' and '.join(gone)}" if gone else ""
    line = f"{case.name}: {len(before.ops)} -> {len(after.ops)} operations{without}; wrote {output}"
    return Shrunk([line], replay_command(str(output), None))
