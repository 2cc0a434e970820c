"""`--system kvgossip`: the same campaign machinery driving the K/V Gossip simulation.

Each case is `swarmconf.fuzz.kvgossip.run_case(campaign_seed, index)`, a pure function whose
`violations` list is empty when every property holds; tasks are runs of consecutive indices.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from pyspark.sql import DataFrame
    from pyspark.sql.types import StructType

    from swarmconf.fuzz.config import Config

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
    seconds: float


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
        rows.append(
            KvRow(
                campaign_seed=task.campaign_seed,
                case=index,
                nodes=int(result.get("nodes", 0)),
                attacker=bool(result.get("attacker", False)),
                churn=bool(result.get("churn", False)),
                ops=int(result.get("ops", 0)),
                sessions=int(result.get("sessions", 0)),
                events=int(result.get("events", 0)),
                keys=int(result.get("keys", 0)),
                violations="\n".join(str(item) for item in result["violations"]),
                seconds=time.perf_counter() - started,
            )
        )
    return rows


def kv_schema() -> StructType:
    from pyspark.sql.types import (
        BooleanType,
        DoubleType,
        LongType,
        StringType,
        StructField,
        StructType,
    )

    kinds = {
        "attacker": BooleanType(),
        "churn": BooleanType(),
        "violations": StringType(),
        "seconds": DoubleType(),
    }
    return StructType(
        [StructField(name, kinds.get(name, LongType()), False) for name in KvRow._fields]
    )


def write_kv_outputs(
    cases: DataFrame, config: Config, seconds: float, master: str
) -> dict[str, Any]:
    """summary.json, the failing cases (each with its replay call) and a small report."""
    from pyspark.sql import functions as f

    from swarmconf.fuzz.report import bar_chart, counts

    failing = cases.filter(f.col("violations") != "").orderBy("case").limit(20).collect()
    summary: dict[str, Any] = {
        "system": "kvgossip",
        "campaign_seed": config.seed,
        "interleavings": config.interleavings,
        "mutant": config.mutant,
        "master": master,
        "seconds": round(seconds, 3),
        "interleavings_per_second": round(config.interleavings / seconds, 1),
        "cases": cases.count(),
        "failing_cases": cases.filter(f.col("violations") != "").count(),
        "nodes": counts(cases, "nodes"),
        "sessions": counts(cases, "sessions"),
        "counterexamples": [
            {
                "case": row["case"],
                "violations": row["violations"].splitlines(),
                "replay": "python -c 'from swarmconf.fuzz.kvgossip import run_case; "
                f"print(run_case({row['campaign_seed']}, {row['case']}, {config.mutant!r}))'",
            }
            for row in failing
        ],
    }
    (config.out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    charts = "".join(
        f'<img src="data:image/png;base64,{bar_chart(title, summary[key], key, "cases")}">'
        for title, key in (("Nodes per case", "nodes"), ("Sync sessions per case", "sessions"))
    )
    (config.out / "report.html").write_text(
        "<!doctype html><html><head><meta charset='utf-8'><title>kvgossip fuzz</title></head>"
        f"<body><h1>K/V Gossip campaign</h1><p>{summary['cases']} cases, "
        f"{summary['failing_cases']} failing, {summary['interleavings_per_second']}/s.</p>"
        f"{charts}</body></html>\n"
    )
    return summary
