"""Change notices: the rate limit, the per-writer coalescing and the pacing (`notices`)."""

from __future__ import annotations

import os

from swarmconf.reference.kvgossip.gossip import Change
from swarmconf.reference.kvgossip.notices import NoticeBucket, NoticePacer, PendingNotices


def change(writer: bytes, key: str, ts: int = 1) -> Change:
    return Change(writer, key, ts, os.urandom(32))


def test_the_bucket_admits_its_burst_then_its_rate() -> None:
    now = [0.0]
    bucket = NoticeBucket(rate=100, burst=50, clock=lambda: now[0])
    assert sum(bucket.take() for _ in range(80)) == 50
    now[0] = 0.1  # ten more tokens
    assert sum(bucket.take() for _ in range(80)) == 10
    now[0] = 100.0  # idle for long: never more than the burst
    assert sum(bucket.take() for _ in range(80)) == 50


def test_pending_notices_keep_one_entry_per_key_and_the_newest_position() -> None:
    pending = PendingNotices(limit=3)
    old, new = Change(b"w", "/k", 5, b"\x01" * 32), Change(b"w", "/k", 7, b"\x00" * 32)
    for notice in (old, new, old, change(b"v", "/k")):
        pending.add(notice)
    assert pending.waiting(b"w") and pending.waiting(b"v")
    assert pending.take(b"w") == ([new], False)
    assert not pending.waiting(b"w") and pending.take(b"w") == ([], False)


def test_pending_notices_past_the_limit_only_mark_the_writer_for_a_session() -> None:
    pending = PendingNotices(limit=3)
    for i in range(1000):
        pending.add(change(b"w", f"/forged/{i}"))
    changes, overflowed = pending.take(b"w")
    assert [c.key for c in changes] == ["/forged/0", "/forged/1", "/forged/2"]
    assert overflowed
    pending.add(change(b"w", "/next"))
    assert pending.take(b"w")[1] is False  # taken: the mark went with the keys


def test_notices_that_lead_nowhere_back_off_and_real_ones_cost_nothing() -> None:
    now = [0.0]
    pacer = NoticePacer(clock=lambda: now[0])
    assert pacer.wait_for(b"w") == 0
    pacer.finished(b"w", applied=3)
    assert pacer.wait_for(b"w") == 0  # a real write: the next notice is acted on at once
    waits = []
    for _ in range(8):
        pacer.finished(b"f", applied=0)
        waits.append(pacer.wait_for(b"f"))
    assert waits == [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0]
    now[0] = 8.0
    assert pacer.wait_for(b"f") == 0
    pacer.finished(b"f", applied=1)
    pacer.finished(b"f", applied=0)
    assert pacer.wait_for(b"f") == 0.25  # a fruitful session forgave the source
