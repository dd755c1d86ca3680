"""The dashboard's hub for the desk: the normal referee dashboard over the desk's store, with
each table's hall link (online / offline / late / gap) in the hall summary, and referee
decisions routed to the table through the broker instead of appended here directly."""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from dashboard.hub import DecisionWaiting, Hub
from hall.desk import Desk

_DECIDING = threading.Lock()
DECISION_WAIT_S = 3.0  # how long a referee's click waits for the table's record to show it


class DeskHub(Hub):
    desk: Desk | None = None
    _links: dict[str, Any]

    def changed(self, tid: str) -> None:
        """The desk heard something: wake the hall page if a table's link changed."""
        if self.desk is None:
            return
        links = {
            t: (
                v["link"],
                v["witness"]["key_id"],
                v["witness"]["enrolled_by"],
                tuple(v["witness"]["alarms"]),
            )
            for t, v in self.desk.links().items()
        }
        if links != getattr(self, "_links", None):
            self._links = links
            with self._cond:
                self.generation += 1
                self._cond.notify_all()

    def append(self, tid: str, event: Mapping[str, Any]) -> int:
        """Send the decision to the table (chained here as an action at once); return its seq in
        the table's record, or -1 while the table has not taken it yet (offline: it is re-sent
        until it does)."""
        if self.desk is None:
            return super().append(tid, event)
        with _DECIDING:  # two referees at once: one is sent, the other sees it waiting
            if event.get("type") == "ruling":
                sent = self.desk.waiting(tid).get(str(event.get("ref")))
                if sent is not None:  # one decision at a time: the table has not taken it
                    raise DecisionWaiting(str(event.get("ref")), str(sent.event.get("decision")))
            ev = self.stamped(tid, event)
            pending = self.desk.decide(tid, ev)
        pending.done.wait(DECISION_WAIT_S)
        self.poll()
        return pending.seq if pending.seq is not None else -1

    def waiting(self, tid: str) -> dict[str, dict[str, Any]]:
        if self.desk is None:
            return {}
        return {
            ref: {
                "decision": p.event.get("decision"),
                "by": p.event.get("by"),
                "note": p.event.get("note"),
                "at": p.made_at,
            }
            for ref, p in self.desk.waiting(tid).items()
        }

    def summary(self) -> list[dict[str, Any]]:
        out = super().summary()
        links = self.desk.links() if self.desk is not None else {}
        known = {t["id"] for t in out}
        for tid in sorted(set(links) - known):  # heard of, no record event stored yet
            out.append({"id": tid, "seq": None, "teams": [], "open_violations": 0})
        for entry in out:
            info = links.get(entry["id"])
            if info is not None:
                entry["link"] = info["link"]
                entry["gap"] = info["gap"]
                entry["pending_decisions"] = info["pending_decisions"]
                entry["poison"] = info["poison"]
                if info["poison"]:  # the latest problems, for the referee's eye
                    kept = self.desk.poison.listing(entry["id"], limit=5) if self.desk else []
                    entry["poison_latest"] = [k["problem"] for k in kept]
                entry["witness"] = info.get("witness")
        return sorted(out, key=lambda t: str(t["id"]))
