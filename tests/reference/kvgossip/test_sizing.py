"""The node's sizing rules at the sizes where the fixed-size ones broke (the 1,000-node
simulation; `sizing`)."""

from swarmconf.reference.kvgossip.sizing import (
    RELAYED_LIMIT,
    SWEEP_SESSIONS,
    Relayed,
    query_timeout,
    resync_interval,
    sweep_sessions,
)


def test_a_writers_sweep_at_100_members_dials_the_nearest_three_not_99() -> None:
    differing = [f"node-{i:02d}" for i in range(99)]  # nearest first
    assert sweep_sessions(differing, changed=False) == differing[:SWEEP_SESSIONS] == differing[:3]


def test_a_sweep_whose_store_changed_meanwhile_queries_again_instead() -> None:
    assert sweep_sessions([f"node-{i}" for i in range(31)], changed=True) == []


def test_the_query_timeout_grows_per_decade_as_serfs_own() -> None:
    assert [query_timeout(1.0, n) for n in (5, 9, 32, 99, 1000)] == [1.0, 1.0, 2.0, 2.0, 4.0]
    # The last of 1,000 members answers after 1.13 s in the gossip model: inside the timeout.
    assert query_timeout(1.0, 1000) > 1.13


def test_the_cluster_sends_as_many_state_queries_at_1000_members_as_at_32() -> None:
    def per_second(members: int) -> float:
        return members / resync_interval(30.0, members)

    assert resync_interval(30.0, 5) == resync_interval(30.0, 32) == 30.0
    assert per_second(1000) == per_second(300) == per_second(32)


def test_a_version_is_relayed_the_first_time_it_is_pushed_only() -> None:
    relayed = Relayed()
    version = ("app/x", 1, b"\x01" * 32)
    assert relayed.first(version)  # e.g. fetched already, then the push came: relayed
    assert not relayed.first(version)
    assert relayed.first(("app/x", 2, b"\x02" * 32))


def test_what_was_relayed_is_bounded() -> None:
    relayed = Relayed(limit=2)
    for ts in range(3):
        assert relayed.first(("k", ts, b""))
    assert relayed.first(("k", 0, b""))  # forgotten past the limit
    assert not relayed.first(("k", 2, b""))
    assert RELAYED_LIMIT >= 1000
