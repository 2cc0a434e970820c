"""Run a check in this process or on Spark, then write its counterexamples and report."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..check_report import IN_PROCESS, summarize, write_outputs
from ..explore import Level, Result, Space, explore
from .check import Bound, write_counterexample

DRIVER_MEMORY = "4g"
"""The driver JVM's heap when this process starts it (spark-submit's --driver-memory else)."""


@dataclass(frozen=True)
class Settings:
    master: str | None
    """A Spark master URL, or None: the search runs in this process."""
    out: Path
    out_uri: str | None = None
    sleep_sets: bool = False
    stop_on_violation: bool = True
    max_depth: int | None = None
    quiet: bool = False


def progress(level: Level) -> None:
    print(
        f"  depth {level.depth}: {level.states:,} new states, {level.transitions:,} "
        f"transitions ({level.slept:,} asleep), {level.seconds:.1f} s",
        flush=True,
    )


def run(bound: Bound, settings: Settings) -> dict[str, Any]:
    """Search the bound, write summary.json, report.html and counterexamples/; the summary."""
    shown = None if settings.quiet else progress
    if settings.master is None:
        space: Space[Any, Any] = bound.model()
        result, search = explore(
            space,
            sleep_sets=settings.sleep_sets,
            stop_on_violation=settings.stop_on_violation,
            max_depth=settings.max_depth,
            progress=shown,
        )
        return report(bound, settings, result, search.trace, IN_PROCESS, 1)
    from .. import check_spark
    from ..config import Config
    from ..job import start_spark
    from ..storage import publish

    if "PYSPARK_GATEWAY_PORT" not in os.environ:
        # This process starts the JVM, whose heap also runs a local master's executor: a
        # level's output of 3 x 2 overflows the default 1 GB
        os.environ.setdefault(
            "PYSPARK_SUBMIT_ARGS", f"--driver-memory {DRIVER_MEMORY} pyspark-shell"
        )
    spark = start_spark(Config(interleavings=1, master=settings.master, out=settings.out))
    try:
        cores = spark.sparkContext.defaultParallelism
        searcher = check_spark.SparkSearch(
            spark, bound.model, 4 * cores, settings.sleep_sets, check_spark.DRIVER_LEVEL_LIMIT
        )
        print(f"check: {bound.command()} on {spark.sparkContext.master}", flush=True)
        result = searcher.run(settings.stop_on_violation, settings.max_depth, shown)
        summary = report(
            bound, settings, result, searcher.trace, str(spark.sparkContext.master), cores
        )
        if settings.out_uri is not None:
            publish(spark, settings.out, settings.out_uri)
        return summary
    finally:
        spark.stop()


def report(
    bound: Bound, settings: Settings, result: Result, trace: Any, master: str, cores: int
) -> dict[str, Any]:
    counterexamples = []
    folder = settings.out / "counterexamples"
    for name, found in sorted(result.violations.items()):
        path = folder / f"{name}{'-' + bound.mutant if bound.mutant else ''}.json"
        counterexamples.append(write_counterexample(bound, name, found, trace(found), path))
    summary = summarize(
        result,
        properties=bound.properties,
        sometimes=bound.sometimes,
        bound={
            "clients": bound.clients,
            "edits": bound.edits,
            "lag": bound.lag,
            "shared_scripts": bound.shared,
            "future": bound.future,
            "mutant": bound.mutant,
            "scripts": bound.scripts,
            "blob": bound.blob,
            "swarm": list(bound.swarm) if bound.swarm else None,
        },
        bound_text=bound.size,
        bound_description=bound.describe(),
        reductions={"sleep_sets": settings.sleep_sets},
        counterexamples=counterexamples,
        master=master,
        cores=cores,
    )
    write_outputs(summary, settings.out, bound.properties, bound.sometimes)
    return summary
