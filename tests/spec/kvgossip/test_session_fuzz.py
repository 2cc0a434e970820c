"""Garbage and hostile frames never crash a session, and never store anything unauthorised."""

from hypothesis import given, settings
from hypothesis import strategies as st

from swarmconf.spec.kvgossip.fixtures import ALICE, MALLORY, ROOT
from swarmconf.spec.kvgossip.grants import issue_grant
from swarmconf.spec.kvgossip.messages import FIELDS, message
from swarmconf.spec.kvgossip.reasons import KvReason
from swarmconf.spec.kvgossip.records import make_record
from swarmconf.spec.kvgossip.session import Role, Session
from swarmconf.spec.kvgossip.state import MemoryStore

NOW = 10**12
GRANT = issue_grant(ROOT.seed, ALICE.pk, "/a/**", subgrant=False, issued_at=1)
GOOD = make_record(ALICE.seed, "/a/x", 5, b"ok", [GRANT])
FORGED = make_record(MALLORY.seed, "/a/y", 6, b"evil", [GRANT])
STORE_TREE = MemoryStore([GOOD]).tree_hash()

field_values = {
    int: st.sampled_from([0, 1, 2, 5, NOW]),
    bytes: st.sampled_from([b"", b"\x00" * 32, STORE_TREE, GOOD.encode(), FORGED.encode()]),
    str: st.sampled_from(["", "/a/x", "/a/y", "accepted", "stale", "STALE", "x"]),
    (list, bytes): st.lists(
        st.sampled_from([b"", b"\x00" * 32, GOOD.entry_hash, GOOD.encode(), FORGED.encode()]),
        max_size=2,
    ),
    (list, str): st.lists(st.sampled_from(["/a/x", "accepted", "stale", "STALE", ""]), max_size=2),
}


@st.composite
def frames(draw: st.DrawFn) -> bytes:
    if draw(st.booleans()):
        return draw(st.binary(max_size=40))
    name = draw(st.sampled_from(sorted(FIELDS)))
    return message(name, *(draw(field_values[kind]) for kind in FIELDS[name]))


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(list(Role)), st.lists(frames(), max_size=12))
def test_hostile_frames(role: Role, script: list[bytes]) -> None:
    store = MemoryStore([GOOD])
    session = Session(role, store, ROOT.pk, b"me")
    session.start(NOW)
    for frame in script:
        out = session.receive(frame, NOW)
        assert all(isinstance(f, bytes) for f in out)
    assert session.error is None or isinstance(session.error, KvReason)
    assert set(store.records) <= {"/a/x"}
    assert store.records["/a/x"] == GOOD
