"""SQLite storage: atomic applies, removal with chain links, survival of SIGKILL mid-write."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from swarmconf.kvgossip.node.store import Batch, Store, StoredRecord

GRANT_A = (b"\xaa" * 32, b"grant-a")
GRANT_B = (b"\xbb" * 32, b"grant-b")


def rec(key: str, ts: int, *chain: tuple[bytes, bytes]) -> StoredRecord:
    return StoredRecord(key, ts, bytes([ts % 256]) * 32, f"{key}@{ts}".encode(), chain)


def test_apply_put_replace_remove(tmp_path: Path) -> None:
    store = Store(tmp_path / "db")
    store.apply(Batch(put=[rec("/a", 1, GRANT_A), rec("/b", 2, GRANT_A, GRANT_B)]))
    store.apply(Batch(put=[rec("/a", 3, GRANT_B)], meta={"tree": b"t1"}))
    assert [r.key for r in store.records()] == ["/a", "/b"]  # newest first
    assert store.record("/a") == b"/a@3"
    assert store.keys_using(GRANT_A[0]) == ["/b"]
    assert store.keys_using(GRANT_B[0]) == ["/a", "/b"]
    assert store.grant(GRANT_A[0]) == b"grant-a"
    store.apply(Batch(remove=["/b"], revocations=[GRANT_B]))
    assert store.record("/b") is None
    assert store.keys_using(GRANT_B[0]) == ["/a"]
    assert store.revocations() == {GRANT_B[0]: b"grant-b"}
    assert store.meta("tree") == b"t1"
    assert store.count() == 1
    store.close()
    reopened = Store(tmp_path / "db")
    assert reopened.record("/a") == b"/a@3"
    assert reopened.integrity_ok()


def test_failed_apply_leaves_nothing(tmp_path: Path) -> None:
    store = Store(tmp_path / "db")
    store.apply(Batch(put=[rec("/a", 1)], meta={"tree": b"t1"}))
    broken = StoredRecord("/b", 2, b"h" * 32, None, ())  # type: ignore[arg-type]
    with pytest.raises(Exception, match="NOT NULL"):
        store.apply(Batch(put=[rec("/c", 3, GRANT_A), broken], remove=["/a"], meta={"tree": b"t2"}))
    assert [r.key for r in store.records()] == ["/a"]
    assert store.keys_using(GRANT_A[0]) == []
    assert store.meta("tree") == b"t1"


WRITER = """
import sys
from swarmconf.kvgossip.node.store import Batch, Store, StoredRecord
store = Store(sys.argv[1])
i = int(store.meta("last") or b"-1") + 1
print("ready", flush=True)
while True:
    key = f"/k/{i}"
    grant = (i.to_bytes(32, "big"), b"g" * 200)
    put = StoredRecord(key, i, i.to_bytes(32, "big"), b"v" * 1000, (grant,))
    store.apply(Batch(put=[put], meta={"last": str(i).encode()}))
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
        time.sleep(0.3)
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
        store = Store(db)
        assert store.integrity_ok()
        last = int(store.meta("last") or b"-1")
        keys = {r.key for r in store.records()}
        # Every committed batch is whole: the record, its chain link and the meta counter.
        assert last > previous
        previous = last
        assert {f"/k/{i}" for i in range(last + 1)} <= keys
        assert all(store.keys_using(i.to_bytes(32, "big")) == [f"/k/{i}"] for i in range(last + 1))
        assert len(keys) == last + 1
        store.close()
