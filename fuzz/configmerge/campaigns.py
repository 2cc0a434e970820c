"""The config-merge design's campaigns, as the shared job and commands find them.

- `config`: clients racing to update one config, P1-P6 checked on every interleaving (the
  default campaign); with `--client`, the same interleavings with their operations checked
  through a foreign client's adapter (C1, C2);
- `parser`: hostile inputs to the parsers (H1-H3, and C1, C2 through a client);
- `swarm`: client-layer clients, each of its own behaviour (`--swarm`), racing through a swarm
  that deletes only what pushes name, settled in lockstep rounds (P1, P5, P7).

Registered in the `swarmconf.campaigns` entry-point group (see `swarmconf.fuzz.campaigns`).
"""

from __future__ import annotations

import dataclasses
import itertools
import types
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any

from swarmconf.conformance.adapter import Adapter, builtin_adapter
from swarmconf.conformance.configmerge.adapter import ApiAdapter
from swarmconf.spec import configmerge as spec

from ..campaigns import Campaign, Cases
from ..hostile import hostile_schema
from ..report import hostile_closing, interleavings_closing, write_hostile_outputs
from . import cases
from .campaign import Task, estimated_cost, plan, run_task
from .case import SWARM_SYSTEM, SYSTEM
from .differential import PROPERTIES as CLIENT_PROPERTIES
from .differential import ClientTask, client_schema, plan_client, run_client_tasks
from .hostile import PROPERTIES as HOSTILE_PROPERTIES
from .hostile import HostileTask, plan_hostile, run_hostile_task
from .impl import late, mutated
from .mutants import MUTANTS
from .report import PROPERTIES, client_closing, write_outputs
from .schema import row_schema
from .swarm import BEHAVIOURS, SWARM_PROPERTIES

if TYPE_CHECKING:
    from ..config import Config
    from ..hostile import HostileRow


CHECKED_THROUGH_CLIENT = {
    "R1": CLIENT_PROPERTIES["R1"],
    **{name: text for name, text in PROPERTIES.items() if name in ("P1", "P4", "P5")},
    **CLIENT_PROPERTIES,
}
"""Through a client, the reference runs the interleavings: the spec's own P2, P3 and P6 are left
to campaigns without a client. R1 (the reference contradicts the spec: a swarmconf bug) comes
first."""


def mutants() -> list[str]:
    return sorted(MUTANTS)


def mutant_adapter(name: str) -> AbstractContextManager[Adapter]:
    """The spec's adapter with mutant `name`'s merge, and its delete rule, in place of the
    spec's."""
    module = types.ModuleType(spec.__name__)
    module.__dict__.update(vars(spec))
    module.merge = mutated(name, spec.merge)  # type: ignore[attr-defined]
    deletes = mutated(name, late(spec, "obsolete_after_merge"))
    module.obsolete_after_merge = deletes  # type: ignore[attr-defined]
    adapter = builtin_adapter("spec")
    adapter.name = f"swarmconf.spec+{name}"
    adapter.handlers.update(ApiAdapter(module, adapter.name).handlers)
    return nullcontext(adapter)


def planned(config: Config) -> list[Task]:
    return plan(
        config.seed,
        config.interleavings,
        config.per_scenario,
        config.mutant,
        config.differential,
        config.swarm,
        config.client,
        config.client_timeout,
    )


def planned_through_client(config: Config) -> list[ClientTask]:
    assert config.client is not None
    return plan_client(
        config.seed,
        config.interleavings,
        config.per_scenario,
        config.client,
        config.client_timeout,
        config.lenient_reasons,
    )


def run_tasks(tasks: Iterable[Task | ClientTask]) -> Iterator[tuple[Any, ...]]:
    """The rows of a partition's tasks: scenario tasks with `run_task`, tasks checked through a
    client (a partition holds one kind) with `run_client_tasks`."""
    queue = iter(tasks)
    first = next(queue, None)
    if isinstance(first, ClientTask):
        yield from run_client_tasks(itertools.chain([first], queue))  # type: ignore[arg-type]
    elif first is not None:
        for task in itertools.chain([first], queue):
            yield from run_task(task)  # type: ignore[arg-type]


def planned_inputs(config: Config) -> list[HostileTask]:
    return plan_hostile(
        config.seed,
        config.interleavings,
        config.client,
        config.client_timeout,
        config.lenient_reasons,
    )


def run_input_tasks(tasks: Iterable[HostileTask]) -> Iterator[HostileRow]:
    return map(run_hostile_task, tasks)


INTERLEAVINGS = Campaign(
    system=SYSTEM,
    title="swarmconf fuzz campaign",
    properties=PROPERTIES,
    plan=planned,
    cost=estimated_cost,
    run=run_tasks,
    schema=row_schema,
    write=write_outputs,
    closing=interleavings_closing,
    mutants=mutants,
    cases=Cases(load=cases.load, parse=cases.parse, replay=cases.replay, shrink=cases.shrink),
    mutant_adapter=mutant_adapter,
    default=True,
)
THROUGH_CLIENT = Campaign(
    system=SYSTEM,
    title="swarmconf fuzz campaign",
    properties=CHECKED_THROUGH_CLIENT,
    plan=planned_through_client,
    run=run_tasks,
    schema=client_schema,
    write=write_outputs,
    closing=client_closing,
    mutants=mutants,
    clients="only",
    cases=Cases(
        load=cases.load,
        parse=cases.parse,
        replay=cases.replay_through_client,
        shrink=cases.shrink_through_client,
    ),
)
HOSTILE = Campaign(
    system="parser",
    title="swarmconf hostile-input campaign",
    properties=HOSTILE_PROPERTIES,
    plan=planned_inputs,
    run=run_input_tasks,
    schema=hostile_schema,
    write=write_hostile_outputs,
    closing=hostile_closing,
    mutants=mutants,
    clients="optional",
)
SWARM = dataclasses.replace(
    INTERLEAVINGS,
    system=SWARM_SYSTEM,
    title="swarmconf swarm campaign",
    properties=SWARM_PROPERTIES,
    mutants=list,
    clients="optional",
    mutant_adapter=None,
    default=False,
    behaviours=BEHAVIOURS,
)
"""The interleavings campaign's plan, rows, outputs and cases, on swarms of client-layer
clients (`--swarm`): behaviours where it has mutants, with or without an adapter."""
CAMPAIGNS = (INTERLEAVINGS, THROUGH_CLIENT, HOSTILE, SWARM)
