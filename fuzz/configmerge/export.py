"""A counterexample as conformance vectors: each client's steps of the case as one `client`
operation case, its expected answers the spec's client of the behaviour's profile.

The case is played on a fresh world (its `client` clients through the adapter they were played
through); each client's steps (the polls it merged with what they
returned, its edits with the data they left, its pushes, each confirmed at once as the world's
swarm confirms them) become the script of a `client_steps` case that starts from the stored
message the client started from. Where a quirk makes the deployed client answer a script
otherwise, the case carries the quirk's flag and `deployed` (as every vector does). Any client's
adapter runs the file with `swarmconf
conformance run --vectors DIR`: a client that took a step otherwise than the spec fails there,
as its twin's verdict failed the campaign (P3, C1).
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from swarmconf.conformance import btcodec
from swarmconf.conformance.configmerge import vocabulary
from swarmconf.conformance.configmerge.flags import FLAGS
from swarmconf.conformance.configmerge.vocabulary import rule_order
from swarmconf.conformance.vectors import bundled_vectors, schema_file_name

from .behaviours import Setting, behaviour
from .case import Case
from .interleaving import Interleaving
from .world import World

SUITE = "client_steps"
"""The suite whose schema an exported file follows."""


class Recording(Interleaving):
    """An interleaving that writes down each client's steps as the `client` operation takes
    them."""

    def __init__(self, world: World) -> None:
        super().__init__(world)
        self.steps: list[list[dict[bytes, Any]]] = [[] for _ in self.clients]

    def edit(self, client: int) -> None:
        before = self.clients[client]
        super().edit(client)
        after = self.clients[client]
        if after != before:
            data = self.world.objects[after].message.data
            self.steps[client].append({b"do": b"edit", b"data": data})

    def sync(self, client: int, view: tuple[bytes, ...]) -> None:
        if self.online[client]:
            self.steps[client].append({b"do": b"receive", b"msgs": list(view)})
        super().sync(client, view)

    def push(self, client: int) -> bool:
        pushed = super().push(client)
        if pushed:
            self.steps[client] += [{b"do": b"push"}, {b"do": b"confirm"}]
        return pushed


def scripts(case: Case, setting: Setting) -> list[list[dict[bytes, Any]]]:
    """Each client's steps in the case, the lockstep rounds included; `client` clients are
    played through `setting`'s adapter, so that their script is the one the case gave them."""
    run = Recording(World(case.scenario, replace(setting, twins=False)))
    for event in case.schedule.events:
        run.apply(event)
    run.settle(case.schedule.rotation)
    return run.steps


def request_of(
    case: Case, client: int, steps: list[dict[bytes, Any]], setting: Setting
) -> dict[str, Any]:
    """The `client` request of one client's script."""
    scenario = case.scenario
    messages = World(scenario, replace(setting, twins=False)).messages
    request: dict[str, Any] = {
        "op": "client",
        "lag": scenario.lag,
        "profile": behaviour(scenario.behaviours[client]).profile,
        "msg": messages.base.hex(),
        "steps": [btcodec.encode(step).hex() for step in steps],
    }
    if scenario.clients[client].signer and messages.sign_key is not None:
        request["sign_key"] = messages.sign_key.hex()
    if messages.verify_key is not None:
        request["verify_key"] = messages.verify_key.hex()
    return request


def export(case: Case, out: Path, setting: Setting | None = None) -> Path:
    """Write the case's clients' scripts as a vector file (with its schema) under `out`;
    ValueError when the spec refuses one (the case is not one the spec's clients can play).
    `setting` gives the adapter a case's `client` clients were played through."""
    setting = setting or Setting()
    groups: dict[tuple[int, str], list[dict[str, Any]]] = {}
    for client, steps in enumerate(scripts(case, setting)):
        if not steps:
            continue
        request = request_of(case, client, steps, setting)
        answer = vocabulary.answer(request, [])
        if answer.expected is None:
            raise ValueError(f"the spec refused client {client}'s script: {answer.reason}")
        keys = ("msg", "steps", "sign_key", "verify_key")
        inputs = {key: request[key] for key in keys if key in request}
        test: dict[str, Any] = {
            "name": f"{case.name}-client-{client}",
            "comment": f"client {client} ({case.scenario.behaviours[client]}) of "
            f"{case.name}: its {len(steps)} steps in the case, the lockstep rounds included",
            "input": inputs,
            "expected": answer.expected,
            "flags": sorted({"ClientSteps", *answer.flags}),
            "result": "valid",
            "rules": sorted({"D28", "D29", "D30", "D31", *answer.rules}, key=rule_order),
        }
        if answer.deployed is not None:
            test["deployed"] = answer.deployed
        groups.setdefault((request["lag"], request["profile"]), []).append(test)
    used = {flag for tests in groups.values() for test in tests for flag in test["flags"]}
    number = 0
    test_groups = []
    for (lag, profile), tests in sorted(groups.items()):
        for test in tests:
            number += 1
            test["tcId"] = number
        test_groups.append({"type": "client", "lag": lag, "profile": profile, "tests": tests})
    document = {
        "header": {
            "description": f"The clients' steps of the fuzz case {case.name}, exported from its "
            "counterexample file: each client's script, the spec's answers expected.",
            "design": "configmerge",
            "schemaVersion": 2,
            "suite": SUITE,
        },
        "notes": {flag: FLAGS[flag].as_json() for flag in sorted(used)},
        "numberOfTests": number,
        "schema": schema_file_name(SUITE),
        "source": {"name": "swarmconf fuzz vectors", "case": case.name},
        "testGroups": test_groups,
    }
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{SUITE}_test.json"
    path.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n")
    schemas = out / "schemas"
    schemas.mkdir(exist_ok=True)
    schema = bundled_vectors() / "schemas" / schema_file_name(SUITE)
    (schemas / schema_file_name(SUITE)).write_text(schema.read_text())
    return path
