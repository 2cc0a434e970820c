"""The config-merge campaign of an earlier commit beside today's, in one process.

The commit's `fuzz/` sources (`git archive`) are extracted into a temporary folder and imported
from there as a package of their own, on today's spec and reference. Both campaigns run the
first tasks of their own default plan for the same seed (the same scenarios and schedules by
index, each drawn by its own campaign), alternated task by task, timed in CPU seconds.
"""

from __future__ import annotations

import importlib
import io
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

from swarmconf.fuzz.config import DEFAULT_PER_SCENARIO, Config
from swarmconf.fuzz.configmerge import campaign as today

ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def campaign_at(commit: str) -> Iterator[ModuleType]:
    """The commit's `fuzz.configmerge.campaign`, imported from its sources as `fuzz_at_COMMIT`."""
    package = f"fuzz_at_{commit}"
    found = subprocess.run(
        ["git", "-C", str(ROOT), "archive", f"--prefix={package}/", f"{commit}:fuzz"],
        capture_output=True,
    )
    if found.returncode != 0:
        reason = found.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no git"]
        raise SystemExit(f"--against {commit}: its fuzz/ sources are not here ({reason[0]})")
    archive = found.stdout
    with tempfile.TemporaryDirectory() as folder:
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(folder, filter="data")
        sys.path.insert(0, folder)
        try:
            yield importlib.import_module(f"{package}.configmerge.campaign")
        finally:
            sys.path.remove(folder)
            for name in [name for name in sys.modules if name.split(".")[0] == package]:
                del sys.modules[name]


def cpu_seconds(run_task: Callable[[Any], list[Any]], task: Any) -> float:
    started = time.process_time()
    run_task(task)
    return time.process_time() - started


def rates(commit: str, tasks: int, rounds: int) -> tuple[list[float], list[float]]:
    """Interleavings per CPU second of the commit's campaign and of today's, each round over
    the first `tasks` tasks of seed 1 (the default campaign's), alternated task by task."""
    seed = Config(1).seed
    with campaign_at(commit) as then:
        old_tasks = then.plan(seed, tasks * then.DEFAULT_PER_SCENARIO)
        new_tasks = today.plan(seed, tasks * DEFAULT_PER_SCENARIO)
        old_rates, new_rates = [], []
        for _ in range(rounds):
            old = new = 0.0
            for old_task, new_task in zip(old_tasks, new_tasks, strict=True):
                old += cpu_seconds(then.run_task, old_task)
                new += cpu_seconds(today.run_task, new_task)
            old_rates.append(sum(task.schedules for task in old_tasks) / old)
            new_rates.append(sum(task.schedules for task in new_tasks) / new)
    return old_rates, new_rates
