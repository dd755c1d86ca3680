"""``EvidenceStore``: append-only, hash-chained SQLite (WAL) plus content-addressed media files.

The table node calls two things while a hand is played::

    seq = store.append_event(table, event)     # returns once the event is durable (fsync'd)
    sha = store.add_media(jpeg_bytes_or_path)  # the id to put in an event's ``evidence``

An event that ``append_event`` acknowledged survives SIGKILL or power loss (WAL with
``synchronous=FULL``). Re-sending an already stored event with the same content is a no-op that
returns its seq, so a restarted node can replay its outbox without duplicating anything.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sqlite3
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from engine.record import Event, RecordError, validate_event
from evidence.chain import GENESIS, canonical_json, link_hash, sha256_bytes, sha256_file
from evidence.keys import NODE_KEY, key_path
from evidence.lock import TableLock
from evidence.schema import DB_NAME, MEDIA_DIR, SCHEMA
from evidence.signing import load_or_create_key, read_head, sign_head, write_head

log = logging.getLogger(__name__)

#: The one default for every command's ``--data``: ``./data`` (relative to where it runs),
#: overridden by the ``TABLESCAN_DATA`` environment variable.
DEFAULT_DATA_DIR = os.environ.get("TABLESCAN_DATA", "data")

KINDS = ("event", "ruling", "action", "media", "prune")


class StoreError(ValueError):
    """A write the store refuses (bad event, seq gap, conflicting re-send), with the reason."""


@dataclass(frozen=True)
class Row:
    """One chained row. ``data`` is the payload (the event, ruling, action...)."""

    id: int
    kind: str
    table: str
    seq: int | None
    at: float
    data: dict[str, Any]
    prev: str
    hash: str
    body: str  # the exact hashed text

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "table": self.table,
            "seq": self.seq,
            "at": self.at,
            "data": self.data,
            "prev": self.prev,
            "hash": self.hash,
        }


@contextmanager
def immediate(db: sqlite3.Connection, lock: threading.RLock) -> Iterator[sqlite3.Connection]:
    """One ``BEGIN IMMEDIATE`` transaction under ``lock``: SQLite's write lock is taken before
    anything is read, committed on success, rolled back on any exception (re-raised)."""
    with lock:
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")


def row_body(kind: str, table: str, seq: int | None, at: float, data: Mapping[str, Any]) -> str:
    """The canonical text a row's hash covers: every column that means something."""
    return canonical_json({"kind": kind, "table": table, "seq": seq, "at": at, "data": data})


class EvidenceStore:
    """One node's store under ``data_dir``: ``evidence.sqlite3`` and ``media/``.

    Thread-safe (one connection behind a lock); several processes may share the directory
    (SQLite WAL: the node writes while the dashboard reads).
    """

    def __init__(
        self,
        data_dir: str | os.PathLike[str],
        *,
        clock: Callable[[], float] = time.time,
        durable: bool = True,
        sign_every_s: float = 0.0,
        key_dir: str | os.PathLike[str] | None = None,
        key_name: str = NODE_KEY,
    ) -> None:
        """``sign_every_s``: sign the chain's end at most that often (and at close); 0 signs
        every commit, as a table node does. A desk's replica store, taking a whole hall's
        rows, signs its own end once a second instead of once a row. ``key_dir``/``key_name``:
        the signing key (``evidence.keys``: outside the data folder by default)."""
        self.data_dir = Path(data_dir)
        self.media_dir = self.data_dir / MEDIA_DIR
        self.media_dir.mkdir(parents=True, exist_ok=True)
        self.db_path = self.data_dir / DB_NAME
        self._clock = clock
        self._lock = threading.RLock()
        self._db = sqlite3.connect(
            self.db_path, timeout=10.0, isolation_level=None, check_same_thread=False
        )
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
        self._db.execute("PRAGMA busy_timeout=10000")
        self._db.executescript(SCHEMA)
        self.rejected = 0  # writes refused (bad input), for the health page
        self._table_locks: dict[str, TableLock] = {}
        self.key_path = key_path(key_name, key_dir)
        self._signer: Ed25519PrivateKey | None = None  # made on the first write
        self._sign_every_s = sign_every_s
        self._signed_at = 0.0  # monotonic time of the last signature
        self._unsigned = False  # rows committed since the last signature

    @staticmethod
    def exists(data_dir: str | os.PathLike[str]) -> bool:
        """Whether ``data_dir`` holds a store (without creating one)."""
        return (Path(data_dir) / DB_NAME).exists()

    # -- plumbing ---------------------------------------------------------------------------

    def close(self) -> None:
        with self._lock:
            if self._unsigned:
                self._sign_end()
            self._db.close()
            for lock in self._table_locks.values():
                lock.release()
            self._table_locks.clear()

    def lock_table(self, table: str) -> None:
        """Become the one node recording ``table`` in this data folder, until ``close``.

        Raises ``TableLocked`` naming the holder (pid, host, since) when another live process
        has it; a killed holder's lock is gone with it. Every table node takes this before it
        reads or writes the table's record (``tablescan.store_hooks``)."""
        _check_table(table)
        with self._lock:
            if table not in self._table_locks:
                self._table_locks[table] = TableLock(self.data_dir, table).acquire()

    def __enter__(self) -> EvidenceStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One IMMEDIATE transaction: takes SQLite's write lock before reading the chain tip."""
        with self._lock:
            with immediate(self._db, self._lock) as db:
                yield db
            self._publish_head()

    def _publish_head(self) -> None:
        """Sign the chain's new end (last row id and hash) into ``DATA/head.json``, after
        the rows are durable: a signed head never names a row that could still be lost."""
        now = time.monotonic()
        if self._sign_every_s and now - self._signed_at < self._sign_every_s:
            self._unsigned = True  # signed at the next commit due, at close or on request
            return
        self._sign_end()

    def _sign_end(self) -> None:
        self._signed_at, self._unsigned = time.monotonic(), False
        row = self._db.execute("SELECT id, hash FROM chain ORDER BY id DESC LIMIT 1").fetchone()
        if row is None:
            return
        if self._signer is None:
            self._signer = load_or_create_key(self.key_path)
        write_head(self.data_dir, sign_head(self._signer, int(row[0]), str(row[1])))

    def signed_head(self) -> dict[str, Any] | None:
        """The latest signed head (what bundles carry). Only rows this process appended and
        has not signed yet (``sign_every_s``) are signed now: a head is never made up for a
        chain end someone else left unsigned (a cut tail, a deleted ``head.json``)."""
        with self._lock:
            if self._unsigned:
                self._sign_end()
            return read_head(self.data_dir)

    def signing_key(self) -> Ed25519PrivateKey:
        if self._signer is None:
            self._signer = load_or_create_key(self.key_path)
        return self._signer

    def _tip(self) -> str:
        row = self._db.execute("SELECT hash FROM chain ORDER BY id DESC LIMIT 1").fetchone()
        return str(row[0]) if row else GENESIS

    def _insert(
        self, kind: str, table: str, seq: int | None, key: str | None, data: Mapping[str, Any]
    ) -> int:
        at = round(self._clock(), 6)
        body = row_body(kind, table, seq, at, data)
        prev = self._tip()
        cur = self._db.execute(
            "INSERT INTO chain(kind, table_id, seq, key, body, prev, hash) VALUES (?,?,?,?,?,?,?)",
            (kind, table, seq, key, body, prev, link_hash(prev, body)),
        )
        return int(cur.lastrowid or 0)

    def _refuse(self, message: str) -> StoreError:
        self.rejected += 1
        log.warning("store refused a write: %s", message)
        return StoreError(message)

    # -- writes -------------------------------------------------------------------------------

    def append_event(self, table: str, event: dict[str, Any]) -> int:
        """Append one match-record event for ``table``; return its seq once it is durable.

        The event is validated against the match record schema (``engine.record``) first.
        ``event["seq"]`` may be absent (the store assigns the next one) or present: then it must
        be the next seq, or an already stored seq with identical content (an idempotent
        re-send after a crash). Anything else is a ``StoreError`` naming the table and seq.
        """
        _check_table(table)
        if not isinstance(event, dict):
            raise self._refuse(f"table {table}: an event must be a JSON object")
        with self._write() as db:
            last = self._last_seq(db, table)
            seq = event.get("seq")
            if seq is None:
                seq = last + 1
                event = {**event, "seq": seq}
            try:
                validate_event(event)  # returns the same dict
                canonical_json(event)
            except (RecordError, TypeError, ValueError) as e:
                raise self._refuse(f"table {table}: {e}") from None
            if not isinstance(seq, int) or isinstance(seq, bool) or seq < 0:
                raise self._refuse(f"table {table}: seq {seq!r} is not an integer >= 0")
            if seq <= last:
                stored = db.execute(
                    "SELECT body FROM chain WHERE kind='event' AND table_id=? AND seq=?",
                    (table, seq),
                ).fetchone()
                if stored and json.loads(stored[0])["data"] == event:
                    return seq
                raise self._refuse(
                    f"table {table}: seq {seq} is already stored with different content"
                )
            if seq != last + 1:
                raise self._refuse(f"table {table}: seq {seq} leaves a gap after seq {last}")
            self._insert("event", table, seq, None, event)
        return seq

    def append_ruling(self, table: str, ruling: Mapping[str, Any]) -> bool:
        """Chain a ruling the referee issued; the same ruling twice is stored once.

        Returns True when it was new. Rulings are what retention protects.
        """
        _check_table(table)
        key = sha256_bytes(canonical_json(ruling).encode())
        with self._write() as db:
            if db.execute(
                "SELECT 1 FROM chain WHERE table_id=? AND kind='ruling' AND key=?", (table, key)
            ).fetchone():
                return False
            self._insert("ruling", table, None, key, ruling)
        return True

    def append_action(self, table: str, action: dict[str, Any]) -> int:
        """Chain a referee action (a decision, a note, a dispute, a calibration); returns row id.

        ``action`` should carry ``action`` (what) and ``by`` (who); the row time is when.
        """
        _check_table(table)
        if not isinstance(action.get("action"), str):
            raise self._refuse(f"table {table}: an action needs a string 'action'")
        with self._write():
            return self._insert("action", table, None, None, action)

    def add_media(
        self,
        source: bytes | str | os.PathLike[str],
        *,
        kind: str = "frame",
        suffix: str = ".jpg",
        table: str = "",
        seq: int | None = None,
        name: str | None = None,
    ) -> str:
        """Store an evidence file (bytes or a path, copied) and chain its sha256; return it.

        Content-addressed: the same bytes twice are one file and one chain row. ``table``/``seq``
        tie a file to the event it shows (a ruling that cites that seq protects it).
        """
        if isinstance(source, bytes | bytearray):
            data_sha = sha256_bytes(bytes(source))
            size = len(source)
        else:
            data_sha = sha256_file(source)
            size = os.path.getsize(source)
        if not suffix.startswith(".") or "/" in suffix or len(suffix) > 8:
            raise self._refuse(f"media suffix {suffix!r}: expected something like '.jpg'")
        relpath = f"{data_sha[:2]}/{data_sha}{suffix}"
        target = self.media_dir / relpath
        with self._lock:
            known = self._db.execute(
                "SELECT pruned_at FROM media WHERE sha256=?", (data_sha,)
            ).fetchone()
            if known and known[0] is None and target.exists():
                return data_sha
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=target.parent, suffix=".part")
            with os.fdopen(fd, "wb") as f:
                if isinstance(source, bytes | bytearray):
                    f.write(source)
                else:
                    with open(source, "rb") as src:
                        shutil.copyfileobj(src, f)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, target)
            with self._write() as db:
                meta = {"sha256": data_sha, "size": size, "kind": kind, "file": relpath}
                if name:
                    meta["name"] = name
                if seq is not None:
                    meta["seq"] = seq
                self._insert("media", table, None, data_sha, meta)
                db.execute(
                    "INSERT OR REPLACE INTO media(sha256, relpath, size, created, kind, name,"
                    " table_id, seq, pruned_at) VALUES (?,?,?,?,?,?,?,?,NULL)",
                    (data_sha, relpath, size, self._clock(), kind, name, table, seq),
                )
        return data_sha

    def record_prune(self, shas: list[str], reason: dict[str, Any], now: float) -> None:
        """Chain a prune notice and mark the files pruned in the index (files go after)."""
        with self._write() as db:
            self._insert("prune", "", None, None, {"media": shas, "reason": reason})
            db.executemany("UPDATE media SET pruned_at=? WHERE sha256=?", [(now, s) for s in shas])

    # -- reads --------------------------------------------------------------------------------

    @staticmethod
    def _last_seq(db: sqlite3.Connection, table: str) -> int:
        row = db.execute(
            "SELECT MAX(seq) FROM chain WHERE kind='event' AND table_id=?", (table,)
        ).fetchone()
        return -1 if row[0] is None else int(row[0])

    def last_seq(self, table: str) -> int:
        with self._lock:
            return self._last_seq(self._db, table)

    def tables(self) -> list[str]:
        with self._lock:
            rows = self._db.execute(
                "SELECT DISTINCT table_id FROM chain WHERE kind='event' ORDER BY table_id"
            ).fetchall()
        return [str(r[0]) for r in rows]

    def rows(
        self, *, after_id: int = 0, table: str | None = None, kind: str | None = None
    ) -> list[Row]:
        """Chained rows in chain order, optionally one table's or one kind's."""
        sql = "SELECT id, kind, table_id, seq, body, prev, hash FROM chain WHERE id > ?"
        params: list[Any] = [after_id]
        if table is not None:
            sql += " AND table_id = ?"
            params.append(table)
        if kind is not None:
            sql += " AND kind = ?"
            params.append(kind)
        with self._lock:
            fetched = self._db.execute(sql + " ORDER BY id", params).fetchall()
        return [_row(r) for r in fetched]

    def events(self, table: str, after_seq: int = -1) -> list[Event]:
        """The table's match record (events in seq order) after ``after_seq``."""
        with self._lock:
            fetched = self._db.execute(
                "SELECT body FROM chain WHERE kind='event' AND table_id=? AND seq>? ORDER BY seq",
                (table, after_seq),
            ).fetchall()
        return [json.loads(r[0])["data"] for r in fetched]

    def media_path(self, sha: str) -> Path | None:
        """Where a live (not pruned) media file is, or None."""
        with self._lock:
            row = self._db.execute(
                "SELECT relpath, pruned_at FROM media WHERE sha256=?", (sha,)
            ).fetchone()
        if not row or row[1] is not None:
            return None
        path = self.media_dir / str(row[0])
        return path if path.exists() else None

    def media_index(self) -> list[dict[str, Any]]:
        with self._lock:
            fetched = self._db.execute(
                "SELECT sha256, relpath, size, created, kind, name, table_id, seq, pruned_at"
                " FROM media ORDER BY created"
            ).fetchall()
        cols = ("sha256", "relpath", "size", "created", "kind", "name", "table", "seq", "pruned_at")
        return [dict(zip(cols, r, strict=True)) for r in fetched]

    def media_of(self, table: str, kind: str) -> list[dict[str, Any]]:
        """A table's live (not pruned) media of one kind (``clip``), oldest first: the
        dashboard lists a table's clips without reading the whole media index."""
        with self._lock:
            fetched = self._db.execute(
                "SELECT sha256, relpath, size, created, name, seq FROM media"
                " WHERE table_id=? AND kind=? AND pruned_at IS NULL ORDER BY created",
                (table, kind),
            ).fetchall()
        cols = ("sha256", "relpath", "size", "created", "name", "seq")
        return [dict(zip(cols, r, strict=True)) for r in fetched]

    def resolve_media(self, evidence_id: str) -> str | None:
        """An event's ``evidence`` value → sha256. Accepts a sha256, ``sha256:<hex>``, a file
        name given to ``add_media``, or a table node's frame id whose files are named
        ``<id>-after`` / ``<id>-before`` (the after frame is preferred)."""
        ident = evidence_id.removeprefix("sha256:")
        with self._lock:
            for candidate in (ident, f"{ident}-after", f"{ident}-before"):
                row = self._db.execute(
                    "SELECT sha256 FROM media WHERE sha256=? OR name=? LIMIT 1",
                    (candidate, candidate),
                ).fetchone()
                if row:
                    return str(row[0])
        return None


def _row(r: tuple[Any, ...]) -> Row:
    body = json.loads(r[4])
    return Row(
        id=int(r[0]),
        kind=str(r[1]),
        table=str(r[2]),
        seq=r[3],
        at=float(body.get("at", 0.0)),
        data=body.get("data", {}),
        prev=str(r[5]),
        hash=str(r[6]),
        body=str(r[4]),
    )


def _check_table(table: str) -> None:
    if (
        not isinstance(table, str)
        or not table
        or len(table) > 64
        or table.startswith(".")
        or not all(c.isalnum() or c in "-_." for c in table)
    ):
        raise StoreError(
            f"table id {table!r}: use 1-64 letters, digits, '-', '_' or '.' (not first)"
        )
