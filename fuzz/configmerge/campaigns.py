"""The config-merge design's campaigns, as the shared job and commands find them.

- `config`: the world's clients (`world`, `interleaving`) racing to update one config through
  a swarm, each scenario of the mix of behaviours its seed draws (`--swarm` names the
  behaviours instead), P1-P7 judged on every interleaving; with `--client`, the clients of the
  `client` behaviour are played through that adapter (C1, C2);
- `parser`: hostile inputs to the parsers (H1-H3, and C1, C2 through a client).

Registered in the `swarmconf.campaigns` entry-point group (see `swarmconf.fuzz.campaigns`).
"""

from __future__ import annotations

import types
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING

from swarmconf.conformance.adapter import Adapter, builtin_adapter
from swarmconf.conformance.configmerge.adapter import ApiAdapter
from swarmconf.spec import configmerge as spec

from ..campaigns import Campaign, Cases
from ..hostile import hostile_schema
from ..report import cases_closing, hostile_closing, write_hostile_outputs
from . import cases
from .behaviours import descriptions
from .campaign import Row, Task, estimated_cost, given_behaviours, plan, run_task
from .case import SYSTEM, SYSTEMS_READ
from .hostile import PROPERTIES as HOSTILE_PROPERTIES
from .hostile import HostileTask, plan_hostile, run_hostile_task
from .mutants import MUTANTS, late, mutated
from .report import PROPERTIES, opening, write_outputs
from .schema import row_schema

if TYPE_CHECKING:
    from ..config import Config
    from ..hostile import HostileRow


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
    # Every operation with the mutant in place, the `client` operation's merges among them
    for op, handler in list(adapter.handlers.items()):
        adapter.handlers[op] = mutated(name, handler)
    return nullcontext(adapter)


def planned(config: Config) -> list[Task]:
    """The campaign's tasks (`campaign.given_behaviours`)."""
    return plan(
        config.seed,
        config.interleavings,
        config.per_scenario,
        config.mutant,
        config.differential,
        given_behaviours(config.swarm, config.client),
        config.client,
        config.client_timeout,
    )


def run_tasks(tasks: Iterable[Task]) -> Iterator[Row]:
    """The rows of a partition's tasks."""
    for task in tasks:
        yield from run_task(task)


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
    closing=cases_closing("interleavings"),
    unit="interleavings",
    opening=opening,
    mutants=mutants,
    clients="optional",
    cases=Cases(
        load=cases.load,
        parse=cases.parse,
        replay=cases.replay,
        shrink=cases.shrink,
        export=cases.vectors,
    ),
    mutant_adapter=mutant_adapter,
    default=True,
    behaviours=descriptions(),
    aliases=SYSTEMS_READ[1:],
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
    unit="inputs",
    mutants=mutants,
    clients="optional",
)
CAMPAIGNS = (INTERLEAVINGS, HOSTILE)
