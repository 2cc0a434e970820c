"""Durable node storage: SQLite in WAL mode, the analogue of the design's boltdb.

`SqliteStore` implements the spec's `Store` protocol (`swarmconf.spec.kvgossip.state.Store`). It
keeps bytes exactly as they travel (records with their chains, signed revocations) plus the
columns that index them: `records` holds each key's LWW columns `(ts, entry_hash)`, which are
the design's per-key "KV hash tree", indexed by key and by `(ts, entry_hash)` (to answer
`WANT`s: an entry hash finds its `ts` in memory). Records arrive in that order during a sync,
and a new write is the newest, so inserts extend the index at its end rather than dirtying a
random page each, as an index on the entry hash alone would; `chain_links` maps
grant ids to the keys whose chain uses them, indexed both ways so that replacing a key's record
costs the same whatever the store holds. Opening an older store brings its indexes up to date
(every schema statement is idempotent).
The node wraps every spec call that may change state in `transaction()`, so a record, its
chain's grants and its hashes land together or not at all, whatever happens to the process.
The tree hash's running sum and count `(S, N)` live in `meta` and are written by the same
transaction as the records they count (a store without them computes them once on open); the
revocation-set hash is derived from its rows and cached. The sorted `(ts, entry_hash)` items a
sync session reconciles are kept in memory, built on first use and updated by each put and purge.
Records read back (`get`, `get_by_entry_hash`) are parsed, not verified again: every record was
checked in full by the spec before `put`, and the file is private to the node.

Inside a transaction, writes are batched: `put` queues its rows and they go to SQLite in one
`executemany` per table before the next read of those tables and before COMMIT, so a batch of
records costs a few statements, not several per record. The records a transaction looks up or
writes are remembered until it ends, and `prefetch` looks up a batch's keys in one query ahead
of the spec's `get`s (a fresh node's batches then read nothing record by record).

With `synchronous=NORMAL` (the node's default) a commit is durable once it returns as far as the
process is concerned: a killed process loses nothing. After a power loss the last commits may be
rolled back, each whole, and are fetched again from peers. `FULL` syncs the disk on every commit.
In NORMAL only checkpoints sync the disk; SQLite runs them inside the COMMIT that fills the WAL
past 1,000 pages. A node takes them over (`defer_checkpoints`) and runs `checkpoint` on a worker
thread instead, so no write waits for the disk.
"""

from __future__ import annotations

import sqlite3
import threading
from bisect import bisect_left, insort
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path

import msgpack  # type: ignore[import-untyped]

from swarmconf.reference.kvgossip.privacy import private_file
from swarmconf.spec.kvgossip.grants import Revocation, decode_revocation, grant_id_of
from swarmconf.spec.kvgossip.records import Record
from swarmconf.spec.kvgossip.state import SyncItem
from swarmconf.spec.kvgossip.treehash import SUM_MODULUS, entry_sum, revset_hash, tree_hash

_SCHEMA = """
CREATE TABLE IF NOT EXISTS records (
    key TEXT PRIMARY KEY,
    ts INTEGER NOT NULL,
    entry_hash BLOB NOT NULL,
    record BLOB NOT NULL
) WITHOUT ROWID;
DROP INDEX IF EXISTS records_newest;
DROP INDEX IF EXISTS records_by_entry_hash;
CREATE INDEX IF NOT EXISTS records_by_lww ON records (ts, entry_hash);
CREATE TABLE IF NOT EXISTS chain_links (
    grant_id BLOB NOT NULL,
    key TEXT NOT NULL,
    PRIMARY KEY (grant_id, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS chain_links_by_key ON chain_links (key);
CREATE TABLE IF NOT EXISTS grants (
    grant_id BLOB PRIMARY KEY,
    grant BLOB NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS revocations (
    grant_id BLOB PRIMARY KEY,
    revocation BLOB NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (
    name TEXT PRIMARY KEY,
    value BLOB NOT NULL
) WITHOUT ROWID;
"""

CACHE_KIB = 65_536
"""SQLite's page cache per connection: a store of 100,000 records with their indexes fits."""
_INSIDE = nullcontext()
"""What `transaction` gives inside a transaction: the outer one commits or rolls back."""
_CHUNK = 500
"""Keys per `IN (...)` query (SQLite allows 32,766 parameters; smaller stays quick to plan)."""


class SqliteStore:
    """One node's database; `root` is the root public key revocations are checked against."""

    def __init__(self, path: Path | str, root: bytes, *, synchronous: str = "FULL") -> None:
        self.path = Path(path)
        self.root = root
        if str(path) != ":memory:":
            private_file(self.path)  # SQLite's -wal and -shm files take this file's mode
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(f"PRAGMA synchronous={synchronous}")
        self._db.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
        self._db.executescript(_SCHEMA)
        self._in_transaction = False
        self.commits = 0
        """Transactions committed since the store was opened."""
        self._checkpointer: sqlite3.Connection | None = None
        self._checkpoint_lock = threading.Lock()
        self._sum, self._count = self._load_sum_count()
        self._counted = False
        """`(S, N)` changed since the last write to `meta`."""
        self._items: list[SyncItem] | None = None
        self._ts_of: dict[bytes, int] = {}
        """The `ts` of each entry hash in `_items` (kept with it)."""
        self._revoked: frozenset[bytes] | None = None
        self._known: dict[str, Record | None] = {}
        """Keys looked up or written in the running transaction, with what is stored for them:
        the spec judges a record against the stored one, then puts it, and neither the judging
        nor the put need a query then."""
        self._queued: list[tuple[str, int, bytes, bytes]] = []
        self._queued_links: list[tuple[bytes, str]] = []
        self._queued_grants: list[tuple[bytes, bytes]] = []
        self._grant_ids: set[bytes] | None = None
        """Ids in `grants` (rows are never removed), loaded on first use."""
        self._changed: set[str] = set()
        self.listeners: list[Callable[[list[str]], None]] = []
        """Called after each commit with the keys it put or purged."""

    def close(self) -> None:
        """Close the database (the next open recovers whatever the WAL holds)."""
        with self._checkpoint_lock:
            if self._checkpointer is not None:
                self._checkpointer.close()
                self._checkpointer = None
        self._db.close()

    def defer_checkpoints(self) -> None:
        """Stop SQLite's checkpoints inside COMMIT; the owner calls `checkpoint` instead."""
        self._db.execute("PRAGMA wal_autocheckpoint=0")

    def checkpoint(self) -> None:
        """Copy the WAL's committed pages into the database file and sync it, on a connection
        of its own (PASSIVE: the writer is never blocked), so any thread may call it."""
        with self._checkpoint_lock:
            if self._checkpointer is None:
                self._checkpointer = sqlite3.connect(
                    self.path, isolation_level=None, check_same_thread=False
                )
            self._checkpointer.execute("PRAGMA wal_checkpoint(PASSIVE)")

    def transaction(self) -> AbstractContextManager[None]:
        """Make every change inside the block one atomic SQLite transaction (a block inside
        another is part of the outer one)."""
        return _INSIDE if self._in_transaction else self._outermost()

    @contextmanager
    def _outermost(self) -> Iterator[None]:
        self._db.execute("BEGIN IMMEDIATE")
        self._in_transaction = True
        try:
            yield
            self._flush()
        except BaseException:
            self._db.execute("ROLLBACK")
            self._revoked = self._items = self._grant_ids = None
            self._forget_queued()
            self._sum, self._count = self._load_sum_count()
            self._counted = False
            self._changed.clear()
            raise
        else:
            if self._counted:
                self._save_sum_count(self._sum, self._count)
                self._counted = False
            self._db.execute("COMMIT")
            self.commits += 1
        finally:
            self._in_transaction = False
            self._known.clear()
        changed, self._changed = sorted(self._changed), set()
        if changed:
            for listener in self.listeners:
                listener(changed)

    def _load_sum_count(self) -> tuple[int, int]:
        """`(S, N)` as stored, or computed from the records once (a store from before v2)."""
        total, count = self.meta("tree_sum"), self.meta("tree_count")
        if total is not None and count is not None:
            return int.from_bytes(total, "little"), int.from_bytes(count, "big")
        rows = self._db.execute("SELECT entry_hash FROM records").fetchall()
        pair = entry_sum(bytes(row[0]) for row in rows), len(rows)
        self._save_sum_count(*pair)
        return pair

    def _save_sum_count(self, total: int, count: int) -> None:
        self._db.executemany(
            "INSERT OR REPLACE INTO meta (name, value) VALUES (?, ?)",
            [("tree_sum", total.to_bytes(32, "little")), ("tree_count", count.to_bytes(8, "big"))],
        )

    def _count_item(self, item: SyncItem, sign: int) -> None:
        """Add (`sign` 1) or take away (-1) one record's item from `(S, N)` and the index."""
        self._sum = (self._sum + sign * int.from_bytes(item[1], "little")) % SUM_MODULUS
        self._count += sign
        self._counted = True
        if self._items is not None:
            if sign > 0:
                insort(self._items, item)
                self._ts_of[item[1]] = item[0]
            else:
                del self._items[bisect_left(self._items, item)]
                del self._ts_of[item[1]]

    def _flush(self) -> None:
        """Write the queued rows, one statement per table."""
        if self._queued:
            self._db.executemany(
                "INSERT INTO records (key, ts, entry_hash, record) VALUES (?, ?, ?, ?)",
                self._queued,
            )
            self._queued.clear()
        if self._queued_grants:
            self._db.executemany(
                "INSERT INTO grants (grant_id, grant) VALUES (?, ?)", self._queued_grants
            )
            self._queued_grants.clear()
        if self._queued_links:
            self._db.executemany(
                "INSERT OR IGNORE INTO chain_links (grant_id, key) VALUES (?, ?)",
                self._queued_links,
            )
            self._queued_links.clear()

    def _forget_queued(self) -> None:
        self._queued.clear()
        self._queued_grants.clear()
        self._queued_links.clear()

    def _query(self, sql: str, parameters: tuple[object, ...] | list[str] = ()) -> sqlite3.Cursor:
        """Run a read after writing whatever is queued, so it sees every `put` before it."""
        self._flush()
        return self._db.execute(sql, parameters)

    def prefetch(self, keys: list[str]) -> None:
        """Look up the records of `keys` in a few queries, for the `get`s of this transaction."""
        if not self._in_transaction:
            return
        wanted = [key for key in keys if key not in self._known]
        found: dict[str, Record | None] = dict.fromkeys(wanted)
        for i in range(0, len(wanted), _CHUNK):
            chunk = wanted[i : i + _CHUNK]
            marks = ",".join("?" * len(chunk))
            rows = self._query(f"SELECT key, record FROM records WHERE key IN ({marks})", chunk)
            found.update((key, _stored_record(bytes(data))) for key, data in rows)
        self._known.update(found)

    # --- the spec's Store protocol --------------------------------------------------------

    def get(self, key: str) -> Record | None:
        """The record stored for `key`."""
        if key in self._known:
            return self._known[key]
        data = self.record_bytes(key)
        record = None if data is None else _stored_record(data)
        if self._in_transaction:
            self._known[key] = record
        return record

    def put(self, record: Record) -> None:
        """Store `record` (with the chain it carries) for its key, replacing any other."""
        with self.transaction():
            key = record.key
            self._remove(key)
            self._queued.append((key, record.ts, record.entry_hash, record.encode()))
            self._known[key] = record
            self._count_item(record.lww_key, 1)
            known = self._known_grant_ids()
            for grant in record.chain:
                grant_id = grant_id_of(grant)
                if grant_id not in known:
                    self._queued_grants.append((grant_id, grant))
                    known.add(grant_id)
                self._queued_links.append((grant_id, key))

    def _known_grant_ids(self) -> set[bytes]:
        if self._grant_ids is None:
            rows = self._query("SELECT grant_id FROM grants")
            self._grant_ids = {bytes(row[0]) for row in rows}
        return self._grant_ids

    def delete(self, key: str) -> None:
        """Purge the record of `key` (not a tombstone)."""
        with self.transaction():
            self._remove(key)

    def _remove(self, key: str) -> None:
        self._changed.add(key)
        if key in self._known:
            local = self._known[key]
            old = None if local is None else local.lww_key
        else:
            old = self.lww_key(key)
        self._known[key] = None
        if old is None:
            return
        self._count_item(old, -1)
        self._query("DELETE FROM records WHERE key = ?", (key,))
        self._db.execute("DELETE FROM chain_links WHERE key = ?", (key,))

    def get_by_entry_hash(self, entry_hash: bytes) -> Record | None:
        """The stored record whose entry hash this is."""
        self._loaded_items()
        ts = self._ts_of.get(entry_hash)
        if ts is None:
            return None
        row = self._query(
            "SELECT record FROM records WHERE ts = ? AND entry_hash = ?", (ts, entry_hash)
        ).fetchone()
        return None if row is None else _stored_record(bytes(row[0]))

    def sync_items(self) -> list[SyncItem]:
        """A sorted snapshot of every `(ts, entry_hash)` (a copy of the in-memory index)."""
        return list(self._loaded_items())

    def _loaded_items(self) -> list[SyncItem]:
        if self._items is None:
            rows = self._query("SELECT ts, entry_hash FROM records ORDER BY ts, entry_hash")
            self._items = [(int(ts), bytes(eh)) for ts, eh in rows]
            self._ts_of = {eh: ts for ts, eh in self._items}
        return self._items

    def entries_newest_first(self) -> list[tuple[str, int, bytes]]:
        """Every `(key, ts, entry_hash)` in sync order `(ts desc, key asc)`."""
        rows = self._query("SELECT key, ts, entry_hash FROM records ORDER BY ts DESC, key")
        return [(key, ts, bytes(entry_hash)) for key, ts, entry_hash in rows]

    def keys_with_grant(self, grant_id: bytes) -> list[str]:
        """Keys whose stored chain contains the grant."""
        rows = self._query("SELECT key FROM chain_links WHERE grant_id = ?", (grant_id,))
        return sorted(row[0] for row in rows)

    def revoked_ids(self) -> frozenset[bytes]:
        """Ids of every revoked grant known here."""
        if self._revoked is None:
            rows = self._db.execute("SELECT grant_id FROM revocations")
            self._revoked = frozenset(bytes(row[0]) for row in rows)
        return self._revoked

    def get_revocation(self, grant_id: bytes) -> Revocation | None:
        """The stored revocation of a grant."""
        row = self._db.execute(
            "SELECT revocation FROM revocations WHERE grant_id = ?", (grant_id,)
        ).fetchone()
        return None if row is None else decode_revocation(bytes(row[0]), self.root)

    def add_revocation(self, revocation: Revocation) -> None:
        """Store a revocation forever."""
        with self.transaction():
            self._db.execute(
                "INSERT OR IGNORE INTO revocations (grant_id, revocation) VALUES (?, ?)",
                (revocation.grant_id, revocation.encode()),
            )
            self._revoked = None

    def tree_hash(self) -> bytes:
        """The spec's tree hash, from the running `(S, N)`: O(1)."""
        return tree_hash(self._sum, self._count)

    def revset_hash(self) -> bytes:
        """The spec's revocation-set hash."""
        return revset_hash(self.revoked_ids())

    # --- node extras -----------------------------------------------------------------------

    def record_bytes(self, key: str) -> bytes | None:
        """The stored wire bytes of `key`'s record."""
        row = self._query("SELECT record FROM records WHERE key = ?", (key,)).fetchone()
        return None if row is None else bytes(row[0])

    def timestamps(self, keys: list[str]) -> dict[str, int]:
        """The stored `ts` of each of `keys` that has a record, in a few queries."""
        found: dict[str, int] = {}
        for i in range(0, len(keys), _CHUNK):
            chunk = keys[i : i + _CHUNK]
            marks = ",".join("?" * len(chunk))
            rows = self._query(f"SELECT key, ts FROM records WHERE key IN ({marks})", chunk)
            found.update((key, int(ts)) for key, ts in rows)
        return found

    def lww_key(self, key: str) -> tuple[int, bytes] | None:
        """`(ts, entry_hash)` of the stored record, without decoding it."""
        row = self._query("SELECT ts, entry_hash FROM records WHERE key = ?", (key,)).fetchone()
        return None if row is None else (int(row[0]), bytes(row[1]))

    def records_under(self, prefix: str = "") -> Iterator[Record]:
        """Stored records whose key starts with `prefix`, in key order."""
        rows = self._query(
            "SELECT record FROM records WHERE substr(key, 1, ?) = ? ORDER BY key",
            (len(prefix), prefix),
        )
        for (data,) in rows.fetchall():
            yield _stored_record(bytes(data))

    def grants(self) -> list[bytes]:
        """Every signed grant seen on a stored chain (a pool to build local chains from)."""
        return [bytes(row[0]) for row in self._query("SELECT grant FROM grants")]

    def meta(self, name: str) -> bytes | None:
        """A named value (the node id, ...)."""
        row = self._db.execute("SELECT value FROM meta WHERE name = ?", (name,)).fetchone()
        return None if row is None else bytes(row[0])

    def set_meta(self, name: str, value: bytes) -> None:
        """Set a named value."""
        with self.transaction():
            self._db.execute(
                "INSERT OR REPLACE INTO meta (name, value) VALUES (?, ?)", (name, value)
            )

    def count(self) -> int:
        """How many records are stored (tombstones included)."""
        return self._count

    def integrity_ok(self) -> bool:
        """SQLite's own integrity check of the file."""
        return bool(self._query("PRAGMA integrity_check").fetchone()[0] == "ok")


def _stored_record(data: bytes) -> Record:
    """A record as this store holds it: its layout, without checking its signature again."""
    body, signature, value, chain = msgpack.unpackb(data)
    _, key, ts, tombstone, value_hash, signer = msgpack.unpackb(body)
    return Record(
        key, ts, tombstone, value_hash, signer, body, signature, value, tuple(chain), data
    )
