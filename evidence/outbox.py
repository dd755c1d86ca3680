"""The hall's bookkeeping beside the chain, in the same SQLite file (own tables, own connection).

A table node's **stream** is its table's ``event`` and ``ruling`` rows in chain order; a row's
*position* (``pos``, 0, 1, 2, …) is its index in that stream. Rows are append-only, so a
position never changes and is recomputed from the chain alone (a resend needs no index).

Node side, ``Outbox``: ``take_new`` moves freshly chained rows into ``hall_outbox`` (what the
broker has not acknowledged yet) with their positions; ``ack`` removes one on PUBACK; a
restarted publisher re-sends ``pending()`` in order. The chain stays the source of truth.

Desk side, ``Ledger``: ``hall_received`` keeps, per table, every position the desk stored with
the node's row id, time and hash, so the desk can later recompute each node row's hash from
its own copy of the data and check that consecutive node rows link (``check_table``).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evidence.chain import canonical_json, link_hash, sha256_bytes
from evidence.schema import DB_NAME
from evidence.store import immediate, row_body
from evidence.verify import Problem, VerifyReport

STREAM_KINDS = ("event", "ruling")

OUTBOX_SCHEMA = """
CREATE TABLE IF NOT EXISTS hall_cursor (
    table_id TEXT PRIMARY KEY,
    last_row INTEGER NOT NULL,
    next_pos INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS hall_outbox (
    table_id TEXT NOT NULL,
    pos      INTEGER NOT NULL,
    row_id   INTEGER NOT NULL,
    PRIMARY KEY (table_id, pos)
);
"""

LEDGER_SCHEMA = """
CREATE TABLE IF NOT EXISTS hall_received (
    table_id  TEXT NOT NULL,
    pos       INTEGER NOT NULL,
    kind      TEXT NOT NULL,
    ref       TEXT NOT NULL,
    node_row  INTEGER NOT NULL,
    node_at   REAL NOT NULL,
    node_prev TEXT NOT NULL,
    node_hash TEXT NOT NULL,
    PRIMARY KEY (table_id, pos)
);
CREATE INDEX IF NOT EXISTS hall_received_row ON hall_received(table_id, node_row);
"""


@dataclass(frozen=True)
class StreamItem:
    """One stream entry as the node chained it (``body`` is the exact hashed text)."""

    pos: int
    row_id: int
    kind: str
    table: str
    seq: int | None
    body: str
    prev: str
    hash: str

    @property
    def data(self) -> dict[str, Any]:
        return json.loads(self.body)["data"]  # type: ignore[no-any-return]

    @property
    def at(self) -> float:
        return float(json.loads(self.body)["at"])


class _Db:
    """A connection of our own to the store's file (WAL lets it sit beside the store's)."""

    def __init__(self, data_dir: str | Path, schema: str) -> None:
        self.path = Path(data_dir) / DB_NAME
        self._lock = threading.RLock()
        self._db = sqlite3.connect(
            self.path, timeout=10.0, isolation_level=None, check_same_thread=False
        )
        self._db.execute("PRAGMA busy_timeout=10000")
        # bookkeeping only: a lost write re-sends or re-receives an item, never loses one
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(schema)

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        with immediate(self._db, self._lock) as db:
            yield db

    def read(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock:
            return self._db.execute(sql, params).fetchall()

    def close(self) -> None:
        with self._lock:
            self._db.close()


_ROW_COLS = "id, kind, table_id, seq, body, prev, hash"
_KINDS_SQL = "kind IN ('event', 'ruling')"


class Outbox:
    """The node's outbox for one table (see the module docstring)."""

    def __init__(self, data_dir: str | Path, table: str) -> None:
        self.table = table
        self._db = _Db(data_dir, OUTBOX_SCHEMA)

    def close(self) -> None:
        self._db.close()

    def _cursor(self, db: sqlite3.Connection) -> tuple[int, int]:
        row = db.execute(
            "SELECT last_row, next_pos FROM hall_cursor WHERE table_id=?", (self.table,)
        ).fetchone()
        return (int(row[0]), int(row[1])) if row else (0, 0)

    def take_new(self) -> int:
        """Queue the stream rows chained since the last call; returns how many."""
        with self._db.write() as db:
            last_row, next_pos = self._cursor(db)
            rows = db.execute(
                f"SELECT id FROM chain WHERE table_id=? AND id>? AND {_KINDS_SQL} ORDER BY id",
                (self.table, last_row),
            ).fetchall()
            if not rows:
                return 0
            db.executemany(
                "INSERT INTO hall_outbox(table_id, pos, row_id) VALUES (?,?,?)",
                [(self.table, next_pos + i, int(r[0])) for i, r in enumerate(rows)],
            )
            db.execute(
                "INSERT OR REPLACE INTO hall_cursor(table_id, last_row, next_pos) VALUES (?,?,?)",
                (self.table, int(rows[-1][0]), next_pos + len(rows)),
            )
        return len(rows)

    def head(self) -> int:
        """The highest position in the stream so far (-1: none)."""
        rows = self._db.read("SELECT next_pos FROM hall_cursor WHERE table_id=?", (self.table,))
        return int(rows[0][0]) - 1 if rows else -1

    def pending(self, after_pos: int = -1, limit: int = 10_000) -> list[StreamItem]:
        """Unacknowledged items after ``after_pos``, in order."""
        found = self._db.read(
            f"SELECT o.pos, {', '.join('c.' + c.strip() for c in _ROW_COLS.split(','))}"
            " FROM hall_outbox o JOIN chain c ON c.id = o.row_id"
            " WHERE o.table_id=? AND o.pos>? ORDER BY o.pos LIMIT ?",
            (self.table, after_pos, limit),
        )
        return [_item(r[0], r[1:]) for r in found]

    def count(self) -> int:
        rows = self._db.read("SELECT COUNT(*) FROM hall_outbox WHERE table_id=?", (self.table,))
        return int(rows[0][0])

    def ack(self, *positions: int) -> None:
        """The broker acknowledged these positions: they leave the outbox."""
        with self._db.write() as db:
            db.executemany(
                "DELETE FROM hall_outbox WHERE table_id=? AND pos=?",
                [(self.table, p) for p in positions],
            )

    def since(self, pos: int, limit: int = 10_000) -> list[StreamItem]:
        """Stream items from ``pos`` on (up to the head), straight from the chain: a resend."""
        pos = max(0, pos)
        count = min(limit, self.head() + 1 - pos)
        if count <= 0:
            return []
        found = self._db.read(
            f"SELECT {_ROW_COLS} FROM chain WHERE table_id=? AND {_KINDS_SQL}"
            " ORDER BY id LIMIT ? OFFSET ?",
            (self.table, count, pos),
        )
        return [_item(pos + i, r) for i, r in enumerate(found)]


def _item(pos: int, r: tuple[Any, ...]) -> StreamItem:
    return StreamItem(
        pos=int(pos),
        row_id=int(r[0]),
        kind=str(r[1]),
        table=str(r[2]),
        seq=r[3],
        body=str(r[4]),
        prev=str(r[5]),
        hash=str(r[6]),
    )


def ruling_key(ruling: dict[str, Any]) -> str:
    """The key the store files a ruling under (its content hash): how the desk finds it again."""
    return sha256_bytes(canonical_json(ruling).encode())


class Ledger:
    """The desk's record of what each table's node chained, position by position."""

    def __init__(self, data_dir: str | Path) -> None:
        self._db = _Db(data_dir, LEDGER_SCHEMA)

    def close(self) -> None:
        self._db.close()

    def heads(self) -> dict[str, int]:
        """Per table, the last position stored (positions are stored without gaps)."""
        rows = self._db.read("SELECT table_id, MAX(pos) FROM hall_received GROUP BY table_id")
        return {str(t): int(p) for t, p in rows}

    def record(
        self, table: str, pos: int, kind: str, ref: str, row: int, at: float, prev: str, hsh: str
    ) -> None:
        with self._db.write() as db:
            db.execute(
                "INSERT OR IGNORE INTO hall_received VALUES (?,?,?,?,?,?,?,?)",
                (table, pos, kind, ref, row, at, prev, hsh),
            )

    def node_hash(self, table: str, row: int) -> str | None:
        """The hash of the node's row ``row`` of ``table``, if the desk received it."""
        found = self._db.read(
            "SELECT node_hash FROM hall_received WHERE table_id=? AND node_row=?", (table, row)
        )
        return str(found[0][0]) if found else None

    def last_node_row(self, table: str) -> int:
        """The highest node row id received for ``table`` (0: none)."""
        found = self._db.read("SELECT MAX(node_row) FROM hall_received WHERE table_id=?", (table,))
        return int(found[0][0] or 0) if found else 0

    def check_table(self, table: str) -> VerifyReport:
        """Recompute every node row hash of ``table`` from the desk's own stored copy, and check
        that node rows with consecutive ids link (a node's store holds one table, so its
        stream rows are mostly consecutive; media rows between them break no claim)."""
        report = VerifyReport(source=f"hall table {table}")
        received = self._db.read(
            "SELECT pos, kind, ref, node_row, node_at, node_prev, node_hash FROM hall_received"
            " WHERE table_id=? ORDER BY pos",
            (table,),
        )
        last: tuple[int, str] | None = None
        for n, (pos, kind, ref, node_row, node_at, prev, hsh) in enumerate(received):
            report.rows += 1
            where = f"table {table} pos {pos} ({kind} {ref[:12]})"
            if pos != n:
                report.problems.append(Problem(where, f"position gap before it (expected {n})"))
            if kind == "event":
                body_rows = self._db.read(
                    "SELECT body FROM chain WHERE kind='event' AND table_id=? AND seq=?",
                    (table, int(ref)),
                )
                seq: int | None = int(ref)
            else:
                body_rows = self._db.read(
                    "SELECT body FROM chain WHERE kind='ruling' AND table_id=? AND key=?",
                    (table, ref),
                )
                seq = None
            if not body_rows:
                report.problems.append(Problem(where, "not in the desk's store"))
                continue
            data = json.loads(body_rows[0][0])["data"]
            if link_hash(prev, row_body(kind, table, seq, node_at, data)) != hsh:
                report.problems.append(Problem(where, "differs from what the node chained"))
            if last is not None and node_row == last[0] + 1 and prev != last[1]:
                report.problems.append(Problem(where, "does not link to the node row before it"))
            last = (int(node_row), str(hsh))
        return report
