import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swarmconf.spec.kvgossip import session
from swarmconf.spec.kvgossip.encoding import encode
from swarmconf.spec.kvgossip.fixtures import ALICE, BOB, ROOT
from swarmconf.spec.kvgossip.grants import issue_grant, revoke_grant
from swarmconf.spec.kvgossip.messages import decode_message, message
from swarmconf.spec.kvgossip.reasons import KvError, KvReason
from swarmconf.spec.kvgossip.records import make_record
from swarmconf.spec.kvgossip.session import Role, Session
from swarmconf.spec.kvgossip.state import MemoryStore, apply_record, apply_revocation

NOW = 100_000
GRANT_A = issue_grant(ROOT.seed, ALICE.pk, "/a/**", subgrant=True, issued_at=1_000)


def run(a: Session, b: Session) -> list[tuple[str, str]]:
    """Drive two sessions to the end, returning the transcript (direction, message name)."""
    transcript: list[tuple[str, str]] = []
    out, towards = a.start(NOW), b
    while out:
        replies: list[bytes] = []
        for frame in out:
            transcript.append(("A>B" if towards is b else "B>A", decode_message(frame)[0]))
            replies += towards.receive(frame, NOW)
        out, towards = replies, (a if towards is b else b)
    return transcript


def pair(sa: MemoryStore, sb: MemoryStore) -> tuple[Session, Session]:
    return (
        Session(Role.INITIATOR, sa, ROOT.pk, b"A"),
        Session(Role.RESPONDER, sb, ROOT.pk, b"B"),
    )


def test_sync_converges_both_directions() -> None:
    sa, sb = MemoryStore(), MemoryStore()
    apply_record(sa, make_record(ALICE.seed, "/a/x", 2_000, b"1", [GRANT_A]), ROOT.pk, NOW)
    apply_record(sb, make_record(ROOT.seed, "/b", 2_500, b"2"), ROOT.pk, NOW)
    apply_record(sb, make_record(ALICE.seed, "/a/x", 3_000, None, [GRANT_A]), ROOT.pk, NOW)
    a, b = pair(sa, sb)
    transcript = run(a, b)
    assert (a.done, a.error, b.done, b.error) == (True, None, True, None)
    assert sa.tree_hash() == sb.tree_hash()
    assert sa.records["/a/x"].tombstone
    assert transcript[-1] == ("A>B", "BYE")
    assert [name for _, name in transcript[2:4]] == ["RECON", "RECON"]
    assert ("A>B", "WANT") in transcript and ("B>A", "RECORDS") in transcript


def test_equal_stores_say_bye_after_hello() -> None:
    a, b = pair(MemoryStore(), MemoryStore())
    assert run(a, b) == [("A>B", "HELLO"), ("B>A", "HELLO"), ("A>B", "BYE")]


def test_revocations_go_first_and_purge() -> None:
    sa, sb = MemoryStore(), MemoryStore()
    apply_record(sa, make_record(ALICE.seed, "/a/x", 2_000, b"1", [GRANT_A]), ROOT.pk, NOW)
    revocation = revoke_grant(ROOT.seed, GRANT_A, 5_000, ROOT.pk)
    apply_revocation(sb, revocation.encode(), ROOT.pk)
    a, b = pair(sa, sb)
    transcript = run(a, b)
    assert [name for _, name in transcript[2:6]] == ["REVS", "REVS", "REVDATA", "REVDATA"]
    assert sa.records == {} and sa.revset_hash() == sb.revset_hash()


def test_unsolicited_result_aborts_without_changes() -> None:
    store = MemoryStore()
    b = Session(Role.RESPONDER, store, ROOT.pk, b"B")
    assert b.receive(message("RESULTS", ["accepted"], [""], [], []), NOW) == []
    assert (b.done, b.error) == (True, KvReason.SESSION_UNEXPECTED_MESSAGE)


def test_rejected_record_does_not_abort_the_pass() -> None:
    sa, sb = MemoryStore(), MemoryStore()
    forged = make_record(BOB.seed, "/a/y", 2_000, b"evil", [GRANT_A])
    sa.put(forged)  # a store holding an unauthorised record (as a buggy peer would)
    apply_record(sa, make_record(ALICE.seed, "/a/x", 1_500, b"ok", [GRANT_A]), ROOT.pk, NOW)
    a, b = pair(sa, sb)
    run(a, b)
    assert (a.error, b.error) == (None, None)
    assert set(sb.records) == {"/a/x"}
    assert ("/a/y", "rejected", KvReason.UNAUTHORIZED) in b.log.verdicts


def test_oversize_frame_aborts() -> None:
    b = Session(Role.RESPONDER, MemoryStore(), ROOT.pk, b"B")
    b.receive(b"\x00" * (4 * 1024 * 1024 + 1), NOW)
    assert b.error == KvReason.SESSION_FRAME_TOO_LARGE


def test_short_hash_in_hello_is_a_bad_message() -> None:
    b = Session(Role.RESPONDER, MemoryStore(), ROOT.pk, b"B")
    assert b.receive(message("HELLO", 2, b"A", b"\x00" * 31, b"\x00" * 32, 0), NOW) == []
    assert b.error == KvReason.SESSION_BAD_MESSAGE


NESTED: list[object] = []
for _ in range(1000):
    NESTED = [NESTED]


@pytest.mark.parametrize("name", [[], {}, [b"HELLO"], 2, b"HELLO", NESTED])
def test_a_message_named_by_anything_but_a_known_string_is_a_bad_message(name: object) -> None:
    with pytest.raises(KvError) as refused:
        decode_message(encode([name]))
    assert refused.value.reason == KvReason.SESSION_BAD_MESSAGE


def test_messages_decode_back() -> None:
    frame = message("RESULTS", ["stale"], ["STALE"], [], [b"r"])
    assert decode_message(frame) == ["RESULTS", ["stale"], ["STALE"], [], [b"r"]]


POOL = [
    make_record(ALICE.seed, f"/a/{key}", 2_000 + ts, value, [GRANT_A])
    for key in "xyz"
    for ts in (1, 2, 3)
    for value in (b"p", b"q", None)
]


@settings(max_examples=80, deadline=None)
@given(st.sets(st.integers(0, len(POOL) - 1)), st.sets(st.integers(0, len(POOL) - 1)))
def test_any_two_stores_converge_on_the_newest_version_of_every_key(
    left: set[int], right: set[int]
) -> None:
    sa, sb = MemoryStore(), MemoryStore()
    for store, picks in ((sa, left), (sb, right)):
        for i in sorted(picks):
            apply_record(store, POOL[i], ROOT.pk, NOW)
    differ = sa.tree_hash() != sb.tree_hash()
    a, b = pair(sa, sb)
    run(a, b)
    # One pass settles honest stores: nothing is fetched that is then sent back.
    assert (a.error, b.error, a.log.passes) == (None, None, 1 if differ else 0)
    newest: dict[str, tuple[int, bytes]] = {}
    for i in left | right:
        key, lww = POOL[i].key, POOL[i].lww_key
        newest[key] = max(newest.get(key, lww), lww)
    for store in (sa, sb):
        assert {k: r.lww_key for k, r in store.records.items()} == newest


def test_records_the_peer_lacks_go_out_a_window_at_a_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(session, "TRANSFER_BATCH", 2)
    monkeypatch.setattr(session, "SEND_WINDOW", 2)
    sa = MemoryStore()
    for i in range(11):
        apply_record(sa, make_record(ROOT.seed, f"/k/{i}", 2_000 + i, b"v"), ROOT.pk, NOW)
    sb = MemoryStore()
    a, b = pair(sa, sb)
    out, towards, unanswered, most = a.start(NOW), b, 0, 0
    while out:
        replies: list[bytes] = []
        for frame in out:
            sent = (decode_message(frame)[0], "A>B" if towards is b else "B>A")
            unanswered += {("RECORDS", "A>B"): 1, ("RESULTS", "B>A"): -1}.get(sent, 0)
            most = max(most, unanswered)
            replies += towards.receive(frame, NOW)
        out, towards = replies, (a if towards is b else b)
    assert (a.error, b.error, most) == (None, None, 2)
    assert sb.tree_hash() == sa.tree_hash() and sb.count() == 11
