"""The K/V Gossip design's campaigns, as the shared job and commands find them.

- `kvgossip`: simulated runs of the spec on a faulty network (K1-K8), under `--mutant` one of
  the Go implementation's holes (`mutants`);
- `kvgossip-parser`: hostile objects, frames, sessions, Serf payloads and handshakes for the
  spec's and the node's decoders (H1-H5), under `--mutant` a broken decoder.

Registered in the `swarmconf.campaigns` entry-point group (see `swarmconf.fuzz.campaigns`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from swarmconf.conformance.adapter import Adapter, builtin_adapter

from ..campaigns import Campaign, Cases
from ..hostile import HostileRow, hostile_schema
from ..report import cases_closing, hostile_closing, write_hostile_outputs
from . import cases
from .campaign import KvRow, KvTask, kv_schema, plan_kv, run_kv_task
from .case import SYSTEM
from .decoder_mutants import MUTANTS as DECODER_MUTANTS
from .hostile import PROPERTIES as HOSTILE_PROPERTIES
from .hostile import KvHostileTask, plan_kv_hostile, run_kv_hostile_task
from .mutants import MUTANTS, active
from .properties import PROPERTIES
from .report import write_kv_outputs

if TYPE_CHECKING:
    from ..config import Config


@contextmanager
def mutant_adapter(name: str) -> Iterator[Adapter]:
    """The spec's adapter, with mutant `name`'s spec functions swapped in for as long as it
    serves."""
    with active(name):
        adapter = builtin_adapter("spec")
        adapter.name = f"swarmconf.spec+{name}"
        yield adapter


def planned(config: Config) -> list[KvTask]:
    return plan_kv(config.seed, config.interleavings, config.mutant)


def run_tasks(tasks: Iterable[KvTask]) -> Iterator[KvRow]:
    return itertools.chain.from_iterable(map(run_kv_task, tasks))


def planned_inputs(config: Config) -> list[KvHostileTask]:
    return plan_kv_hostile(config.seed, config.interleavings, config.mutant)


def run_input_tasks(tasks: Iterable[KvHostileTask]) -> Iterator[HostileRow]:
    return map(run_kv_hostile_task, tasks)


SIMULATION = Campaign(
    system=SYSTEM,
    title="swarmconf K/V Gossip campaign",
    properties=PROPERTIES,
    plan=planned,
    run=run_tasks,
    schema=kv_schema,
    write=write_kv_outputs,
    closing=cases_closing("simulated runs"),
    unit="simulated runs",
    mutants=lambda: sorted(MUTANTS),
    cases=Cases(load=cases.load, parse=cases.parse, replay=cases.replay, shrink=cases.shrink),
    mutant_adapter=mutant_adapter,
)
HOSTILE = Campaign(
    system=f"{SYSTEM}-parser",
    title="swarmconf K/V Gossip hostile-input campaign",
    properties=HOSTILE_PROPERTIES,
    plan=planned_inputs,
    run=run_input_tasks,
    schema=hostile_schema,
    write=write_hostile_outputs,
    closing=hostile_closing,
    unit="inputs",
    mutants=lambda: sorted(DECODER_MUTANTS),
)
CAMPAIGNS = (SIMULATION, HOSTILE)
