"""Random histories of concurrent writers, for merge cases.

Writers start from one message, make random edits (each an increment) and now and then merge
what others published. Every message any writer publishes is kept, so merge cases can pick
conflicting, included, stale and duplicate messages from it.
"""

from __future__ import annotations

import random

from swarmconf.conformance.configmerge.values import (
    Data,
    btcodec_copy,
    edited,
    new_message,
    random_data,
    random_edits,
)
from swarmconf.spec import configmerge as spec


def data_of(message: bytes, lag: int) -> Data:
    data: Data = btcodec_copy(spec.parse(message, lag=lag).data)
    return data


def merged(messages: list[bytes], rng: random.Random, lag: int) -> bytes:
    """What a writer publishes after merging `messages`: the merge, sometimes with an edit."""
    result = spec.merge(messages, lag=lag)
    if not result.merged:
        return result.serialize()
    if rng.random() < 0.3:
        edit = random_edits(rng, btcodec_copy(result.data), rng.randint(1, 2))
        result.data.clear()
        result.data.update(edit)
    return result.serialize()


def random_history(rng: random.Random, *, writers: int, steps: int, lag: int) -> list[bytes]:
    """Every message published, oldest first."""
    base = new_message(rng.randint(0, 40), random_data(rng), lag=lag)
    published = [base]
    views = [base] * writers
    for _ in range(steps):
        writer = rng.randrange(writers)
        if rng.random() < 0.65:
            edit = random_edits(rng, data_of(views[writer], lag), rng.randint(1, 3))
            views[writer] = edited(views[writer], edit, lag=lag)
        else:
            seen = rng.sample(published, k=min(len(published), rng.randint(1, 3)))
            views[writer] = merged([views[writer], *seen], rng, lag)
        published.append(views[writer])
    return published


def recent(messages: list[bytes], lag: int, count: int, rng: random.Random) -> list[bytes]:
    """Up to `count` distinct messages, mostly from the newest seqnos."""
    distinct = sorted(set(messages))  # sorted bytes: set order depends on hash seeds
    by_seqno = sorted(distinct, key=lambda m: spec.parse(m, lag=lag).seqno, reverse=True)
    pool = by_seqno[: max(count, 2 * count)]
    return rng.sample(pool, k=min(count, len(pool)))
