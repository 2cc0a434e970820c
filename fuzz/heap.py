"""Python's cycle collector paused for the length of a task.

A task keeps what it computes until it ends (a scenario's parsed messages, merges and verdicts;
a batch of hostile inputs), so every collection would traverse a heap that grows with the task:
measured, a tenth of a config-merge task's CPU time and over a third of a hostile-input task's.
The few reference cycles a task makes are collected after it. The block should drop the
task's state before it ends: the first collection after it traverses whatever the block
allocated that is still alive (measured, up to 80 ms for a config-merge task's worlds).
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
