"""Delta debugging: the minimization every design's shrinker runs over its cases' parts."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


def ddmin(items: Sequence[T], fails: Callable[[list[T]], bool]) -> list[T]:
    """The classic delta-debugging minimization: a 1-minimal failing subsequence of `items`."""
    current = list(items)
    chunks = 2
    while len(current) >= 2:
        size = max(1, len(current) // chunks)
        parts = [current[i : i + size] for i in range(0, len(current), size)]
        for index in range(len(parts)):
            complement = [item for i, part in enumerate(parts) if i != index for item in part]
            if fails(complement):
                current = complement
                chunks = max(chunks - 1, 2)
                break
        else:
            if chunks >= len(current):
                break
            chunks = min(len(current), chunks * 2)
    if len(current) == 1 and fails([]):
        return []
    return current
