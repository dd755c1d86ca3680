"""The live tables: follows the evidence store, feeds each table's referee, wakes SSE streams.

One poller thread reads new chain rows (``SELECT ... WHERE id > last``), so the table node may
be another process writing the same SQLite file. Each new record event goes to the table's
referee (the real engine); the rulings it returns are chained back into the store, and every
waiting stream is woken. Each view is kept with the wall time it appeared, which is what the
broadcast delay of the overlay is measured against.
"""

from __future__ import annotations

import bisect
import copy
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dashboard.engine_adapter import make_referee
from dashboard.view import public_view, table_view
from evidence import EvidenceStore, StoreError

log = logging.getLogger(__name__)

HISTORY = 4000  # views kept per table for the overlay delay (a whole match at ~1 event/s)


@dataclass
class LiveTable:
    id: str
    events: list[dict[str, Any]] = field(default_factory=list)
    wall: dict[int, float] = field(default_factory=dict)
    referee: Any = None
    engine: str = "waiting for match_start"
    errors: list[str] = field(default_factory=list)
    view: dict[str, Any] = field(default_factory=dict)
    report: dict[str, Any] = field(default_factory=dict)
    #: (wall time, seq, public view) in arrival order, for the delayed overlay
    history: list[tuple[float, int, dict[str, Any]]] = field(default_factory=list)

    @property
    def seq(self) -> int:
        return self.events[-1]["seq"] if self.events else -1

    def public_at(self, when: float) -> dict[str, Any] | None:
        """The overlay's view as it was at wall time ``when`` (None before the first event)."""
        times = [h[0] for h in self.history]
        i = bisect.bisect_right(times, when)
        return self.history[i - 1][2] if i else None


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
        self._last_row = 0
        self._cond = threading.Condition()
        self._poll_lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

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
        """Read new chain rows and apply them; returns how many events were new."""
        with self._poll_lock:
            rows = self.store.rows(after_id=self._last_row, kind=None)
            if not rows:
                return 0
            self._last_row = rows[-1].id
            changed: set[str] = set()
            for row in rows:
                if row.kind == "event":
                    self._apply(row.table, row.data, row.at)
                    changed.add(row.table)
            now = self.clock()
            for tid in changed:
                self._refresh(self.tables[tid], now)
            if changed:
                with self._cond:
                    self.generation += 1
                    self._cond.notify_all()
            return len(changed)

    def _apply(self, tid: str, event: dict[str, Any], at: float) -> None:
        table = self.tables.setdefault(tid, LiveTable(tid))
        table.events.append(event)
        table.wall[event["seq"]] = at
        if event["type"] == "match_start":
            table.referee, table.engine = make_referee(event)
        if table.referee is None:
            table.errors.append(f"seq {event['seq']}: {event['type']} before any match_start")
            return
        try:
            rulings = table.referee.feed(event)
        except Exception as e:  # one event the engine chokes on must not stop the table
            log.exception("table %s: referee failed on seq %s", tid, event["seq"])
            table.errors.append(f"seq {event['seq']}: referee error: {e}")
            return
        for ruling in rulings or []:
            try:
                self.store.append_ruling(tid, ruling)
            except (StoreError, TypeError, ValueError) as e:
                table.errors.append(f"seq {event['seq']}: ruling not stored: {e}")

    def _refresh(self, table: LiveTable, now: float) -> None:
        ref = table.referee
        report = copy.deepcopy(ref.report()) if ref is not None else {}
        state = copy.deepcopy(ref.state()) if ref is not None else {}
        table.report = report
        table.view = table_view(
            table.id,
            table.events,
            report,
            state,
            engine=table.engine,
            wall=table.wall,
            errors=table.errors,
        )
        table.history.append((now, table.seq, public_view(table.view)))
        del table.history[:-HISTORY]

    # -- writing (the referee's actions come back as record events) ------------------------

    def append(self, tid: str, event: dict[str, Any]) -> int:
        """Append a referee-made event (ruling, correction...) and apply it at once."""
        ev = {k: v for k, v in event.items() if k != "seq"}
        ev.setdefault("v", 1)
        table = self.tables.get(tid)
        if "t" not in ev:  # seconds since match start, continuing the table's own clock
            ev["t"] = 0.0
            if table is not None and table.events:
                last = table.events[-1]
                since = self.clock() - table.wall.get(last["seq"], self.clock())
                ev["t"] = round(float(last.get("t", 0.0)) + max(0.0, since), 3)
        seq = self.store.append_event(tid, ev)
        self.poll()
        return seq

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

    def summary(self) -> list[dict[str, Any]]:
        """``GET /api/tables``: one entry per table."""
        out = []
        for tid in sorted(self.tables):
            v = self.tables[tid].view
            out.append(
                {
                    "id": tid,
                    "seq": v.get("seq"),
                    "status": v.get("status"),
                    "game": v.get("game"),
                    "profile": v.get("profile"),
                    "hand": v.get("hand"),
                    "players": [s["name"] for s in v.get("seats", [])],
                    "teams": [
                        {"names": t["names"], "level": t["level"], "banker_side": t["banker_side"]}
                        for t in v.get("teams", [])
                    ],
                    "trump": v.get("trump"),
                    "attacker_points": v.get("attacker_points"),
                    "open_violations": v.get("open_violations", 0),
                    "needs_referee": len(v.get("needs_referee", [])),
                    "engine": v.get("engine"),
                }
            )
        return out
