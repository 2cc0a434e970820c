"""The config-merge bound a check searches, and its counterexamples as campaign cases."""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..explore import Found
from .behaviours import Setting
from .case import case_to_json, replay
from .model import DECLARED, LOSS, SOMETIMES, Model, case_of, check_scenario
from .report import PROPERTIES, judged
from .scenario import with_behaviours

DEFAULT_BEHAVIOURS = ("spec", "reference")
"""The clients a check searches unless `--behaviours` names others: a spec client beside a
reference client, which its twin checks step by step (P3)."""

_MODELS: dict[Bound, Model] = {}


@dataclass(frozen=True)
class Bound:
    """What a check covers: clients, edits per client, the lag, the scripts and the merger."""

    clients: int
    edits: int
    lag: int = 1
    shared: bool = False
    """Every client runs the same script."""
    future: bool = True
    """The last client writes an unknown top-level key (D9); never with `shared`."""
    mutant: str | None = None
    scripts: str = "plain"
    """The edit-script family (`model.SCRIPTS`)."""
    blob: bool = False
    """The swarm starts with an unparseable message (`model.UNPARSEABLE_BLOB`)."""
    swarm: tuple[str, ...] | None = None
    """The clients' behaviours, repeated over the clients (None: `DEFAULT_BEHAVIOURS`, or
    `spec` under a mutant)."""
    client: str | None = None
    """The adapter command of the `client` clients."""

    @property
    def behaviours(self) -> tuple[str, ...]:
        if self.swarm:
            return self.swarm
        return ("spec",) if self.mutant else DEFAULT_BEHAVIOURS

    def model(self) -> Model:
        """This bound's model, one per process (its world's memos shared by every use)."""
        found = _MODELS.get(self)
        if found is None:
            scenario = check_scenario(
                self.clients,
                self.edits,
                self.lag,
                self.shared,
                self.future,
                self.scripts,
                self.blob,
            )
            setting = Setting(self.client, mutant=self.mutant)
            found = Model(with_behaviours(scenario, self.behaviours), setting)
            _MODELS[self] = found
        return found

    @property
    def properties(self) -> dict[str, str]:
        """What the check judges: the campaign's properties, C1 and C2 only of a client
        played through an adapter."""
        return judged(PROPERTIES, "client" in self.behaviours)

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
        if self.future and not self.shared:
            parts.append("the last client writes an unknown key")
        parts.append(f"clients {', '.join(self.behaviours)}")
        if self.blob:
            parts.append("an unparseable blob in the swarm")
        if self.mutant:
            parts.append(f"mutant {self.mutant}")
        return ", ".join(parts)

    @property
    def sometimes(self) -> dict[str, str]:
        """What the search must reach: a declared quirk only where it surely fires (a deployed
        client beside an unparseable blob, X12); a loss beyond the window only at lag 1, where
        a merge drops what it does not carry."""
        reachable = self.blob and "deployed" in self.behaviours
        return {
            name: text
            for name, text in SOMETIMES.items()
            if (reachable or name != DECLARED) and (self.lag == 1 or name != LOSS)
        }

    def command(self) -> str:
        options = [f"--clients {self.clients}", f"--edits {self.edits}", f"--lag {self.lag}"]
        if self.scripts != "plain":
            options.append(f"--scripts {self.scripts}")
        if self.blob:
            options.append("--blob")
        if self.shared:
            options.append("--shared-scripts")
        if not self.future and not self.shared:
            options.append("--no-future")
        if self.swarm:
            options.append(f"--behaviours {','.join(self.swarm)}")
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
    case = case_of(bound.model(), actions, judged=found.action is None)
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
