"""The desk's witness log: every signed head a node sent, kept by a second party.

A node's key proves nothing against whoever holds the node's disk: he can rewrite the record
and sign it again. What he cannot rewrite is what someone else already saw. So the desk pins
each node's public key the first time (``enrol``: from the table's set-up, or on first sight,
shown on the hall page with its fingerprint for a referee to confirm), and appends every new
head it receives, with its own receive time, to ``DESK_DATA/witness.jsonl``: one JSON object a
line, each chained to the one before (``prev``: sha256 of the previous line) and signed with the
desk's own key (``desk.key``, ``evidence.keys``). This is the shape of Certificate Transparency
and Sigstore's Rekor (an append-only log a second party keeps), small enough for one hall.

Each head is checked on arrival against the pinned key, the heads already witnessed (a head
that shortens or rewrites what was witnessed is an ``alarm``) and the node rows the desk holds
(``evidence.outbox.Ledger``: the node's row id and hash of every event and ruling). ``verify
--desk`` later checks a bundle or store against the same log (``check_report``), and
``witnessed`` answers "what did the desk witness for table T up to row N".
"""

from __future__ import annotations

import fcntl
import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from evidence.chain import GENESIS, canonical_json, sha256_bytes
from evidence.keys import DESK_KEY, key_path
from evidence.schema import DB_NAME
from evidence.signing import SignatureError, check, key_id, load_or_create_key, sign
from evidence.verify import Problem, VerifyReport

LOG_NAME = "witness.jsonl"
ENTRY_FORMAT = "tablescan-witness/1"
MAX_LINE = 64 << 10  # one entry; a longer line is damage, not an entry


class WitnessError(ValueError):
    """A witness log that cannot be read or does not check, with where."""


@dataclass
class TableWitness:
    """What the log says of one table: its pinned key and the heads witnessed."""

    table: str
    key: str | None = None  # pinned public key (hex)
    enrolled_by: str = ""
    enrolled_at: float = 0.0
    heads: list[dict[str, Any]] = field(default_factory=list)  # accepted: rows, tip, at, received
    alarms: list[dict[str, Any]] = field(default_factory=list)

    def last(self) -> dict[str, Any] | None:
        return self.heads[-1] if self.heads else None

    def view(self, upto: int | None = None) -> dict[str, Any]:
        heads = [h for h in self.heads if upto is None or h["rows"] <= upto]
        return {
            "table": self.table,
            "key": self.key,
            "key_id": key_id(self.key) if self.key else None,
            "enrolled_by": self.enrolled_by,
            "enrolled_at": self.enrolled_at,
            "heads": heads,
            "last": heads[-1] if heads else None,
            "alarms": self.alarms,
        }


def read_log(desk_dir: str | os.PathLike[str]) -> tuple[dict[str, TableWitness], str | None]:
    """Every table's witness from the log, checking each line's signature, its link to the line
    before and that one desk key signed them all; returns (tables, the desk's public key).
    A half-written last line (a desk killed mid-write) is left out; any other damage is a
    WitnessError naming the line."""
    path = Path(desk_dir) / LOG_NAME
    tables: dict[str, TableWitness] = {}
    desk: str | None = None
    if not path.exists():
        return tables, None
    prev = GENESIS
    with open(path, "rb") as f:
        for n, raw in enumerate(f, 1):
            if not raw.endswith(b"\n"):
                break  # torn tail: never acknowledged
            if len(raw) > MAX_LINE:
                raise WitnessError(f"{path} line {n}: longer than {MAX_LINE} bytes")
            try:
                entry = check(json.loads(raw))
            except (ValueError, SignatureError) as e:
                raise WitnessError(f"{path} line {n}: does not check ({e})") from None
            if entry.get("prev") != prev or entry.get("n") != n:
                raise WitnessError(f"{path} line {n}: does not link to the line before it")
            if desk is None:
                desk = str(entry["key"])
            elif entry["key"] != desk:
                raise WitnessError(f"{path} line {n}: signed by another desk key")
            prev = sha256_bytes(raw.rstrip(b"\n"))
            _apply(tables, entry)
    return tables, desk


def _apply(tables: dict[str, TableWitness], entry: dict[str, Any]) -> None:
    table = str(entry.get("table"))
    tw = tables.setdefault(table, TableWitness(table))
    kind = entry.get("type")
    if kind == "enrol" and tw.key is None:
        tw.key, tw.enrolled_by = str(entry["node_key"]), str(entry.get("by", ""))
        tw.enrolled_at = float(entry["received_at"])
    elif kind == "confirm" and tw.key == entry["node_key"]:
        tw.enrolled_by = f"confirmed by {entry.get('by', '')}"
    elif kind == "head":
        head = entry["head"]
        tw.heads.append(
            {
                "rows": head["rows"],
                "tip": head["tip"],
                "at": head.get("at"),
                "received_at": entry["received_at"],
                "n": entry["n"],
            }
        )
    elif kind == "alarm":
        tw.alarms.append(
            {"why": entry["why"], "received_at": entry["received_at"], "n": entry["n"]}
        )


class WitnessLog:
    """The desk's side: pins keys, checks and appends heads (thread-safe; one writer)."""

    def __init__(
        self,
        desk_dir: str | os.PathLike[str],
        *,
        key_dir: str | os.PathLike[str] | None = None,
        clock: Any = time.time,
    ) -> None:
        self.dir = Path(desk_dir)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.path = self.dir / LOG_NAME
        self._key: Ed25519PrivateKey = load_or_create_key(key_path(DESK_KEY, key_dir))
        self._clock = clock
        self._lock = threading.Lock()
        self._truncate_torn_tail()
        self._reload()

    def _reload(self) -> None:
        """Read the log again (on start, and when another writer, ``tablescan witness
        enrol``, appended since)."""
        self.tables = read_log(self.dir)[0]
        self._n = sum(1 for _ in self._lines())
        self._prev = self._last_hash()
        self._size = self.path.stat().st_size if self.path.exists() else 0

    # -- the file ---------------------------------------------------------------------------

    def _lines(self) -> Iterator[bytes]:
        if self.path.exists():
            with open(self.path, "rb") as f:
                yield from f

    def _truncate_torn_tail(self) -> None:
        if not self.path.exists():
            return
        raw = self.path.read_bytes()
        if raw and not raw.endswith(b"\n"):
            with open(self.path, "r+b") as f:
                f.truncate(raw.rfind(b"\n") + 1)

    def _last_hash(self) -> str:
        last = b""
        for line in self._lines():
            last = line
        return sha256_bytes(last.rstrip(b"\n")) if last else GENESIS

    def _append(self, body: dict[str, Any]) -> dict[str, Any]:
        """One signed line, chained to the last, under an exclusive lock on the file."""
        with open(self.path, "ab") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            if f.seek(0, os.SEEK_END) != self._size:
                self._reload()
            self._n += 1
            entry = sign(
                self._key,
                {
                    **body,
                    "format": ENTRY_FORMAT,
                    "n": self._n,
                    "prev": self._prev,
                    "received_at": round(self._clock(), 6),
                },
            )
            line = canonical_json(entry).encode()
            f.write(line + b"\n")
            f.flush()
            os.fsync(f.fileno())
            self._size = f.tell()
        self._prev = sha256_bytes(line)
        _apply(self.tables, entry)
        return entry

    @property
    def desk_key_id(self) -> str:
        return key_id(sign(self._key, {})["key"])

    # -- what the desk does -----------------------------------------------------------------

    def enrol(self, table: str, public: str, by: str) -> None:
        """Pin ``table``'s node key (hex); a table already pinned to another key is refused."""
        bytes.fromhex(public)  # ValueError on anything but hex
        with self._lock:
            tw = self.tables.get(table)
            if tw is not None and tw.key is not None:
                if tw.key != public:
                    raise WitnessError(
                        f"table {table}: already pinned to key {key_id(tw.key)}, "
                        f"not {key_id(public)}"
                    )
                return
            self._append({"type": "enrol", "table": table, "node_key": public, "by": by})

    def confirm(self, table: str, fingerprint: str, by: str) -> None:
        """A referee read the key id off the table's set-up sheet: it must be the pinned one.
        A key pinned on first sight becomes "confirmed by <referee>"; another id is refused
        (and alarmed: the desk pinned a key the table's sheet does not know)."""
        with self._lock:
            tw = self.tables.get(table)
            if tw is None or tw.key is None:
                raise WitnessError(f"table {table}: no key pinned yet")
            if key_id(tw.key) != fingerprint:
                self._alarm(
                    table,
                    f"referee {by} read key {fingerprint} on the table's sheet, the desk pinned "
                    f"{key_id(tw.key)}",
                    None,
                )
                raise WitnessError(
                    f"table {table}: the sheet's key {fingerprint} is not the pinned key "
                    f"{key_id(tw.key)}"
                )
            self._append({"type": "confirm", "table": table, "node_key": tw.key, "by": by})

    def receive(self, table: str, head: Any, held: Held) -> str | None:
        """Check one signed head a node sent (``state["signed_head"]``) and witness it.
        ``held``: the node rows the desk holds for the table. Returns None when accepted (or
        already witnessed), else the alarm written to the log."""
        with self._lock:
            tw = self.tables.setdefault(table, TableWitness(table))
            try:
                head = check(head)
                rows, tip = head["rows"], head["tip"]
                if not isinstance(rows, int) or not isinstance(tip, str):
                    raise SignatureError("no rows or tip")
            except (SignatureError, KeyError, TypeError) as e:
                return self._alarm(table, f"signed head refused: {e}", head)
            if tw.key is None:  # first sight: pinned now, shown for a referee to confirm
                self._append(
                    {"type": "enrol", "table": table, "node_key": head["key"], "by": "first seen"}
                )
            if head["key"] != tw.key:
                return self._alarm(
                    table,
                    f"head signed by key {key_id(str(head['key']))}, not the pinned key "
                    f"{key_id(str(tw.key))}: refused",
                    head,
                )
            last = tw.last()
            if last is not None and last["rows"] == rows and last["tip"] == tip:
                return None  # the same head again (a heartbeat)
            why = contradiction(tw, rows, tip, held)
            if why:
                return self._alarm(table, why, head)
            self._append({"type": "head", "table": table, "head": head})
            return None

    def check_row(self, table: str, row: int, hsh: str) -> str | None:
        """A node row the desk just stored, against the heads it witnessed earlier."""
        with self._lock:
            tw = self.tables.get(table)
            if tw is None:
                return None
            for h in tw.heads:
                if h["rows"] == row and h["tip"] != hsh:
                    return self._alarm(
                        table,
                        f"row {row} differs from the head witnessed at "
                        f"{_when(h['received_at'])}: the node rewrote its chain",
                        None,
                    )
            return None

    def _alarm(self, table: str, why: str, head: Any) -> str:
        """Log an alarm; the same alarm as the table's last one (every heartbeat of a forged
        state) is not written again."""
        tw = self.tables.get(table)
        if tw is None or not tw.alarms or tw.alarms[-1]["why"] != why:
            self._append({"type": "alarm", "table": table, "why": why, "head": head})
        return why


class Held(Protocol):
    """The node rows the desk holds for one table: the hash at a row id, the last row id."""

    def hash_at(self, row: int) -> str | None: ...

    def last_row(self) -> int: ...


class HeldRows:
    def __init__(self, rows: dict[int, str]) -> None:
        self.rows = rows

    def hash_at(self, row: int) -> str | None:
        return self.rows.get(row)

    def last_row(self) -> int:
        return max(self.rows, default=0)


def contradiction(tw: TableWitness, rows: int, tip: str, held: Held) -> str | None:
    """Why a chain end (rows, tip) contradicts what the desk witnessed or holds, or None."""
    last = tw.last()
    if last is not None and rows < last["rows"]:
        return (
            f"ends at row {rows}, before row {last['rows']} the desk witnessed at "
            f"{_when(last['received_at'])}: the chain was cut or rolled back"
        )
    for h in tw.heads:
        if h["rows"] == rows and h["tip"] != tip:
            return (
                f"row {rows} differs from the head witnessed at {_when(h['received_at'])}: "
                "the chain was rewritten"
            )
    at = held.hash_at(rows)
    if at is not None and at != tip:
        return f"row {rows} differs from the row the desk holds: the chain was rewritten"
    if held.last_row() > rows:
        return (
            f"ends at row {rows}, but the desk holds the node's row {held.last_row()}: "
            "the chain was cut"
        )
    return None


def _when(at: Any) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(at)))


def held_rows(desk_dir: str | os.PathLike[str], table: str) -> dict[int, str]:
    """The node row id → hash of every row the desk received for ``table`` (its Ledger)."""
    db_path = Path(desk_dir) / DB_NAME
    if not db_path.exists():
        return {}
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    try:
        rows = db.execute(
            "SELECT node_row, node_hash FROM hall_received WHERE table_id=?", (table,)
        ).fetchall()
    except sqlite3.OperationalError:  # no hall_received table: a desk that received nothing
        rows = []
    finally:
        db.close()
    return {int(r): str(h) for r, h in rows}


def witnessed(
    desk_dir: str | os.PathLike[str], table: str, upto: int | None = None
) -> dict[str, Any]:
    """What the desk witnessed for ``table`` (up to row ``upto``): its pinned key, every head
    with the desk's receive time, the alarms, and the desk's own key id (JSON-ready)."""
    tables, desk = read_log(desk_dir)
    tw = tables.get(table, TableWitness(table))
    return {**tw.view(upto), "desk_key_id": key_id(desk) if desk else None}


def check_report(report: VerifyReport, desk_dir: str | os.PathLike[str]) -> None:
    """``verify --desk``: the report's key must be the one the desk pinned for its table, and
    its chain must agree with every head the desk witnessed and every row it holds, and reach
    the last row witnessed. Adds problems, or marks the key pinned by the desk."""
    where = f"desk {desk_dir}"
    try:
        tables = read_log(desk_dir)[0]
    except (OSError, WitnessError) as e:
        report.problems.append(Problem(where, f"witness log unreadable: {e}"))
        return
    if report.key is None:
        return  # no head that checks: already a problem, nothing to compare
    if not report.tables:
        report.problems.append(Problem(where, "no table in the record to look up"))
        return
    head = report.head or {}
    for table in report.tables:
        tw = tables.get(table)
        if tw is None or tw.key is None:
            report.problems.append(Problem(where, f"table {table}: the desk never saw it"))
            continue
        if report.key != tw.key:
            report.problems.append(
                Problem(
                    where,
                    f"table {table}: signed by key {key_id(str(report.key))}, not the key "
                    f"{key_id(tw.key)} the desk pinned",
                )
            )
            continue
        held = held_rows(desk_dir, table)
        for h in tw.heads:
            if h["rows"] in report.hashes and report.hashes[h["rows"]] != h["tip"]:
                report.problems.append(
                    Problem(
                        f"row {h['rows']}",
                        f"differs from the head the desk witnessed at {_when(h['received_at'])}",
                    )
                )
        for row, hsh in held.items():
            if row in report.hashes and report.hashes[row] != hsh:
                report.problems.append(Problem(f"row {row}", "differs from the row the desk holds"))
        rows, tip = head.get("rows"), head.get("tip")
        if isinstance(rows, int) and isinstance(tip, str):
            why = contradiction(tw, rows, tip, HeldRows(held))
            if why:
                report.problems.append(Problem(f"table {table} signed head", why))
        last = tw.last()
        if last is not None:
            report.witnessed_rows = last["rows"]
    if not report.problems:
        report.pinned = "desk"
