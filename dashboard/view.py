"""What the screens show, assembled from the referee's report/state and the match record.

Judging (winners, points, violations, penalties) comes only from the referee's ``report()``;
this module arranges it per seat and per side and adds what only the record knows (names,
times, who corrected what). ``public_view`` is the overlay's whitelist: cards already played,
scores and the bottom only once it was turned face-up.
"""

from __future__ import annotations

import copy
from typing import Any

from engine.record import apply_corrections

Event = dict[str, Any]


def _current_hand_events(events: list[Event]) -> list[Event]:
    start = max((i for i, e in enumerate(events) if e["type"] == "hand_start"), default=None)
    return [] if start is None else events[start:]


def _time_per_play(hand_events: list[Event], seats: int) -> list[float | None]:
    """Mean seconds each seat took to play, measured from the event before its play."""
    spent: list[list[float]] = [[] for _ in range(seats)]
    prev_t: float | None = None
    for e in hand_events:
        if e["type"] == "play" and prev_t is not None and 0 <= e["seat"] < seats:
            spent[e["seat"]].append(max(0.0, float(e["t"]) - prev_t))
        if e["type"] in ("play", "hand_start", "bury", "trump", "declare"):
            prev_t = float(e["t"])
    return [round(sum(s) / len(s), 1) if s else None for s in spent]


def _at(values: Any, i: int) -> Any:
    return values[i] if isinstance(values, list) and i < len(values) else None


def _gouji_hand(hand_report: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    """A Gouji deal in the shape the pages draw: finished rounds as tricks, the live round."""
    live: dict[str, Any] = state["hand"] if isinstance(state.get("hand"), dict) else {}
    rnd = live.get("current_trick") if isinstance(live.get("current_trick"), dict) else None
    return {
        "hand": hand_report.get("hand", state.get("hand")),
        "banker": None,
        "trump": {},
        "tricks": [
            {**r, "points": None}
            for r in hand_report.get("rounds", [])
            if r.get("winner") is not None
        ],
        "current_trick": {**rnd, "winner": None} if rnd and rnd.get("plays") else None,
        "outcome": {"finishing_order": hand_report.get("finishing_order")}
        if hand_report.get("finishing_order")
        else None,
        "next_seat": live.get("next_seat"),
        "counts": live.get("counts"),
    }


def _evidence_of(events_by_seq: dict[int, Event], seq: Any) -> Any:
    e = events_by_seq.get(seq) if isinstance(seq, int) else None
    return e.get("evidence") if e else None


def table_view(
    table: str,
    events: list[Event],
    report: dict[str, Any],
    state: dict[str, Any],
    *,
    engine: str,
    wall: dict[int, float],
    errors: list[str],
) -> dict[str, Any]:
    """The referee screens' JSON: the engine's ``state()`` under ``engine_state`` plus the
    per-seat arrangement the pages draw (``/api/tables/<id>/state`` adds the full ``report``;
    the SSE stream leaves it out to stay small as a match grows)."""
    starts = [i for i, e in enumerate(events) if e["type"] == "match_start"]
    events = events[starts[-1] :] if starts else events  # a table's latest match only
    match = events[0] if starts else None
    view: dict[str, Any] = {
        "id": table,
        "seq": events[-1]["seq"] if events else None,
        "engine": engine,
        "errors": errors[-20:],
        "engine_state": state,
    }
    if match is None:
        return {**view, "status": "waiting for match_start"}
    names: list[str] = match["seats"]
    teams: list[list[int]] = match["teams"]
    corrected = apply_corrections(events)  # the record as the referees fixed it
    by_seq = {e["seq"]: e for e in corrected}
    hand_events = _current_hand_events(corrected)
    hands = report.get("hands") or []
    gouji = match["game"] == "gouji"
    live = state.get("hand")
    hand = live if isinstance(live, dict) else (hands[-1] if hands else None)
    if gouji:  # Gouji reports rounds (no trick points, no bottom) and its live round apart
        hand = _gouji_hand(hands[-1] if hands else {}, state)
    hand = copy.deepcopy(hand)  # annotated below; the engine's documents stay untouched
    banker = hand.get("banker") if hand else None
    tricks = [t for t in (hand.get("tricks", []) if hand else []) if t.get("winner") is not None]
    current = hand.get("current_trick") if hand else None
    if hand and "current_trick" not in hand:  # a report without the live part
        unfinished = [t for t in hand.get("tricks", []) if t.get("winner") is None]
        current = unfinished[-1] if unfinished else None
    side_points = hand.get("points") if hand else None
    won: dict[int, int] = {i: 0 for i in range(len(teams))}
    for i, team in enumerate(teams):
        if isinstance(side_points, dict):
            won[i] = int(side_points.get("banker" if banker in team else "attackers") or 0)
        else:
            won[i] = sum(int(t.get("points") or 0) for t in tricks if t.get("winner") in team)
    for trick in [*tricks, *([current] if current else [])]:
        for play in trick["plays"]:
            ev = by_seq.get(play.get("seq"))
            if ev:
                play.setdefault("t", ev.get("t"))
                play.setdefault("evidence", ev.get("evidence"))
                play.setdefault("confidence", ev.get("confidence"))
    bury = next((e for e in reversed(hand_events) if e["type"] == "bury"), None)
    revealed = any(e["type"] == "bottom_reveal" for e in hand_events)
    bottom = dict(hand.get("bottom") or {}) if hand else {}
    if not revealed:  # the buried bottom is hidden until it is turned face-up
        bottom["cards"] = None
    bottom["count"] = bury["count"] if bury else None
    per_play = _time_per_play(hand_events, len(names))
    levels = list(match.get("levels", []))
    for done in hands:  # each finished deal's outcome (the engine's) moves the winner's level
        out = done.get("outcome") or {}
        if out.get("new_level") and done.get("banker") is not None:
            bank_team = next((t for t, tm in enumerate(teams) if done["banker"] in tm), None)
            if bank_team is not None and len(teams) == 2:
                winner = bank_team if out.get("side") == "banker" else 1 - bank_team
                if winner < len(levels):
                    levels[winner] = out["new_level"]
    outcome = hand.get("outcome") if hand else None
    hand_start = hand_events[0] if hand_events else {}
    trump = dict(hand.get("trump") or {}) if hand else {}
    settled = {e["ref"] for e in events if e["type"] == "correction"}
    settled |= {
        int(str(e["ref"])[4:])
        for e in events
        if e["type"] == "ruling" and str(e.get("ref", "")).startswith("seq:")
    }
    found = [(h, v) for h in hands for v in h.get("violations", [])]
    found += [({"hand": v.get("hand")}, v) for v in report.get("violations", [])]
    violations = []
    ids: set[str] = set()
    for h, v in found:
        vid = f"{v.get('hand', h.get('hand'))}:{v.get('rule')}:{v.get('seat')}:{v.get('at_seq')}"
        if v.get("id", vid) in ids:  # a report may list a violation per hand and overall
            continue
        ids.add(v.get("id", vid))
        violations.append(
            {
                "id": vid,  # the engine's id when it gives one (record-format.md's shape)
                **v,
                "hand": h.get("hand"),
                "at_evidence": _evidence_of(by_seq, v.get("at_seq")),
                "proof_evidence": _evidence_of(by_seq, v.get("proven_by_seq")),
                "at_play": by_seq.get(v.get("at_seq")),
                "proof_play": by_seq.get(v.get("proven_by_seq")),
            }
        )
    audit = [
        {**e, "at": wall.get(e["seq"])}
        for e in events
        if e["type"] in ("correction", "ruling", "violation")
    ]
    view.update(
        {
            "status": "playing"
            if hand_events and hand_events[-1]["type"] != "hand_end"
            else "idle",
            "next_seat": hand.get("next_seat") if hand else None,
            "game": match["game"],
            "profile": match["profile"],
            "hand": hand.get("hand") if hand else None,
            "level": hand_start.get("level"),
            "trump": trump,
            "banker": banker,
            "seats": [
                {
                    "index": i,
                    "name": name,
                    "team": next((t for t, team in enumerate(teams) if i in team), None),
                    "banker": i == banker,
                    "time_per_play": per_play[i],
                    "cards_left": _at(hand.get("counts") if hand else None, i),
                }
                for i, name in enumerate(names)
            ],
            "teams": [
                {
                    "index": t,
                    "seats": team,
                    "names": [names[i] for i in team],
                    "level": levels[t] if t < len(levels) else None,
                    "banker_side": banker in team,
                    "trick_points": won[t],
                }
                for t, team in enumerate(teams)
            ],
            "attacker_points": hand.get("attacker_points") if hand else None,
            "current_trick": current,
            "tricks": tricks,
            "bottom": bottom,
            "outcome": outcome,
            "violations": violations,
            "open_violations": sum(1 for v in violations if v.get("status", "open") == "open"),
            "needs_referee": [
                e for e in events if e["type"] == "needs_referee" and e["ref"] not in settled
            ],
            "audit": audit,
            "plays": [
                {
                    k: e.get(k)
                    for k in ("seq", "t", "seat", "cards", "evidence", "confidence", "corrected_by")
                }
                for e in hand_events
                if e["type"] == "play"
            ],
            "last_t": events[-1].get("t"),
        }
    )
    return view


def public_view(view: dict[str, Any]) -> dict[str, Any]:
    """The overlay's data: a whitelist, so nothing hidden can leak by a new field upstream."""
    if "seats" not in view:
        return {"id": view["id"], "seq": view["seq"], "status": view.get("status")}

    def plays(trick: dict[str, Any] | None) -> dict[str, Any] | None:
        if not trick:
            return None
        return {
            "leader": trick.get("leader"),
            "winner": trick.get("winner"),
            "points": trick.get("points"),
            "plays": [{"seat": p["seat"], "cards": list(p["cards"])} for p in trick["plays"]],
        }

    bottom = view.get("bottom") or {}
    return {
        "id": view["id"],
        "seq": view["seq"],
        "status": view["status"],
        "hand": view["hand"],
        "level": view["level"],
        "trump": {"suit": view["trump"].get("suit"), "level": view["trump"].get("level")},
        "seats": [
            {"name": s["name"], "team": s["team"], "banker": s["banker"]} for s in view["seats"]
        ],
        "teams": [
            {
                "names": t["names"],
                "level": t["level"],
                "banker_side": t["banker_side"],
                "trick_points": t["trick_points"],
            }
            for t in view["teams"]
        ],
        "attacker_points": view["attacker_points"],
        "current_trick": plays(view["current_trick"]),
        "last_trick": plays(view["tricks"][-1]) if view["tricks"] else None,
        "tricks_played": len(view["tricks"]),
        "bottom": {
            "count": bottom.get("count"),
            "cards": list(bottom["cards"]) if bottom.get("cards") else None,
        },
        "violations": [
            {"rule": v.get("rule"), "seat": v.get("seat"), "status": v.get("status", "open")}
            for v in view["violations"]
            if v.get("status") == "upheld"
        ],
    }
