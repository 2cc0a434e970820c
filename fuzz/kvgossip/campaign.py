"""`--system kvgossip`: the same campaign machinery driving the K/V Gossip simulation.

Each case is `swarmconf.fuzz.kvgossip.run_case(campaign_seed, index)`, a pure function whose
`violations` list is empty when every property holds; tasks are runs of consecutive indices,
and each case becomes one typed `KvRow`.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, NamedTuple

from ..rows import schema_of
from .properties import properties_of

if TYPE_CHECKING:
    from pyspark.sql.types import StructType

CASES_PER_TASK = 100


class KvTask(NamedTuple):
    campaign_seed: int
    first: int
    cases: int
    mutant: str | None


class KvRow(NamedTuple):
    campaign_seed: int
    case: int
    nodes: int
    attacker: bool
    churn: bool
    """One honest node left and joined again, or joined late."""
    ops: int
    sessions: int
    events: int
    keys: int
    violations: str
    """The violations, one per line; empty when the case passed."""
    properties: str
    """Space-separated names of the properties violated (see `properties`)."""
    seconds: float

    @classmethod
    def of(cls, campaign_seed: int, index: int, result: dict[str, Any], seconds: float) -> KvRow:
        """The row of case `index`, from its `run_case` result."""
        violations = [str(item) for item in result["violations"]]
        return cls(
            campaign_seed=campaign_seed,
            case=index,
            nodes=int(result["nodes"]),
            attacker=bool(result["attacker"]),
            churn=bool(result["churn"]),
            ops=int(result["ops"]),
            sessions=int(result["sessions"]),
            events=int(result["events"]),
            keys=int(result["keys"]),
            violations="\n".join(violations),
            properties=" ".join(properties_of(violations)),
            seconds=seconds,
        )


def plan_kv(campaign_seed: int, cases: int, mutant: str | None = None) -> list[KvTask]:
    return [
        KvTask(campaign_seed, first, min(CASES_PER_TASK, cases - first), mutant)
        for first in range(0, cases, CASES_PER_TASK)
    ]


def run_kv_task(task: KvTask) -> list[KvRow]:
    from swarmconf.fuzz.kvgossip import run_case

    rows = []
    for index in range(task.first, task.first + task.cases):
        started = time.perf_counter()
        result = run_case(task.campaign_seed, index, task.mutant)
        rows.append(KvRow.of(task.campaign_seed, index, result, time.perf_counter() - started))
    return rows


def kv_schema() -> StructType:
    return schema_of(KvRow)
