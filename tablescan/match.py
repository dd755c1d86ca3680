"""The match as the node follows it: what the referee's outcome of a deal says of the next
one, which reads were doubted at once, the rulings a record yields, and the match's result.
Kept apart from the node so the node is the per-frame path alone."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from engine.games import RefereeLike
from engine.match_clock import AtTime, ClockRule, MatchNow
from engine.record import Event, Ruling, provisional_if


def next_deal(referee: RefereeLike | None, hand: int) -> Event | None:
    """The next deal's ``hand_start`` fields as the game's referee decides them
    (``next_hand()``: 80-points from the last deal's outcome, Gouji from its sheet's number of
    deals), or None when the match is over; with no referee, a deal after ``hand`` whose
    banker the declarations decide."""
    if referee is None:
        return cast(Event, {"type": "hand_start", "hand": hand + 1, "banker": None, "level": "2"})
    got = referee.next_hand()
    return None if got is None else cast(Event, {"type": "hand_start", **got})


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
        out += [provisional_if(r, int(ev["seq"]) in doubted) for r in referee.feed(ev)]
    return out


def match_result(referee: RefereeLike | None) -> dict[str, Any]:
    """``match_end``'s ``result`` as the game's referee gives it (``match_result()``: deals
    played, and each game's own figures and winner); with no referee, nothing judged."""
    if referee is None:
        return {"hands": 0, "levels": [], "winner": None}
    return referee.match_result()


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
            nxt = next_deal(referee, len(hands))
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
