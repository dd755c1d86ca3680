"""SQLite schema of the evidence store (one database file per table node).

``chain`` is the append-only, hash-linked log: record events, rulings, referee actions, media
registrations and prune notices all go there, in one order. Triggers make UPDATE and DELETE
fail, so even a bug in our own code cannot rewrite history. ``media`` is a plain, mutable index
of the files on disk (the chain, not the index, is what ``verify`` trusts).
"""

from __future__ import annotations

SCHEMA = """
CREATE TABLE IF NOT EXISTS chain (
    id       INTEGER PRIMARY KEY,
    kind     TEXT NOT NULL,
    table_id TEXT NOT NULL,
    seq      INTEGER,
    key      TEXT,
    body     TEXT NOT NULL,
    prev     TEXT NOT NULL,
    hash     TEXT NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS chain_event_seq ON chain(table_id, seq) WHERE kind = 'event';
CREATE INDEX IF NOT EXISTS chain_kind_key ON chain(table_id, kind, key);
CREATE TRIGGER IF NOT EXISTS chain_no_update BEFORE UPDATE ON chain
BEGIN SELECT RAISE(ABORT, 'chain is append-only'); END;
CREATE TRIGGER IF NOT EXISTS chain_no_delete BEFORE DELETE ON chain
BEGIN SELECT RAISE(ABORT, 'chain is append-only'); END;
CREATE TABLE IF NOT EXISTS media (
    sha256    TEXT PRIMARY KEY,
    relpath   TEXT NOT NULL,
    size      INTEGER NOT NULL,
    created   REAL NOT NULL,
    kind      TEXT NOT NULL,
    name      TEXT,
    table_id  TEXT,
    seq       INTEGER,
    pruned_at REAL
);
"""

DB_NAME = "evidence.sqlite3"
MEDIA_DIR = "media"
