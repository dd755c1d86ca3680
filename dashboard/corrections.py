"""Safe corrections: see what a correction would change before it is made, and undo it.

``POST /api/tables/<id>/corrections/preview`` replays the table's latest match through a fresh
referee with the proposed ``correction`` appended (nothing is stored) and answers the
attackers' score, levels, outcome and open violations before and after, with each change in
words. ``POST /api/tables/<id>/corrections/<seq>/undo`` appends a new ``correction`` that
puts back what correction ``seq`` replaced: the chain stays append-only, and the undo is
itself in the audit log. ``GET .../corrections/history`` says, for each correction, what the
event read before it and which correction an undo undid (``why`` starts ``undo #<seq>``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, cast

from flask import Blueprint, current_app, jsonify
from flask_babel import gettext

from dashboard.api import hub
from dashboard.auth import current_user, role_required
from dashboard.i18n import rule_name
from dashboard.jsonbody import json_errors, payload
from dashboard.view import TableFold
from engine.cards import CardError, format_cards, parse_cards
from engine.games import referee_for
from engine.record import CORRECTION_OWN_FIELDS, Event, apply_corrections
from evidence import StoreError

bp = Blueprint("corrections", __name__, url_prefix="/api")
json_errors(bp)  # a 413 (body too large) or any HTTP error: one JSON line
UNDO = re.compile(r"^undo #(\d+)")


def _bad(message: str, status: int = 400) -> tuple[Any, int]:
    current_app.extensions["tablescan.counters"]["api_refused"] += 1
    return jsonify(error=message), status


def _latest_match(events: list[Event]) -> list[Event]:
    starts = [i for i, e in enumerate(events) if e["type"] == "match_start"]
    return events[starts[-1] :] if starts else []


def _events(table: Any) -> list[Event]:
    """The table's record as stored (the events as read, corrections as their own events;
    the view's copy already has the corrections applied)."""
    return hub().store.events(table.id)


def replay(table: Any, extra: Event | None) -> dict[str, Any]:
    """The table's view as a fresh referee would judge it with ``extra`` appended (nothing
    is stored: a what-if for the referee, never a ruling)."""
    events = _latest_match(_events(table))
    if not events:
        return {}
    if extra is not None:
        events.append(
            {"v": 1, "t": events[-1].get("t", 0.0), **extra, "seq": events[-1]["seq"] + 1}
        )
    fold = TableFold(table.id, engine=table.engine)
    try:
        referee = referee_for(events[0])
    except ValueError as err:
        fold.error(f"no referee for this match: {err}")
        return fold.view
    for e in events:
        fold.event(e, table.fold.wall.get(e["seq"], 0.0))
        try:
            rulings = referee.feed(e)
        except Exception as err:  # as the hub does: one bad event must not stop the replay
            fold.error(f"seq {e['seq']}: {err}")
            continue
        for r in rulings:
            fold.ruling(r)
    return fold.view


def summary(view: dict[str, Any]) -> dict[str, Any]:
    return {
        "attacker_points": view.get("attacker_points"),
        "teams": [
            {"names": t["names"], "level": t["level"], "trick_points": t["trick_points"]}
            for t in view.get("teams", [])
        ],
        "outcome": view.get("outcome"),
        "violations": [
            {"id": v["id"], "rule": v.get("rule"), "seat": v.get("seat")}
            for v in view.get("violations", [])
            if v.get("status", "open") == "open"
        ],
    }


def changes(before: dict[str, Any], after: dict[str, Any]) -> list[dict[str, Any]]:
    """Each difference between two summaries, in words of the page's language."""
    out: list[dict[str, Any]] = []
    if before["attacker_points"] != after["attacker_points"]:
        out.append(
            {
                "what": "attacker_points",
                "text": gettext(
                    "Attackers' score: %(a)s → %(b)s",
                    a=before["attacker_points"],
                    b=after["attacker_points"],
                ),
            }
        )
    for tb, ta in zip(before["teams"], after["teams"], strict=False):
        if tb["level"] != ta["level"]:
            out.append(
                {
                    "what": "level",
                    "text": gettext(
                        "%(names)s: level %(a)s → %(b)s",
                        names=" · ".join(ta["names"]),
                        a=tb["level"],
                        b=ta["level"],
                    ),
                }
            )
    if before["outcome"] != after["outcome"]:
        out.append({"what": "outcome", "text": gettext("The outcome of the hand changes.")})
    ids_b = {v["id"]: v for v in before["violations"]}
    ids_a = {v["id"]: v for v in after["violations"]}
    for vid in ids_a.keys() - ids_b.keys():
        out.append(
            {
                "what": "violation_added",
                "text": gettext("New violation: %(rule)s", rule=rule_name(ids_a[vid]["rule"])),
            }
        )
    for vid in ids_b.keys() - ids_a.keys():
        out.append(
            {
                "what": "violation_removed",
                "text": gettext("Violation gone: %(rule)s", rule=rule_name(ids_b[vid]["rule"])),
            }
        )
    return out


def _proposed(table: Any, data: dict[str, Any]) -> Event | str:
    """The correction event a request asks for, or why it cannot be made."""
    if data.get("undo") is not None:
        try:
            return _undo_event(table, int(data["undo"]), str(data.get("why") or ""))
        except (TypeError, ValueError):
            return str(gettext("undo: expected the seq of a correction"))
    try:
        ref = int(data.get("ref", ""))
    except (TypeError, ValueError):
        return str(gettext("ref: expected the seq of the event to correct"))
    target = next((e for e in _events(table) if e["seq"] == ref), None)
    if target is None or target["type"] == "correction":
        return str(
            gettext(
                "Seq %(n)s: no event to correct with that seq on table %(table)s",
                n=ref,
                table=table.id,
            )
        )
    event: Event = {"type": "correction", "ref": ref, "why": str(data.get("why") or "misread")}
    if data.get("cards") not in (None, ""):
        try:
            event["cards"] = format_cards(parse_cards(data["cards"])).split()
        except CardError as e:
            return f"cards: {e}"
    if str(data.get("delete", "")).lower() in ("1", "true", "yes"):
        event["delete"] = True
    if len(event) <= 3:
        return str(
            gettext("Seq %(n)s: nothing to correct: give the cards, or delete the event.", n=ref)
        )
    now = next((e for e in apply_corrections(_events(table)) if e["seq"] == ref), target)
    if not event.get("delete") and event.get("cards") == list(now.get("cards") or []):
        return str(
            gettext(
                "Seq %(n)s already reads %(cards)s: nothing to correct (to keep the reading, "
                "choose “Reading stands”).",
                n=ref,
                cards=" ".join(event.get("cards") or []),
            )
        )
    return event


def _undo_event(table: Any, seq: int, why: str) -> Event | str:
    """A correction putting back what correction ``seq`` replaced (its target as it read just
    before ``seq``)."""
    corr = next((e for e in _events(table) if e["seq"] == seq), None)
    if corr is None or corr["type"] != "correction":
        return f"undo {seq}: no correction with that seq on table {table.id}"
    if corr.get("delete"):
        return f"undo {seq}: a deletion cannot be undone by a correction; enter the event again"
    for e in _events(table):
        m = UNDO.match(str(e.get("why", ""))) if e["type"] == "correction" else None
        if m and int(m.group(1)) == seq:
            return f"undo {seq}: already undone by correction {e['seq']}"
    earlier = apply_corrections([e for e in _events(table) if e["seq"] < seq])
    before = next((e for e in earlier if e["seq"] == corr["ref"]), None)
    if before is None:
        return f"undo {seq}: event {corr['ref']} is not in the record before it"
    event: dict[str, Any] = {"type": "correction", "ref": corr["ref"]}
    was: Mapping[str, Any] = before
    for key in corr:
        if key not in CORRECTION_OWN_FIELDS and key in was:
            event[key] = was[key]
    event["why"] = f"undo #{seq}: {why or 'undone by referee'}"[:500]
    return cast(Event, event)  # the fields its target had: an event's own


@bp.post("/tables/<tid>/corrections/preview")
def preview(tid: str) -> Any:
    table = hub().tables.get(tid)
    if table is None:
        return _bad(f"no table {tid!r} on this node", 404)
    data = payload()
    event = _proposed(table, data if isinstance(data, dict) else {})
    if isinstance(event, str):
        return _bad(event)
    user = current_user()
    event["by"] = user.name if user else ""
    before = summary(table.view)
    after = summary(replay(table, event))
    target = next(e for e in apply_corrections(_events(table)) if e["seq"] == event["ref"])
    title = gettext(
        "Seq %(n)s is read as %(a)s; it would read %(b)s.",
        n=event["ref"],
        a=" ".join(target.get("cards") or []) or "–",
        b=" ".join(event.get("cards") or []) or gettext("(deleted)"),
    )
    return jsonify(
        correction=event,
        before=before,
        after=after,
        changes=changes(before, after),
        title=title,
        was=list(target.get("cards") or []),
        would=list(event.get("cards") or []),
        deleted=bool(event.get("delete")),
    )


@bp.post("/tables/<tid>/corrections/<int:seq>/undo")
@role_required("head", "referee")
def undo(tid: str, seq: int) -> Any:
    table = hub().tables.get(tid)
    if table is None:
        return _bad(f"no table {tid!r} on this node", 404)
    data = payload()
    event = _undo_event(table, seq, str(data.get("why") or "") if isinstance(data, dict) else "")
    if isinstance(event, str):
        return _bad(event)
    user = current_user()
    assert user is not None
    event["by"] = user.name
    try:
        new = hub().append(tid, event)
    except StoreError as e:
        return _bad(str(e))
    return jsonify(seq=new, state=hub().tables[tid].view), 201


@bp.get("/tables/<tid>/corrections/history")
def history(tid: str) -> Any:
    table = hub().tables.get(tid)
    if table is None:
        return _bad(f"no table {tid!r} on this node", 404)
    events = _events(table)
    out = []
    for corr in (e for e in events if e["type"] == "correction"):
        earlier = apply_corrections([e for e in events if e["seq"] < corr["seq"]])
        none: Event = {}
        before = next((e for e in earlier if e["seq"] == corr["ref"]), none)
        m = UNDO.match(str(corr.get("why", "")))
        out.append(
            {
                "seq": corr["seq"],
                "ref": corr["ref"],
                "by": corr.get("by"),
                "why": corr.get("why"),
                "at": table.fold.wall.get(corr["seq"]),
                "before": {k: before.get(k) for k in ("cards", "seat") if k in before},
                "after": {k: corr[k] for k in ("cards", "seat", "delete") if k in corr},
                "undoes": int(m.group(1)) if m else None,
            }
        )
    return jsonify(corrections=out)
