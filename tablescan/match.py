"""The match as the node follows it: what the referee's outcome of a deal says of the next
one, which reads were doubted at once, the rulings a record yields, and the match's result.
Kept apart from the node so the node is the per-frame path alone."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from engine.games import RefereeLike
from engine.match_clock import AtTime, ClockRule, MatchNow
from engine.record import Event, Ruling


def next_deal(referee: Any, n_seats: int, hand: int) -> Event | None:
    """The next deal's ``hand_start`` fields as the referee's outcome of the last deal says
    (banker, and the level of the banker's side), or None when the match is over (a side
    passed its last level). A referee with its own ``next_hand()`` (a game whose deals go
    otherwise) is asked that instead; without a ruled outcome the declarations decide."""
    own = getattr(referee, "next_hand", None)
    if callable(own):
        got = own()
        return None if got is None else cast(Event, {"type": "hand_start", **got})
    report = referee.report() if referee is not None else {}
    hands = report.get("hands") or []
    last = hands[-1] if hands else {}
    out = last.get("outcome") or {}
    if out.get("game_over"):
        return None
    banker, nb = last.get("banker"), out.get("next_banker")
    if isinstance(nb, int):
        nxt: int | None = nb
    elif isinstance(banker, int) and nb in ("partner", "next"):
        nxt = (banker + (2 if nb == "partner" else 1)) % n_seats
    else:
        nxt = None
    teams = report.get("teams") or []
    levels = last.get("levels_after") or []
    team = next((i for i, t in enumerate(teams) if nxt in t), None)
    level = str(levels[team]) if team is not None and team < len(levels) else None
    if level is None:
        level = str(last.get("trump", {}).get("level") or "2") if last else "2"
    return {"type": "hand_start", "hand": hand + 1, "banker": nxt, "level": level}


def doubted_at_once(events: Sequence[Event]) -> set[int]:
    """Seqs of events written with their doubt at once (a ``needs_referee`` on it right
    after it): their violations were provisional when given, and are when re-sent."""
    return {
        int(ref)
        for e in events
        if e["type"] == "needs_referee"
        and isinstance(ref := e.get("ref"), int)
        and e["seq"] == ref + 1
    }


def rulings_of(referee: RefereeLike, events: Sequence[Event]) -> list[Ruling]:
    """Every ruling ``referee`` gives on the stored ``events`` (in seq order), as the node
    gave them (a violation on a read doubted at once: provisional): what a restart chains
    again when a crash came between an event and its rulings (the store keeps each once)."""
    doubted = doubted_at_once(events)
    out: list[Ruling] = []
    for ev in sorted(events, key=lambda e: int(e["seq"])):
        for r in referee.feed(ev):
            if int(ev["seq"]) in doubted and r.get("kind") == "violation":
                r = {**r, "provisional": True}
            out.append(r)
    return out


def match_result(referee: Any) -> dict[str, Any]:
    """``match_end``'s ``result``: deals played, each team's level, the winning team. A
    referee with its own ``match_result()`` (a game scored otherwise) is asked that instead."""
    own = getattr(referee, "match_result", None)
    if callable(own):
        return cast(dict[str, Any], own())
    report = referee.report() if referee is not None else {}
    hands = report.get("hands") or []
    last = hands[-1] if hands else {}
    out = last.get("outcome") or {}
    winner = None
    if out.get("game_over"):
        side = out.get("side")
        banker = last.get("banker")
        teams = report.get("teams") or []
        b_team = next((i for i, t in enumerate(teams) if banker in t), None)
        if b_team is not None:
            winner = b_team if side == "banker" else 1 - b_team
    return {"hands": len(hands), "levels": list(last.get("levels_after") or []), "winner": winner}


def clock_rule(referee: Any, events: Sequence[Event]) -> ClockRule:
    """The match's clock: the limit its ``match_start.clock`` put in force (the sheet's, or a
    table's stage limit) with the profile's at-time rule; no limit without one."""
    start = next((e for e in events if e["type"] == "match_start"), None)
    clock = (start or {}).get("clock") or {}
    minutes = clock.get("minutes") if isinstance(clock, dict) else None
    rules = getattr(referee, "rules", None)
    rule = getattr(rules, "clock", None)
    base = rule if isinstance(rule, ClockRule) else ClockRule()
    return base.with_minutes(int(minutes)) if isinstance(minutes, int) else ClockRule()


def clock_now(referee: Any, events: Sequence[Event], rule: ClockRule, t: float) -> MatchNow:
    """The match as the at-time decision reads it, from the record and the referee: the deal
    in play, the deals ended since the limit, each team's level and the banker side now (the
    deal in play's banker; between deals the next deal's, the side the last deal put on
    stage)."""
    limit = rule.limit_s
    last_kind = ""
    at_time_kind = ""
    ended_after = 0
    for ev in events:
        if ev["type"] in ("hand_start", "hand_end", "match_end"):
            last_kind = ev["type"]
            if float(ev["t"]) < limit:
                at_time_kind = ev["type"]
            elif ev["type"] == "hand_end":
                ended_after += 1
    deal_open = last_kind == "hand_start"
    rules = getattr(referee, "rules", None)
    start: dict[str, Any] = dict(next((e for e in events if e["type"] == "match_start"), {}))
    levels = tuple(str(x) for x in (getattr(referee, "levels", None) or start.get("levels", [])))
    teams = [list(x) for x in start.get("teams", [])]
    banker: Any = None
    if referee is not None:
        hands = referee.report().get("hands") or []
        if deal_open:
            banker = hands[-1].get("banker") if hands else None
        else:
            nxt = next_deal(referee, len(start.get("seats", [])), len(hands))
            banker = nxt.get("banker") if nxt else None
    team = next((i for i, members in enumerate(teams) if banker in members), None)
    return MatchNow(
        elapsed_s=t,
        deal_open=deal_open,
        open_at_time=at_time_kind == "hand_start",
        deals_ended_after=ended_after,
        levels=levels,
        ladder=tuple(getattr(rules, "ladder", ())),
        banker_team=team if isinstance(banker, int) else None,
    )


def result_on_time(referee: Any, decision: AtTime, rule: ClockRule) -> dict[str, Any]:
    """``match_end.result`` of a match the clock decided: the deals played, each team's level
    now (a deal stopped at time moves none), the winner by the at-time rule, and ``time``."""
    base = match_result(referee)
    levels = getattr(referee, "levels", None)
    if levels:
        base["levels"] = [str(x) for x in levels]
    return {**base, "winner": decision.winner, "time": decision.result(rule)}
