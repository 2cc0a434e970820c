"""K/V Gossip counterexamples: a campaign's case, what shrinking cut from it, and its file.

A case is named by (campaign seed, case index) and an optional mutant, which regenerate its
scenario exactly (`case_seed`, `scenario.generate`). Shrinking never edits the scenario itself:
it records what it cut (`Cut`: the operations kept, and whether the partition, the churn and
the datagram faults stay), so a shrunk case replays exactly from its file too.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from swarmconf.spec.kvgossip import crypto

from .harness import run_scenario
from .mutants import active
from .network import Faults
from .properties import properties_of
from .scenario import Scenario, generate

SYSTEM = "kvgossip"
"""The `--system` name of the simulation campaign, in its case files."""


@dataclass(frozen=True)
class Cut:
    """What shrinking took out of a generated scenario (the default takes out nothing)."""

    ops: tuple[int, ...] | None = None
    """The positions of the generated operations kept, in order (None: every one)."""
    partition: bool = True
    churn: bool = True
    faults: bool = True
    """Whether datagrams are lost, duplicated and delayed and streams break, as generated."""

    def applied(self, scenario: Scenario) -> Scenario:
        """`scenario` with what this cut takes out taken out."""
        if self.ops is not None and not all(0 <= i < len(scenario.ops) for i in self.ops):
            raise ValueError(f"the scenario has {len(scenario.ops)} operations, not {self.ops}")
        ops = scenario.ops if self.ops is None else [scenario.ops[i] for i in self.ops]
        return replace(
            scenario,
            ops=ops,
            partition=scenario.partition if self.partition else None,
            churn=scenario.churn if self.churn else None,
            faults=scenario.faults if self.faults else Faults(),
        )


@dataclass(frozen=True)
class KvCase:
    campaign_seed: int
    index: int
    mutant: str | None = None
    cut: Cut = field(default_factory=Cut)

    @property
    def name(self) -> str:
        suffix = f"-{self.mutant}" if self.mutant else ""
        return f"kv-case-{self.campaign_seed}-{self.index}{suffix}"

    @property
    def shrunk(self) -> bool:
        return self.cut != Cut()


def case_seed(campaign_seed: int, index: int) -> int:
    """The seed of case `index` of a campaign (a hash, never Python's salted `hash()`)."""
    digest = crypto.sha256(f"kvgossip/{campaign_seed}/{index}".encode())
    return int.from_bytes(digest[:8], "big")


def scenario_of(case: KvCase) -> Scenario:
    return case.cut.applied(generate(case_seed(case.campaign_seed, case.index)))


def run(case: KvCase) -> dict[str, Any]:
    """The case's scenario run under its mutant: the result of `harness.run_scenario`."""
    scenario = scenario_of(case)
    with active(case.mutant):
        return run_scenario(scenario)


def case_to_json(case: KvCase, result: dict[str, Any], path: Path) -> dict[str, Any]:
    cut = case.cut
    mutant = f" --mutant {case.mutant}" if case.mutant else ""
    return {
        "system": SYSTEM,
        "campaign_seed": case.campaign_seed,
        "case": case.index,
        "mutant": case.mutant,
        "shrunk": case.shrunk,
        "properties": properties_of(result["violations"]),
        "violations": result["violations"],
        "replay": f"swarmconf fuzz replay {path}",
        "regenerate": f"swarmconf fuzz replay --system {SYSTEM} "
        f"{case.campaign_seed}:{case.index}{mutant}",
        "nodes": result["nodes"],
        "attacker": result["attacker"],
        "ops": result["ops"],
        "sessions": result["sessions"],
        "cut": {
            "ops": None if cut.ops is None else list(cut.ops),
            "partition": cut.partition,
            "churn": cut.churn,
            "faults": cut.faults,
        },
    }


def write_case(case: KvCase, result: dict[str, Any], path: Path) -> None:
    path.write_text(json.dumps(case_to_json(case, result, path), indent=1) + "\n")


def case_from_json(obj: dict[str, Any]) -> KvCase:
    """The case of a counterexample file's JSON (KeyError or ValueError if it is not one)."""
    cut = obj.get("cut") or {}
    ops = cut.get("ops")
    mutant = obj.get("mutant")
    if mutant is not None and not isinstance(mutant, str):
        raise ValueError(f"mutant must be a name, not {mutant!r}")
    return KvCase(
        int(obj["campaign_seed"]),
        int(obj["case"]),
        mutant,
        Cut(
            None if ops is None else tuple(int(i) for i in ops),
            bool(cut.get("partition", True)),
            bool(cut.get("churn", True)),
            bool(cut.get("faults", True)),
        ),
    )


def parse_case_id(text: str, mutant: str | None = None) -> KvCase:
    """A case from "SEED:INDEX"."""
    parts = text.split(":")
    if len(parts) != 2 or not all(part.isdigit() for part in parts):
        raise ValueError(f"a K/V Gossip case is SEED:INDEX, not {text!r}")
    return KvCase(int(parts[0]), int(parts[1]), mutant)
