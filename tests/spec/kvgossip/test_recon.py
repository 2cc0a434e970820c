"""Range-based set reconciliation: it finds exactly the difference, in few rounds and bytes."""

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swarmconf.spec.kvgossip import recon
from swarmconf.spec.kvgossip.reasons import KvError, KvReason

Items = list[recon.Item]


def item(n: int, ts: int | None = None) -> recon.Item:
    return (1_700_000_000_000 + n // 3 if ts is None else ts, hashlib.sha256(b"%d" % n).digest())


def reconcile(
    a: Items, b: Items, limit: int = recon.MAX_MESSAGE_BYTES
) -> tuple[int, int, set, set]:
    """Run both sides to the end: (rounds, bytes both ways, have, need) seen by the initiator."""
    a, b = sorted(a), sorted(b)
    msg, rounds, sent, have, need = recon.initiate(a), 0, 0, set(), set()
    while True:
        sent += len(msg)
        rounds += 1
        reply = recon.step(b, msg, initiator=False, limit=limit).reply
        assert reply is not None
        sent += len(reply)
        step = recon.step(a, reply, initiator=True, limit=limit)
        have.update(step.have)
        need.update(step.need)
        if step.reply is None:
            return rounds, sent, have, need
        msg = step.reply


def ids(items: Items) -> set[bytes]:
    return {i for _, i in items}


@settings(max_examples=60, deadline=None)
@given(
    st.sets(st.integers(0, 400), max_size=300),
    st.sets(st.integers(0, 400), max_size=300),
    st.sampled_from([recon.MAX_MESSAGE_BYTES, 2048]),
)
def test_finds_exactly_the_symmetric_difference(a: set[int], b: set[int], limit: int) -> None:
    left, right = [item(n) for n in a], [item(n) for n in b]
    _, _, have, need = reconcile(left, right, limit)
    assert have == ids(left) - ids(right)
    assert need == ids(right) - ids(left)


def test_messages_are_byte_deterministic_and_start_with_the_version() -> None:
    items = sorted(item(n) for n in range(100))
    first = recon.initiate(items)
    assert first == recon.initiate(list(items)) and first[0] == 0x61
    # 100 items: 16 fingerprinted buckets, the last bound infinity (ts 0, no prefix).
    assert first.endswith(b"\x00\x00\x01" + recon.fingerprint([i for _, i in items[94:]]))


def test_varint_and_fingerprint_match_negentropy() -> None:
    assert recon.varint(0) == b"\x00" and recon.varint(127) == b"\x7f"
    assert recon.varint(128) == b"\x81\x00" and recon.varint(300) == b"\x82\x2c"
    one = (1).to_bytes(32, "little")
    assert recon.fingerprint([one]) == hashlib.sha256(one + b"\x01").digest()[:16]


def test_one_difference_in_100k_costs_two_rounds_and_a_few_kilobytes() -> None:
    base = [item(n) for n in range(100_000)]
    changed = list(base)
    changed[54_321] = item(10**9, ts=base[54_321][0] + 5)
    rounds, sent, have, need = reconcile(base, changed)
    assert (rounds, have, need) == (2, {base[54_321][1]}, {changed[54_321][1]})
    assert sent <= 4096


def test_an_empty_peer_costs_at_most_33_bytes_per_item() -> None:
    full = [item(n) for n in range(20_000)]
    rounds, sent, have, need = reconcile([], full, limit=64 * 1024)
    assert need == ids(full) and have == set()
    assert rounds > 1 and sent <= 33 * len(full)


@pytest.mark.parametrize(
    "message",
    [
        b"",
        b"\x60",
        b"\x61\x00\x05",
        b"\x61\x00\x00\x07",
        b"\x61\x00\x21" + b"\x00" * 33,
        b"\x61\x02\x00\x00\x01\x00\x00\x00",
    ],
)
def test_malformed_messages_are_bad_messages(message: bytes) -> None:
    with pytest.raises(KvError) as err:
        recon.step([item(1)], message, initiator=False)
    assert err.value.reason is KvReason.SESSION_BAD_MESSAGE
