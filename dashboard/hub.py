"""The live tables: follows the evidence store, folds each table's view, wakes SSE streams.

One poller thread reads new chain rows (``SELECT ... WHERE id > last``), so the table node may
be another process writing the same SQLite file. Record events and the rulings the table's
judge stored are folded into the table's view (``dashboard.view.TableFold``, O(1) per row).

One judge per table: a table's node judges it and the hub only reads its rulings, unless the
table was registered as desk-judged (``judge_table``: the demo, a record loaded by a referee);
then the hub's one ``DeskJudge`` feeds the stored events to a referee and stores its rulings,
and the view reads those rows back like a node's.

Each change is serialised once for every client: the hub builds the SSE ``delta`` message of
each update, the ``record`` message of each event and (on demand, cached per version) the full
``state``; streams only write these bytes. The overlay's delayed history keeps the serialised
public view per change, with its wall time.
"""

from __future__ import annotations

import bisect
import json
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from dashboard.desk import ACTION, DeskJudge, register
from dashboard.view import TableFold, public_clock, public_match, public_view
from engine.record import Event, Ruling
from evidence import EvidenceStore

log = logging.getLogger(__name__)

HISTORY = 4000  # public views kept per table for the overlay delay (a whole match)
DELTAS = 256  # recent deltas kept per table, for a stream that fell a little behind
NODE_ENGINE = "the table node's referee (rulings read from the store)"


def sse_message(data_json: str, *, event: str | None = None, id: int | None = None) -> bytes:
    """One SSE message around an already serialised JSON text."""
    head = (f"id: {id}\n" if id is not None else "") + (f"event: {event}\n" if event else "")
    return f"{head}data: {data_json}\n\n".encode()


def dumps(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


@dataclass
class LiveTable:
    id: str
    fold: TableFold
    desk: DeskJudge | None = None
    version: int = 0
    #: (version, SSE delta message), the latest last
    deltas: deque[tuple[int, bytes]] = field(default_factory=lambda: deque(maxlen=DELTAS))
    #: (seq, SSE record message) of every event, for a stream resuming after a seq
    records: list[tuple[int, bytes]] = field(default_factory=list)
    #: wall times and (seq, public JSON, SSE state message) of each public change
    history_t: list[float] = field(default_factory=list)
    history: list[tuple[int, str, bytes]] = field(default_factory=list)
    _state: tuple[int, str] | None = None
    lock: threading.RLock = field(default_factory=threading.RLock)

    @property
    def view(self) -> dict[str, Any]:
        return self.fold.view

    @property
    def seq(self) -> int:
        seq = self.fold.view.get("seq")
        return seq if isinstance(seq, int) else -1

    @property
    def engine(self) -> str:
        return str(self.fold.view.get("engine", ""))

    @property
    def errors(self) -> list[str]:
        return self.fold.errors

    @property
    def judge(self) -> str:
        return "dashboard" if self.desk is not None else "node"

    def state_json(self) -> str:
        """The full view as JSON, serialised once per version."""
        with self.lock:
            if self._state is None or self._state[0] != self.version:
                self._state = (self.version, dumps({**self.fold.view, "version": self.version}))
            return self._state[1]

    def state_message(self) -> tuple[int, bytes]:
        """(version, the SSE ``state`` message)."""
        with self.lock:
            text = self.state_json()
            return self.version, sse_message(text, event="state", id=self.seq)

    def deltas_after(self, version: int) -> list[bytes] | None:
        """The deltas that bring a client from ``version`` to now; None when they are gone."""
        with self.lock:
            if version == self.version:
                return []
            kept = list(self.deltas)
        if not kept or kept[0][0] > version + 1:
            return None
        return [msg for v, msg in kept if v > version]

    def records_after(self, seq: int) -> list[bytes]:
        with self.lock:
            i = bisect.bisect_right([s for s, _ in self.records], seq)  # only on a resume
            return [msg for _, msg in self.records[i:]]

    def public_at(self, when: float) -> tuple[int, str, bytes] | None:
        """The overlay's (seq, JSON, SSE message) as it was at wall time ``when``."""
        with self.lock:
            i = bisect.bisect_right(self.history_t, when)
            return self.history[i - 1] if i else None

    def publish(self, now: float) -> None:
        """Serialise what changed since the last publish, once, for every client."""
        with self.lock:
            set_, appended = self.fold.take_changes()
            if not set_ and not appended:
                return
            self.version += 1
            delta: dict[str, Any] = {"version": self.version, "base": self.version - 1}
            delta["seq"] = self.fold.view.get("seq")
            if set_:
                delta["set"] = set_
            if appended:
                delta["append"] = appended
            self.deltas.append(
                (self.version, sse_message(dumps(delta), event="delta", id=self.seq))
            )
            public = dumps(public_view(self.fold.view))
            if not self.history or self.history[-1][1] != public:
                self.history_t.append(now)
                self.history.append(
                    (self.seq, public, sse_message(public, event="state", id=self.seq))
                )
                if len(self.history) > 2 * HISTORY:  # trimmed in chunks: O(1) per change
                    del self.history[:-HISTORY], self.history_t[:-HISTORY]


class DecisionWaiting(Exception):
    """A ruling refused because an earlier one on the same violation was sent to the table
    and its record does not show it yet (the hall desk)."""

    def __init__(self, ref: str, decision: str) -> None:
        super().__init__(f"{ref}: a decision ({decision}) is waiting for the table")
        self.ref = ref
        self.decision = decision


class Hub:
    def __init__(
        self,
        store: EvidenceStore,
        *,
        clock: Callable[[], float] = time.time,
        poll_s: float = 0.05,
    ) -> None:
        self.store = store
        self.clock = clock
        self.poll_s = poll_s
        self.tables: dict[str, LiveTable] = {}
        self.generation = 0  # bumps on every change (the hall stream's id)
        self._hall: tuple[int, bytes] | None = None
        self._last_row = 0
        self._cond = threading.Condition()
        self._poll_lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- which tables the dashboard judges -------------------------------------------------

    def judge_table(self, tid: str, *, by: str = "dashboard") -> None:
        """Make the dashboard the one judge of ``tid`` (a table no node judges). Chained as
        an action row, so a restarted dashboard judges it again; refused for a table that
        already has rulings from another judge."""
        with self._poll_lock:
            register(self.store, tid, by=by)
            self.poll()

    # -- following the store --------------------------------------------------------------

    def start(self) -> None:
        if self._thread is None:
            self.poll()
            self._thread = threading.Thread(target=self._run, name="hub-poller", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        with self._cond:
            self._cond.notify_all()

    def _run(self) -> None:
        while not self._stop.wait(self.poll_s):
            try:
                self.poll()
            except Exception:  # the poller must outlive one bad row
                log.exception("hub poll failed")

    def poll(self) -> int:
        """Read new chain rows and fold them; returns how many tables changed."""
        with self._poll_lock:
            changed: set[str] = set()
            while True:  # the desk judges' rulings are new rows: read until none is left
                rows = self.store.rows(after_id=self._last_row, kind=None)
                if not rows:
                    break
                self._last_row = rows[-1].id
                for row in rows:
                    if self._apply(row.kind, row.table, row.data, row.at):
                        changed.add(row.table)
            now = self.clock()
            for tid in changed:
                self.tables[tid].publish(now)
            if changed:
                with self._cond:
                    self.generation += 1
                    self._cond.notify_all()
            return len(changed)

    def _table(self, tid: str) -> LiveTable:
        table = self.tables.get(tid)
        if table is None:
            table = self.tables[tid] = LiveTable(tid, TableFold(tid, NODE_ENGINE))
        return table

    def _apply(self, kind: str, tid: str, data: dict[str, Any], at: float) -> bool:
        if kind == "event":
            table = self._table(tid)
            ev = cast(Event, data)  # the store keeps validated events
            with table.lock:
                table.fold.event(ev, at)
                table.records.append(
                    (data["seq"], sse_message(dumps(data), event="record", id=data["seq"]))
                )
                if table.desk is not None:
                    self._desk(table, [ev])
            return True
        if kind == "ruling" and tid:
            table = self._table(tid)
            with table.lock:
                table.fold.ruling(cast(Ruling, data))  # as its judge gave it
            return True
        if kind == "action" and data.get("action") == ACTION and tid:
            table = self._table(tid)
            with table.lock:
                if table.desk is None:
                    table.desk = DeskJudge(self.store, tid)
                    # what was stored before the table was registered, in seq order
                    self._desk(table, sorted(table.fold.events.values(), key=lambda e: e["seq"]))
            return True
        return False

    def _desk(self, table: LiveTable, events: list[Event]) -> None:
        desk = table.desk
        assert desk is not None
        for ev in events:
            desk.take(ev)
        for err in desk.errors:
            table.fold.error(err)
        desk.errors.clear()
        table.fold.set_engine(desk.engine)

    # -- writing (the referee's actions come back as record events) ------------------------

    def append(self, tid: str, event: Mapping[str, Any]) -> int:
        """Append a referee-made event (ruling, correction...) and take it in at once. The
        table's judge re-judges from it: the desk referee here, or the node, which adopts
        the event before it numbers its next one."""
        seq = self.store.append_event(tid, self.stamped(tid, event))
        self.poll()
        return seq

    def waiting(self, tid: str) -> dict[str, dict[str, Any]]:
        """Decisions sent to ``tid`` that its record does not show yet, by what they rule
        (none here: this hub appends them itself; the desk's hub sends them to the table)."""
        return {}

    def stamped(self, tid: str, event: Mapping[str, Any]) -> dict[str, Any]:
        """A referee-made event ready for the record: no seq (the store numbers it), ``v``
        and ``t`` (seconds since match start, continuing the table's own clock)."""
        ev = {k: v for k, v in event.items() if k != "seq"}
        ev.setdefault("v", 1)
        table = self.tables.get(tid)
        if "t" not in ev:
            ev["t"] = 0.0
            if table is not None and table.seq >= 0:
                last = table.fold.events.get(table.seq, {})
                since = self.clock() - table.fold.wall.get(table.seq, self.clock())
                ev["t"] = round(float(last.get("t", 0.0)) + max(0.0, since), 3)
        return ev

    # -- waiting ------------------------------------------------------------------------------

    def wait(self, generation: int, timeout: float) -> int:
        """Block until the generation moves past ``generation`` (or timeout); return it."""
        with self._cond:
            self._cond.wait_for(
                lambda: self.generation != generation or self._stop.is_set(), timeout
            )
            return self.generation

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    def state_json(self, tid: str) -> str:
        return self.tables[tid].state_json()

    def hall_message(self) -> tuple[int, bytes]:
        """(generation, the hall stream's message), built once per generation."""
        with self._poll_lock:
            gen = self.generation
            if self._hall is None or self._hall[0] != gen:
                self._hall = (gen, sse_message(dumps(self.summary()), event="hall", id=gen))
            return self._hall

    def summary(self) -> list[dict[str, Any]]:
        """``GET /api/tables``: one entry per table."""
        out = []
        for tid in sorted(self.tables):
            t = self.tables[tid]
            with t.lock:
                v = t.view
                out.append(
                    {
                        "id": tid,
                        "seq": v.get("seq"),
                        "status": v.get("status"),
                        "game": v.get("game"),
                        "profile": v.get("profile"),
                        "view": v.get("view"),
                        "panel": v.get("panel"),
                        "hand": v.get("hand"),
                        "players": [s["name"] for s in v.get("seats", [])],
                        "teams": [
                            {
                                "names": x["names"],
                                "level": x["level"],
                                "banker_side": x["banker_side"],
                            }
                            for x in v.get("teams", [])
                        ],
                        "trump": v.get("trump"),
                        "attacker_points": v.get("attacker_points"),
                        "match": public_match(v.get("match")),
                        "clock": public_clock(v.get("clock")),
                        "open_violations": v.get("open_violations", 0),
                        "needs_referee": len(v.get("needs_referee", [])),
                        "engine": v.get("engine"),
                        "judge": t.judge,
                    }
                )
        return out
