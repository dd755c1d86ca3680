"""What the desk takes in from a table, bounded: no table's message can stop the desk.

Every MQTT payload is parsed by ``engine.boundedjson`` (size, nesting depth, number length,
valid Unicode checked before or while parsing) and its shape checked (``parse_item``,
``parse_state``); an ``events`` item must hash to the ``node.hash`` it claims
(``self_consistent``). A message that fails is **poison**: logged in one line (table, topic,
problem), kept aside in the desk's store (``Poison``, table ``hall_poison``: the problem, the
size, the sha256 and the first bytes, for a referee), acknowledged, and the desk goes on.

A message for a later position waits in ``FutureBuffer``: several candidates per position
(a forged message cannot evict the genuine one), capped per table in count, bytes and how
far ahead; when its turn comes the desk stores only a candidate that links to the chain it
holds (``ChainEnd.links``, ``choose``). What the buffer drops, the desk's resend request
brings back.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.boundedjson import BadJson, parse
from evidence.chain import link_hash
from evidence.schema import DB_NAME
from evidence.store import row_body

MAX_EVENT_BYTES = 1 << 20  # one event or ruling: a few hundred bytes, a ruling a few KiB
MAX_STATE_BYTES = 256 * 1024
MAX_AHEAD = 20_000  # positions further ahead of what is stored are not buffered
MAX_BUFFERED = 20_000  # items kept per table while a gap is filled
MAX_BUFFER_BYTES = 4 << 20  # bytes kept per table while a gap is filled
MAX_CANDIDATES = 4  # distinct messages kept for one position
EXCERPT_BYTES = 2048
MAX_POISON_ROWS = 1000  # rows kept per table; beyond, only the count grows
HEX = frozenset("0123456789abcdef")


class Poisoned(ValueError):
    """A message the desk refuses: one line naming the problem."""


def _hash_text(value: Any, name: str) -> str:
    if not isinstance(value, str) or len(value) != 64 or not set(value) <= HEX:
        raise Poisoned(f"node.{name} is not a sha256 hex digest")
    return value


def parse_item(table: str, payload: bytes | bytearray) -> dict[str, Any]:
    """An ``events`` message, bounded and with the shape ``hall.publish.message`` gives it."""
    try:
        item = parse(payload, max_bytes=MAX_EVENT_BYTES)
    except BadJson as e:
        raise Poisoned(str(e)) from None
    if not isinstance(item, dict):
        raise Poisoned("not a JSON object")
    pos, kind, data, node = item.get("seq"), item.get("kind"), item.get("data"), item.get("node")
    if item.get("table") != table:
        raise Poisoned(f"names table {str(item.get('table'))[:40]!r}, sent on {table!r}'s topic")
    if not isinstance(pos, int) or isinstance(pos, bool) or pos < 0:
        raise Poisoned(f"position {str(pos)[:40]!r} is not a whole number >= 0")
    if kind not in ("event", "ruling"):
        raise Poisoned(f"kind {str(kind)[:40]!r} (expected event or ruling)")
    if not isinstance(data, dict) or not isinstance(node, dict):
        raise Poisoned("data and node must be objects")
    if kind == "event" and (not isinstance(data.get("seq"), int) or isinstance(data["seq"], bool)):
        raise Poisoned("an event without a whole-number seq")
    row, at = node.get("row"), node.get("at")
    if not isinstance(row, int) or isinstance(row, bool) or row < 1:
        raise Poisoned("node.row is not a row id")
    if not isinstance(at, int | float) or isinstance(at, bool):
        raise Poisoned("node.at is not a time")
    _hash_text(node.get("prev"), "prev")
    _hash_text(node.get("hash"), "hash")
    return item


def parse_state(payload: bytes | bytearray) -> dict[str, Any]:
    try:
        state = parse(payload, max_bytes=MAX_STATE_BYTES)
    except BadJson as e:
        raise Poisoned(str(e)) from None
    if not isinstance(state, dict):
        raise Poisoned("not a JSON object")
    head = state.get("head")
    if head is not None and (not isinstance(head, int) or isinstance(head, bool)):
        raise Poisoned(f"head {str(head)[:40]!r} is not a whole number")
    return state


def self_consistent(table: str, item: Mapping[str, Any]) -> bool:
    """The node's row hash recomputed from the message: ``sha256(prev ‖ row body)``."""
    kind, data, node = item["kind"], item["data"], item["node"]
    seq = data.get("seq") if kind == "event" else None
    body = row_body(kind, table, seq, float(node["at"]), data)
    return bool(link_hash(node["prev"], body) == node["hash"])


@dataclass
class ChainEnd:
    """The node row the desk stored last for a table: what the next item must link to."""

    row: int = 0
    hash: str = ""

    def links(self, item: Mapping[str, Any]) -> bool:
        """Rows only grow; the row right after the last one must name its hash as ``prev``
        (a node's media rows may sit between two stream rows: then only the order is known)."""
        node = item["node"]
        if self.row == 0:
            return True
        if node["row"] == self.row + 1:
            return bool(node["prev"] == self.hash)
        return bool(node["row"] > self.row)

    def strictly(self, item: Mapping[str, Any]) -> bool:
        return self.row > 0 and item["node"]["row"] == self.row + 1


@dataclass
class FutureBuffer:
    """One table's messages for later positions, capped (see the module docstring)."""

    items: dict[int, list[tuple[dict[str, Any], int]]] = field(default_factory=dict)
    count: int = 0
    bytes: int = 0

    def __contains__(self, pos: int) -> bool:
        return pos in self.items

    def __bool__(self) -> bool:
        return bool(self.items)

    def positions(self) -> list[int]:
        return list(self.items)

    def add(self, stored: int, item: dict[str, Any], size: int) -> str | None:
        """Keep ``item`` for later; None when kept (or already held), else why not."""
        pos = item["seq"]
        if pos - stored > MAX_AHEAD:
            return f"position {pos} is more than {MAX_AHEAD} ahead of {stored}"
        held = self.items.get(pos, [])
        if any(c["node"]["hash"] == item["node"]["hash"] for c, _ in held):
            return None
        if len(held) >= MAX_CANDIDATES:
            return f"position {pos} already has {MAX_CANDIDATES} different messages waiting"
        if self.count >= MAX_BUFFERED or self.bytes + size > MAX_BUFFER_BYTES:
            return "the table's buffer is full (a resend brings it back)"
        self.items.setdefault(pos, []).append((item, size))
        self.count += 1
        self.bytes += size
        return None

    def take(self, pos: int) -> list[dict[str, Any]]:
        """Every candidate for ``pos``, in arrival order (they leave the buffer)."""
        held = self.items.pop(pos, [])
        self.count -= len(held)
        self.bytes -= sum(size for _, size in held)
        return [c for c, _ in held]

    def drop_through(self, pos: int) -> None:
        for p in [p for p in self.items if p <= pos]:
            self.take(p)


def choose(
    end: ChainEnd, waiting: list[dict[str, Any]], arrived: dict[str, Any] | None
) -> dict[str, Any] | None:
    """The item to store next, from those ``waiting`` in the buffer for the position and the
    one that ``arrived`` in order (None while draining the buffer). One that links strictly
    (the row after the last, naming its hash) wins; one that only comes later in the node's
    chain (media rows between) is taken only as it arrives in order, never from the buffer,
    where a forgery sent ahead would otherwise win the race. None: wait (a resend brings it)."""
    every = [*waiting, *([arrived] if arrived is not None else [])]
    strict = [c for c in every if end.strictly(c) and end.links(c)]
    if strict:
        return strict[0]
    if arrived is not None and end.links(arrived):
        return arrived
    return None


POISON_SCHEMA = """
CREATE TABLE IF NOT EXISTS hall_poison (
    id       INTEGER PRIMARY KEY,
    table_id TEXT NOT NULL,
    at       REAL NOT NULL,
    topic    TEXT NOT NULL,
    problem  TEXT NOT NULL,
    size     INTEGER NOT NULL,
    sha256   TEXT NOT NULL,
    excerpt  BLOB NOT NULL
);
CREATE TABLE IF NOT EXISTS hall_poison_count (
    table_id TEXT PRIMARY KEY,
    n        INTEGER NOT NULL
);
"""


class Poison:
    """The messages the desk refused, kept aside for a referee in the desk's store file."""

    def __init__(self, data_dir: str | Path) -> None:
        self._lock = threading.Lock()
        self._db = sqlite3.connect(
            Path(data_dir) / DB_NAME, timeout=10.0, isolation_level=None, check_same_thread=False
        )
        self._db.execute("PRAGMA busy_timeout=10000")
        self._db.executescript(POISON_SCHEMA)

    def keep(self, table: str, topic: str, problem: str, payload: bytes) -> None:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute(
                    "INSERT INTO hall_poison_count VALUES (?, 1)"
                    " ON CONFLICT(table_id) DO UPDATE SET n = n + 1",
                    (table,),
                )
                (n,) = self._db.execute(
                    "SELECT n FROM hall_poison_count WHERE table_id=?", (table,)
                ).fetchone()
                if n <= MAX_POISON_ROWS:
                    self._db.execute(
                        "INSERT INTO hall_poison(table_id, at, topic, problem, size, sha256,"
                        " excerpt) VALUES (?,?,?,?,?,?,?)",
                        (
                            table,
                            time.time(),
                            topic[:200],
                            problem[:500],
                            len(payload),
                            hashlib.sha256(payload).hexdigest(),
                            bytes(payload[:EXCERPT_BYTES]),
                        ),
                    )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def counts(self) -> dict[str, int]:
        """Per table, how many messages were refused (all of them, kept or only counted)."""
        with self._lock:
            rows = self._db.execute("SELECT table_id, n FROM hall_poison_count").fetchall()
        return {str(t): int(n) for t, n in rows}

    def listing(self, table: str | None = None, limit: int = 100) -> list[dict[str, Any]]:
        """The latest kept messages (newest first), their excerpt as text."""
        sql = "SELECT table_id, at, topic, problem, size, sha256, excerpt FROM hall_poison"
        args: tuple[Any, ...] = ()
        if table is not None:
            sql, args = sql + " WHERE table_id=?", (table,)
        with self._lock:
            rows = self._db.execute(sql + " ORDER BY id DESC LIMIT ?", (*args, limit)).fetchall()
        keys = ("table", "at", "topic", "problem", "size", "sha256")
        return [
            {
                **dict(zip(keys, r[:6], strict=True)),
                "excerpt": bytes(r[6]).decode("utf-8", "replace"),
            }
            for r in rows
        ]

    def chain_ends(self) -> dict[str, ChainEnd]:
        """Per table, the node row the desk stored last (from the ``Ledger``'s table)."""
        with self._lock:
            try:
                rows = self._db.execute(
                    "SELECT r.table_id, r.node_row, r.node_hash FROM hall_received r"
                    " JOIN (SELECT table_id, MAX(pos) AS pos FROM hall_received"
                    " GROUP BY table_id) m ON m.table_id = r.table_id AND m.pos = r.pos"
                ).fetchall()
            except sqlite3.OperationalError:  # no ledger yet
                return {}
        return {str(t): ChainEnd(int(row), str(h)) for t, row, h in rows}

    def close(self) -> None:
        with self._lock:
            self._db.close()
