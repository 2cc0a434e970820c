"""SqliteStore: the spec's Store protocol on SQLite, atomic transactions, SIGKILL mid-write."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from swarmconf.reference.kvgossip.store import SqliteStore
from swarmconf.spec.kvgossip.fixtures import ALICE, ROOT
from swarmconf.spec.kvgossip.grants import issue_grant, revoke_grant
from swarmconf.spec.kvgossip.records import Record, decode_record, make_record
from swarmconf.spec.kvgossip.state import MemoryStore, Outcome, apply_revocation, receive_record
from swarmconf.spec.kvgossip.treehash import tree_hash_of

GRANT = issue_grant(ROOT.seed, ALICE.pk, "/a/**", subgrant=False, issued_at=1)


def alice(key: str, ts: int, value: bytes | None = b"v") -> Record:
    return make_record(ALICE.seed, key, ts, value, [GRANT])


def test_store_protocol_matches_the_memory_store(tmp_path: Path) -> None:
    sql, mem = SqliteStore(tmp_path / "db", ROOT.pk), MemoryStore()
    writes = [
        alice("/a/x", 10),
        make_record(ROOT.seed, "/b", 11, b"root"),
        alice("/a/y", 12, None),
        alice("/a/x", 13, b"newer"),
    ]
    for record in writes:
        for store in (sql, mem):
            with sql.transaction():
                assert (
                    receive_record(store, record.encode(), ROOT.pk, 100).outcome is Outcome.ACCEPTED
                )
    assert sql.sync_items() == mem.sync_items()
    assert sql.tree_hash() == mem.tree_hash()
    assert sql.keys_with_grant(GRANT.id) == ["/a/x", "/a/y"]
    assert sql.get("/a/x") == mem.get("/a/x")
    revocation = revoke_grant(ROOT.seed, GRANT, 50, ROOT.pk).encode()
    for store in (sql, mem):
        with sql.transaction():
            assert apply_revocation(store, revocation, ROOT.pk).purged == ("/a/x", "/a/y")
    assert [k for k, _, _ in sql.entries_newest_first()] == ["/b"]
    assert sql.revset_hash() == mem.revset_hash()
    assert sql.get_revocation(GRANT.id) == mem.get_revocation(GRANT.id)
    sql.close()
    reopened = SqliteStore(tmp_path / "db", ROOT.pk)
    assert reopened.tree_hash() == mem.tree_hash()
    assert reopened.revoked_ids() == {GRANT.id}
    assert reopened.integrity_ok()


def test_failed_transaction_leaves_nothing(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "db", ROOT.pk)
    seen: list[list[str]] = []
    store.listeners.append(seen.append)
    store.put(alice("/a/kept", 5))
    before = store.tree_hash()
    with pytest.raises(RuntimeError), store.transaction():
        store.put(alice("/a/lost", 6))
        store.delete("/a/kept")
        assert store.tree_hash() != before
        raise RuntimeError("crash in the middle of an apply")
    assert [k for k, _, _ in store.entries_newest_first()] == ["/a/kept"]
    assert store.keys_with_grant(GRANT.id) == ["/a/kept"]
    assert store.tree_hash() == before == tree_hash_of([alice("/a/kept", 5)])
    assert seen == [["/a/kept"]]


WRITER = """
import sys
from swarmconf.spec.kvgossip.fixtures import ALICE, ROOT
from swarmconf.spec.kvgossip.grants import issue_grant
from swarmconf.spec.kvgossip.records import make_record
from swarmconf.spec.kvgossip.state import receive_record
from swarmconf.reference.kvgossip.store import SqliteStore

grant = issue_grant(ROOT.seed, ALICE.pk, "/a/**", subgrant=False, issued_at=1)
store = SqliteStore(sys.argv[1], ROOT.pk)
i = int(store.meta("last") or b"-1") + 1
print("ready", flush=True)
while True:
    record = make_record(ALICE.seed, f"/a/{i}", 1000 + i, b"v" * 1000, [grant])
    with store.transaction():
        receive_record(store, record.encode(), ROOT.pk, 10**15)
        store.set_meta("last", str(i).encode())
    i += 1
"""


def test_sigkill_mid_write_loses_nothing_committed(tmp_path: Path) -> None:
    db = tmp_path / "db"
    previous = -1
    for _ in range(3):
        child = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(db)], stdout=subprocess.PIPE, text=True
        )
        assert child.stdout is not None and child.stdout.readline() == "ready\n"
        time.sleep(0.5)
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        store = SqliteStore(db, ROOT.pk)
        assert store.integrity_ok()
        last = int(store.meta("last") or b"-1")
        assert last > previous
        previous = last
        # Every committed apply is whole: the record, its chain link and the counter with it.
        keys = {k for k, _, _ in store.entries_newest_first()}
        assert keys == {f"/a/{i}" for i in range(last + 1)}
        assert set(store.keys_with_grant(GRANT.id)) == keys
        for key in keys:
            data = store.record_bytes(key)
            assert data is not None and decode_record(data).chain == (GRANT.encode(),)
        store.close()


def test_replacing_a_record_uses_the_key_index(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "db", ROOT.pk)
    plan = store._db.execute(
        "EXPLAIN QUERY PLAN DELETE FROM chain_links WHERE key = ?", ("/a/x",)
    ).fetchall()
    assert any("USING COVERING INDEX chain_links_by_key" in str(row) for row in plan), plan


def test_opening_an_older_store_brings_its_indexes_up_to_date(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "db", ROOT.pk)
    with store.transaction():
        store.put(alice("/a/x", 10))
        store.put(alice("/a/y", 11))
    store._db.execute("DROP INDEX chain_links_by_key")
    store._db.execute("CREATE INDEX records_newest ON records (ts DESC, key)")
    store.close()
    reopened = SqliteStore(tmp_path / "db", ROOT.pk)
    names = [row[0] for row in reopened._db.execute("SELECT name FROM sqlite_master")]
    assert "chain_links_by_key" in names and "records_newest" not in names
    assert reopened.keys_with_grant(GRANT.id) == ["/a/x", "/a/y"]
    assert [key for key, _, _ in reopened.entries_newest_first()] == ["/a/y", "/a/x"]


def test_running_sum_and_index_follow_every_change(tmp_path: Path) -> None:
    store, mem = SqliteStore(tmp_path / "db", ROOT.pk), MemoryStore()
    assert store.sync_items() == [] and store.tree_hash() == mem.tree_hash()
    for record in [alice("/a/x", 10), alice("/a/y", 11), alice("/a/x", 12, None)]:
        for target in (store, mem):
            with store.transaction():
                receive_record(target, record.encode(), ROOT.pk, 100)
        assert store.sync_items() == mem.sync_items()
        assert (store.tree_hash(), store.count()) == (mem.tree_hash(), mem.count())
    with pytest.raises(RuntimeError), store.transaction():
        store.delete("/a/y")
        raise RuntimeError("rolled back")
    assert (store.tree_hash(), store.sync_items()) == (mem.tree_hash(), mem.sync_items())
    latest = store.get("/a/x")
    assert latest is not None and store.get_by_entry_hash(latest.entry_hash) == latest
    store._db.execute("DELETE FROM meta WHERE name = 'tree_sum'")
    store.close()
    assert SqliteStore(tmp_path / "db", ROOT.pk).tree_hash() == mem.tree_hash()


def test_running_sum_is_written_once_per_transaction_and_survives_reopening(
    tmp_path: Path,
) -> None:
    store = SqliteStore(tmp_path / "db", ROOT.pk)
    with store.transaction():
        for i in range(5):
            store.put(alice(f"/a/{i}", 10 + i))
        assert store.meta("tree_count") == (0).to_bytes(8, "big")  # written at COMMIT
    expected = store.tree_hash()
    store.close()
    reopened = SqliteStore(tmp_path / "db", ROOT.pk)
    assert (reopened.tree_hash(), reopened.count()) == (expected, 5)


def test_a_grant_first_seen_in_a_rolled_back_transaction_is_stored_later(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "db", ROOT.pk)
    with pytest.raises(RuntimeError), store.transaction():
        store.put(alice("/a/lost", 5))
        raise RuntimeError("rolled back")
    assert store.grants() == []
    store.put(alice("/a/kept", 6))
    assert store.grants() == [GRANT.encode()]


def test_records_read_back_equal_what_was_stored(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "db", ROOT.pk)
    for record in [alice("/a/set", 5), alice("/a/gone", 6, None)]:
        stored = record.with_chain([GRANT])
        store.put(stored)
        assert store.get(record.key) == stored == decode_record(stored.encode())
        assert store.get_by_entry_hash(record.entry_hash) == stored
    assert [r.key for r in store.records_under("/a/")] == ["/a/gone", "/a/set"]


def test_timestamps_of_many_keys(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "db", ROOT.pk)
    with store.transaction():
        for i in range(1_200):
            store.put(alice(f"/a/{i}", 10 + i))
    keys = [f"/a/{i}" for i in range(0, 1_200, 7)] + ["/a/absent"]
    assert store.timestamps(keys) == {f"/a/{i}": 10 + i for i in range(0, 1_200, 7)}


def test_a_put_after_a_get_replaces_whatever_is_stored_by_then(tmp_path: Path) -> None:
    store, mem = SqliteStore(tmp_path / "db", ROOT.pk), MemoryStore()
    first, second, third = alice("/a/k", 1), alice("/a/k", 2), alice("/a/k", 3)
    for target in (store, mem):
        assert target.get("/a/k") is None
        target.put(first)  # the looked-up absence is used once, then forgotten
        target.put(second)
        assert target.get("/a/k") == second
        target.delete("/a/k")
        target.put(third)
    assert store.sync_items() == mem.sync_items() == [third.lww_key]
    assert (store.tree_hash(), store.count()) == (mem.tree_hash(), 1)


def test_deferred_checkpoints_run_only_when_asked_from_any_thread(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "db", ROOT.pk, synchronous="NORMAL")
    store.defer_checkpoints()
    empty = (tmp_path / "db").stat().st_size
    for i in range(0, 1_200, 100):  # past SQLite's automatic threshold of 1,000 pages
        with store.transaction():
            for j in range(i, i + 100):
                store.put(alice(f"/a/{j}", 10 + j, b"v" * 4096))
    assert (tmp_path / "db").stat().st_size == empty
    assert (tmp_path / "db-wal").stat().st_size > 1_000 * 4096
    worker = threading.Thread(target=store.checkpoint)
    worker.start()
    worker.join()
    assert (tmp_path / "db").stat().st_size > 1_200 * 4096
    assert store.commits == 12
    store.close()
    assert SqliteStore(tmp_path / "db", ROOT.pk).count() == 1_200


def test_queued_puts_are_seen_by_every_read_and_lost_on_rollback(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "db", ROOT.pk)
    store.put(alice("/a/kept", 4))
    first, second = alice("/a/x", 5), alice("/a/x", 6)
    with store.transaction():
        store.prefetch(["/a/kept", "/a/x"])
        assert store.get("/a/kept") == alice("/a/kept", 4)
        assert store.get("/a/x") is None
        store.put(first)
        assert store.record_bytes("/a/x") == first.encode()
        assert store.keys_with_grant(GRANT.id) == ["/a/kept", "/a/x"]
        store.put(second)
        assert store.get_by_entry_hash(second.entry_hash) == second
        assert store.get_by_entry_hash(first.entry_hash) is None
    with pytest.raises(RuntimeError), store.transaction():
        store.put(alice("/a/lost", 7))
        assert store.get("/a/lost") is not None
        raise RuntimeError("crash before the queued rows are written")
    assert store.get("/a/lost") is None
    assert store.get_by_entry_hash(alice("/a/lost", 7).entry_hash) is None
    store.close()
    reopened = SqliteStore(tmp_path / "db", ROOT.pk)
    assert [k for k, _, _ in reopened.entries_newest_first()] == ["/a/x", "/a/kept"]
    assert reopened.get("/a/x") == second
    assert reopened.tree_hash() == tree_hash_of([alice("/a/kept", 4), second])
