"""The config-merge bound a check searches, and its counterexamples as campaign cases."""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..explore import Found
from .case import case_to_json, replay
from .model import SOMETIMES, Model, check_scenario
from .report import PROPERTIES
from .scenario import with_behaviours
from .swarm import SWARM_PROPERTIES
from .swarm_model import DECLARED, SwarmModel
from .swarm_model import SOMETIMES as SWARM_SOMETIMES
from .swarm_model import case_of as swarm_case_of
from .trace import case_of

PROPERTY_NAMES = ("P1", "P2", "P3", "P4", "P5", "P6")

_MODELS: dict[Bound, Model | SwarmModel] = {}


@dataclass(frozen=True)
class Bound:
    """What a check covers: clients, edits per client, the lag, the scripts and the merger."""

    clients: int
    edits: int
    lag: int = 1
    shared: bool = False
    """Every client runs the same script (the symmetry reduction then applies)."""
    future: bool = True
    """The last client writes an unknown top-level key (D9); never with `shared`."""
    mutant: str | None = None
    symmetry: bool = False
    """Search one state per class of states equal up to renaming clients (shared scripts)."""
    scripts: str = "plain"
    """The edit-script family (`model.SCRIPTS`)."""
    blob: bool = False
    """The swarm starts with an unparseable message (`model.UNPARSEABLE_BLOB`)."""
    swarm: tuple[str, ...] | None = None
    """Client-layer clients of these behaviours, repeated over the clients (`swarm_model`);
    None: the interleavings campaign's clients (`model`)."""
    client: str | None = None
    """The adapter command of the swarm's `client` clients."""

    def model(self) -> Model | SwarmModel:
        """This bound's model, one per process (its engine's caches shared by every use)."""
        found = _MODELS.get(self)
        if found is None:
            scenario = check_scenario(
                self.clients,
                self.edits,
                self.lag,
                self.shared,
                self.future and not self.swarm,
                self.scripts,
                self.blob,
            )
            if self.swarm:
                found = SwarmModel(with_behaviours(scenario, self.swarm), command=self.client)
            else:
                found = Model(scenario, self.mutant, symmetric=self.symmetry)
            _MODELS[self] = found
        return found

    @property
    def properties(self) -> dict[str, str]:
        """What the check judges: the campaign's P1-P6, or a swarm's P1, P5 and P7."""
        return SWARM_PROPERTIES if self.swarm else PROPERTIES

    @property
    def size(self) -> str:
        """The bound's size as the verdict names it: clients by edits, with the sign."""
        text = f"{plural(self.clients, 'client')} \N{MULTIPLICATION SIGN} "
        text += plural(self.edits, "edit")
        return text + (" (identical scripts)" if self.shared else "")

    def describe(self) -> str:
        """The whole bound in words, as the report's facts show it."""
        parts = [plural(self.clients, "client"), plural(self.edits, "edit"), f"lag {self.lag}"]
        parts[0:2] = [f"{parts[0]} \N{MULTIPLICATION SIGN} {parts[1]}"]
        parts.append(f"{'identical ' if self.shared else ''}{self.scripts} scripts")
        if self.future and not self.shared and not self.swarm:
            parts.append("the last client writes an unknown key")
        if self.swarm:
            parts.append(f"client-layer clients {', '.join(self.swarm)} (lockstep settle)")
        if self.blob:
            parts.append("an unparseable blob in the swarm")
        if self.symmetry:
            parts.append("symmetry")
        if self.mutant:
            parts.append(f"mutant {self.mutant}")
        return ", ".join(parts)

    @property
    def sometimes(self) -> dict[str, str]:
        if not self.swarm:
            return SOMETIMES
        # Only a deployed client beside an unparseable blob can meet X12's deletion
        reachable = self.blob and "deployed" in self.swarm
        return {
            name: text for name, text in SWARM_SOMETIMES.items() if reachable or name != DECLARED
        }

    def command(self) -> str:
        options = [f"--clients {self.clients}", f"--edits {self.edits}", f"--lag {self.lag}"]
        if self.scripts != "plain":
            options.append(f"--scripts {self.scripts}")
        if self.blob:
            options.append("--blob")
        if self.shared:
            options.append("--shared-scripts")
            if not self.symmetry:
                options.append("--no-symmetry")
        if not self.future and not self.shared and not self.swarm:
            options.append("--no-future")
        if self.swarm:
            options.append(f"--swarm {','.join(self.swarm)}")
        if self.client:
            options.append(f"--client {shlex.quote(self.client)}")
        if self.mutant:
            options.append(f"--mutant {self.mutant}")
        return "swarmconf check " + " ".join(options)


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def write_counterexample(
    bound: Bound, name: str, found: Found, actions: list[Any], path: Path
) -> dict[str, Any]:
    """The shortest trace to `found` as a campaign case file; what the report lists of it."""
    model = bound.model()
    if isinstance(model, SwarmModel):
        case = swarm_case_of(model, actions, judged=found.action is None)
    else:
        case = case_of(model, actions, judged=found.action is None)
    outcome = replay(case, bound.client)
    obj = case_to_json(case, outcome, path)
    # The case comes from a search, not from seeds: the command that finds it again
    obj["regenerate"] = bound.command()
    obj["check"] = {"property": name, "depth": found.depth, "found": found.detail}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, indent=1) + "\n")
    return {
        "property": name,
        "path": str(path),
        "depth": found.depth,
        "events": len(case.schedule.events),
        "replays": name in outcome.properties,
        "replay": obj["replay"],
        "found": found.detail,
    }
