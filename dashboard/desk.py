"""The one judge of a table no node judges (a record a referee loaded, ``serve --demo``).

A table is desk-judged only when someone said so: ``Hub.judge_table`` chains an action row
``{"action": "desk_judge"}`` for it (so a restarted dashboard knows, and the evidence says who
judged). Every other table is judged by its table node, and the dashboard never writes a ruling
for it. The desk referee is built by ``engine.games.referee_for`` like the node's, fed each
stored event once in seq order, and its rulings are stored once (the store drops a ruling it
already holds, so a restarted dashboard re-judging the record adds nothing).

Like the node, it never stores a firm accusation on a doubted read: the rulings of a play (or
declare, bury, bottom reveal) wait for the next event; when that is a ``needs_referee`` on
it, its violations are stored provisional.
"""

from __future__ import annotations

import logging
from typing import Any

from engine.games import referee_for
from engine.record import Event, Ruling, provisional_if
from evidence import EvidenceStore, StoreError

log = logging.getLogger(__name__)

ACTION = "desk_judge"
DOUBTABLE = frozenset({"play", "declare", "bury", "bottom_reveal"})


def register(store: EvidenceStore, table: str, *, by: str) -> bool:
    """Make the dashboard the one judge of ``table``: chain the ``desk_judge`` action (once).
    Refused (``StoreError``) for a table that already has rulings from another judge."""
    actions = store.rows(table=table, kind="action")
    if any(r.data.get("action") == ACTION for r in actions):
        return False
    if store.rows(table=table, kind="ruling"):
        raise StoreError(f"table {table}: already judged by its table node")
    store.append_action(table, {"action": ACTION, "by": by})
    return True


def load_record(store: EvidenceStore, table: str, events: list[dict[str, Any]], *, by: str) -> int:
    """A match record a referee loads (no node judges it): registered for the desk referee,
    then stored event by event. Returns the last seq."""
    register(store, table, by=by)
    seq = -1
    for ev in events:
        seq = store.append_event(table, ev)
    return seq


class DeskJudge:
    """Feeds one table's events to its referee and stores what it rules."""

    def __init__(self, store: EvidenceStore, table: str) -> None:
        self.store = store
        self.table = table
        self.referee: Any = None
        self.engine = "waiting for match_start"
        self.judged = -1  # the last seq fed
        self.errors: list[str] = []
        self._held: tuple[Event, list[Ruling]] | None = None

    def take(self, event: Event) -> int:
        """Judge one stored event (once: a seq already fed is skipped); returns the rulings
        stored."""
        seq = int(event["seq"])
        if seq <= self.judged:
            return 0
        self.judged = seq
        stored = 0
        if self._held is not None:
            held_ev, rulings = self._held
            self._held = None
            doubted = event["type"] == "needs_referee" and event.get("ref") == held_ev["seq"]
            stored += self._store(rulings, provisional=doubted)
        if event["type"] == "match_start":
            try:
                self.referee = referee_for(event)
                kind = type(self.referee)
                self.engine = f"{kind.__module__}.{kind.__name__} (dashboard)"
            except Exception as e:  # an unknown game or profile: shown, never judged wrongly
                log.warning("table %s: no referee for this match: %s", self.table, e)
                self.referee, self.engine = None, f"not judged: {e}"
        if self.referee is None:
            return stored
        try:
            rulings = list(self.referee.feed(event) or [])
        except Exception as e:  # one event the engine chokes on must not stop the table
            log.exception("table %s: referee failed on seq %s", self.table, seq)
            self.errors.append(f"seq {seq}: referee error: {e}")
            return stored
        if event["type"] in DOUBTABLE:
            self._held = (event, rulings)
        else:
            stored += self._store(rulings, provisional=False)
        return stored

    def _store(self, rulings: list[Ruling], *, provisional: bool) -> int:
        n = 0
        for r in rulings:
            try:
                n += self.store.append_ruling(self.table, provisional_if(r, provisional))
            except (StoreError, TypeError, ValueError) as e:
                self.errors.append(f"ruling not stored: {e}")
        return n
