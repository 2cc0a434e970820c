"""Durable node storage: SQLite in WAL mode, the analogue of the design's boltdb.

The store keeps bytes exactly as they travel (records, signed grants, signed revocations) plus
the columns needed to index them; the spec decides what is valid. Every `apply` is one SQLite
transaction, so a crash at any point leaves either the whole change or none of it.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

_SCHEMA = """
CREATE TABLE IF NOT EXISTS records (
    key TEXT PRIMARY KEY,
    ts INTEGER NOT NULL,
    entry_hash BLOB NOT NULL,
    record BLOB NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS records_newest ON records (ts DESC, key);
CREATE TABLE IF NOT EXISTS chain_links (
    grant_id BLOB NOT NULL,
    key TEXT NOT NULL,
    PRIMARY KEY (grant_id, key)
) WITHOUT ROWID;
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


@dataclass(frozen=True)
class StoredRecord:
    """A record as stored: its wire bytes, LWW columns and the grants of its chain."""

    key: str
    ts: int
    entry_hash: bytes
    record: bytes
    chain: tuple[tuple[bytes, bytes], ...] = ()
    """(grant id, signed grant bytes) for every grant on the record's chain."""


@dataclass
class Batch:
    """One atomic change: records put or removed, revocations and grants added, meta set."""

    put: list[StoredRecord] = field(default_factory=list)
    remove: list[str] = field(default_factory=list)
    revocations: list[tuple[bytes, bytes]] = field(default_factory=list)
    meta: dict[str, bytes] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.put or self.remove or self.revocations or self.meta)


class Store:
    """One node's SQLite database."""

    def __init__(self, path: Path | str, *, synchronous: str = "FULL") -> None:
        self.path = Path(path)
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(f"PRAGMA synchronous={synchronous}")
        self._db.executescript(_SCHEMA)

    def close(self) -> None:
        """Close the database (a later open recovers anything the WAL holds)."""
        self._db.close()

    def apply(self, batch: Batch) -> None:
        """Write `batch` in one transaction: all of it lands, or (on any failure) none of it."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            for key in batch.remove:
                self._remove(key)
            for rec in batch.put:
                self._remove(rec.key)
                db.execute(
                    "INSERT INTO records (key, ts, entry_hash, record) VALUES (?, ?, ?, ?)",
                    (rec.key, rec.ts, rec.entry_hash, rec.record),
                )
                for grant_id, grant in rec.chain:
                    db.execute(
                        "INSERT OR IGNORE INTO grants (grant_id, grant) VALUES (?, ?)",
                        (grant_id, grant),
                    )
                    db.execute(
                        "INSERT OR IGNORE INTO chain_links (grant_id, key) VALUES (?, ?)",
                        (grant_id, rec.key),
                    )
            db.executemany(
                "INSERT OR IGNORE INTO revocations (grant_id, revocation) VALUES (?, ?)",
                batch.revocations,
            )
            db.executemany(
                "INSERT OR REPLACE INTO meta (name, value) VALUES (?, ?)", batch.meta.items()
            )
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    def _remove(self, key: str) -> None:
        self._db.execute("DELETE FROM records WHERE key = ?", (key,))
        self._db.execute("DELETE FROM chain_links WHERE key = ?", (key,))

    def record(self, key: str) -> bytes | None:
        """The stored record bytes of `key`, or None."""
        row = self._db.execute("SELECT record FROM records WHERE key = ?", (key,)).fetchone()
        return None if row is None else bytes(row[0])

    def records(self) -> Iterator[StoredRecord]:
        """Every stored record, newest first (the design's sync order), without chains."""
        query = "SELECT key, ts, entry_hash, record FROM records ORDER BY ts DESC, key"
        for key, ts, entry_hash, record in self._db.execute(query):
            yield StoredRecord(key, ts, bytes(entry_hash), bytes(record))

    def keys_using(self, grant_id: bytes) -> list[str]:
        """Keys whose stored record's chain contains the grant."""
        rows = self._db.execute("SELECT key FROM chain_links WHERE grant_id = ?", (grant_id,))
        return sorted(row[0] for row in rows)

    def grant(self, grant_id: bytes) -> bytes | None:
        """A stored signed grant by id."""
        row = self._db.execute("SELECT grant FROM grants WHERE grant_id = ?", (grant_id,))
        found = row.fetchone()
        return None if found is None else bytes(found[0])

    def revocations(self) -> dict[bytes, bytes]:
        """Every stored revocation, by revoked grant id."""
        rows = self._db.execute("SELECT grant_id, revocation FROM revocations")
        return {bytes(grant_id): bytes(blob) for grant_id, blob in rows}

    def meta(self, name: str) -> bytes | None:
        """A named metadata value."""
        row = self._db.execute("SELECT value FROM meta WHERE name = ?", (name,)).fetchone()
        return None if row is None else bytes(row[0])

    def count(self) -> int:
        """How many records are stored (tombstones included)."""
        return int(self._db.execute("SELECT COUNT(*) FROM records").fetchone()[0])

    def integrity_ok(self) -> bool:
        """SQLite's own integrity check of the database file."""
        return bool(self._db.execute("PRAGMA integrity_check").fetchone()[0] == "ok")
