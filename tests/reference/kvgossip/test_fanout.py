"""Push fan-out (K9) at the sizes where the nearest-first flood broke down: every member is sent
a write, about once, within log2 N hops; a failed member's share is handed down."""

from __future__ import annotations

import math
import os
from collections import Counter

import pytest

from swarmconf.reference.kvgossip.fanout import Ring, Target, handed_down, plan


def _ids(size: int) -> list[bytes]:
    return [os.urandom(16) for _ in range(size)]


def _spread(
    ids: list[bytes], writer: bytes, dead: frozenset[bytes] = frozenset()
) -> tuple[Counter[bytes], int]:
    """Pushes each member is sent when `writer` writes and every live member relays what is
    new to it as `plan` says (a push to a dead one handed down); and the hops it took."""
    rings = {me: Ring.of(me, [p for p in ids if p != me]) for me in ids}
    sent: Counter[bytes] = Counter()
    wave = [(writer, None, Target(0, len(ids)))]
    hops = 0
    seen = {writer}
    while wave:
        hops += 1
        following = []
        for sender, distance, _ in wave:
            ring = rings[sender]
            todo = list(plan(ring.size, distance))
            while todo:
                target = todo.pop()
                receiver = ring.at(target.offset)
                sent[receiver] += 1
                if receiver in dead:
                    todo += handed_down(target)
                elif receiver not in seen:
                    seen.add(receiver)
                    following.append((receiver, rings[receiver].distance(sender), target))
        wave = following
    return sent, hops - 1


@pytest.mark.parametrize("size", [9, 10, 17, 20, 28, 31, 32, 33, 39, 64, 100])
def test_every_member_is_sent_a_write_within_log2_hops(size: int) -> None:
    ids = _ids(size)
    for writer in ids[:5]:
        sent, hops = _spread(ids, writer)
        assert set(sent) >= set(ids) - {writer}
        assert hops <= math.ceil(math.log2(size))
        assert sum(sent.values()) <= size - 1 + size // 4  # a few twice where N is no power of 2


def test_at_32_members_each_is_sent_a_write_exactly_once() -> None:
    ids = _ids(32)
    sent, hops = _spread(ids, ids[7])
    assert sorted(sent.values()) == [1] * 31
    assert hops == 5


def test_no_member_sends_more_than_log2_pushes_for_one_write() -> None:
    for size in (9, 32, 100):
        assert max(len(plan(size, d)) for d in [None, *range(1, size)]) == math.ceil(
            math.log2(size)
        )


def test_a_failed_member_is_handed_down_so_its_share_still_gets_the_write() -> None:
    ids = _ids(32)
    writer = ids[0]
    ring = Ring.of(writer, ids[1:])
    dead = frozenset({ring.at(16), ring.at(8)})  # the roots of the two largest shares
    sent, _ = _spread(ids, writer, dead)
    assert set(sent) >= set(ids) - {writer}


def test_a_sender_off_the_ring_gets_nothing_relayed() -> None:
    ids = _ids(12)
    ring = Ring.of(ids[0], ids[1:])
    assert ring.distance(os.urandom(16)) is None
    assert plan(ring.size, 0) == []
    assert plan(1, None) == []
