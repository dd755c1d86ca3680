"""One deal's account as the report shows it: who is on which side, trick and bottom points,
what the violations cost, and the level outcome (``scoring.level_outcome``). Pure functions of
the deal the referee kept, so ``state()``, ``report()`` and the end-of-deal ruling agree."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from engine.cards import Card
from engine.tractor.combos import Combo, classify
from engine.tractor.deal import HandState, Violation
from engine.tractor.order import Trump
from engine.tractor.rules import Rules
from engine.tractor.scoring import bottom_bonus, bottom_multiplier, level_outcome


def side_of(h: HandState, teams: list[list[int]], seat: int) -> str:
    """``banker`` or ``attackers``: the side of ``seat`` in this deal."""
    if h.banker is None:
        return "attackers"
    team = next((t for t in teams if h.banker in t), [])
    return "banker" if seat in team else "attackers"


def team_of(h: HandState, teams: list[list[int]], side: str) -> int | None:
    """The index in ``teams`` of the deal's ``side``."""
    for i, team in enumerate(teams):
        if h.banker is not None and (h.banker in team) == (side == "banker"):
            return i
    return None


def deal_known(h: HandState, rules: Rules) -> bool:
    """Every card of the deal seen: each seat played a whole hand, the bottom revealed."""
    return (
        h.bottom is not None
        and len(h.bottom) == rules.bottom
        and all(k.played_count() == rules.hand for k in h.seats.values())
    )


def hand_doc(
    h: HandState,
    rules: Rules,
    teams: list[list[int]],
    violation_doc: Callable[[Violation], dict[str, Any]],
) -> dict[str, Any]:
    """One deal as the report shows it: tricks, bottom, points, violations, outcome."""
    trump = h.trump
    trick_points = sum(
        t.points
        for t in h.tricks
        if t.winner is not None and side_of(h, teams, t.winner) == "attackers"
    )
    bottom: dict[str, Any] = {
        "cards": [str(c) for c in h.bottom] if h.bottom is not None else None,
        "multiplier": None,
        "points": None,
    }
    attacker_points = trick_points
    last = h.tricks[-1] if h.tricks else None
    if (
        h.ended
        and last is not None
        and last.winner is not None
        and trump is not None
        and side_of(h, teams, last.winner) == "attackers"
    ):
        win_play = next(p for p in last.plays if p.seat == last.winner)
        mult, bonus = bottom_factor(win_play.cards, last.lead, trump, rules)
        bottom["multiplier"] = mult
        if h.bottom is not None:
            pts = sum(c.points for c in h.bottom) * mult + bonus
            bottom["points"] = pts
            attacker_points += pts
    elif h.ended and h.bottom is not None:
        bottom["multiplier"] = 0
        bottom["points"] = 0
    penalty_points = 0
    penalty_levels: list[dict[str, Any]] = []
    for v in h.violations:
        if v.status == "dismissed":
            continue
        side = side_of(h, teams, v.seat)
        pts = int(v.penalty.get("points", 0))
        if pts:
            penalty_points += -pts if side == "attackers" else pts
        lv = int(v.penalty.get("levels", 0))
        if lv:
            other = "banker" if side == "attackers" else "attackers"
            penalty_levels.append({"side": other, "levels": lv, "violation": v.id})
    attacker_points += penalty_points
    if penalty_points < 0 and any(v.penalty.get("floor0") for v in h.violations):
        attacker_points = max(attacker_points, 0)
    outcome: dict[str, Any] | None = None
    if h.ended and h.banker is not None and trump is not None and h.end_reason == "complete":
        outcome = outcome_of(h, rules, teams, attacker_points)
        if penalty_levels:
            outcome["penalty_levels"] = penalty_levels
    return {
        "hand": h.hand,
        "trump": {"level": h.level, "suit": trump.suit if trump else None}
        | ({"unknown": True} if trump is None else {}),
        "banker": h.banker,
        "tricks": [t.as_dict() for t in h.tricks],
        "bottom": bottom,
        "trick_points": trick_points,
        "penalty_points": penalty_points,
        "attacker_points": attacker_points,
        "violations": [violation_doc(v) for v in h.violations],
        "outcome": outcome,
        "end": h.end_reason or None,
        **({"levels_after": list(h.levels_after)} if h.levels_after is not None else {}),
        "audit": {
            "deal_known": deal_known(h, rules),
            # with the whole deal known an open follow or throw is proven legal; without
            # it, it is only unproven (never a violation)
            "confirmed_legal": h.audited if deal_known(h, rules) else 0,
            "unproven": 0 if deal_known(h, rules) else h.audited,
        }
        if h.ended
        else None,
    }


def outcome_of(
    h: HandState, rules: Rules, teams: list[list[int]], attacker_points: int
) -> dict[str, Any]:
    """``level_outcome`` for this deal, with the capture (knock-backs) and the seats."""
    assert h.banker is not None and h.trump is not None
    capture = None
    last = h.tricks[-1] if h.tricks else None
    if (
        last is not None
        and last.winner is not None
        and side_of(h, teams, last.winner) == "attackers"
    ):
        capture = next(p for p in last.plays if p.seat == last.winner).cards
    a_team = team_of(h, teams, "attackers")
    a_level = h.levels_before[a_team] if a_team is not None else None
    res = level_outcome(
        attacker_points,
        rules,
        h.level,
        attacker_level=a_level if a_level in rules.ladder else None,
        banker=h.banker,
        capture=capture,
        trump=h.trump,
    )
    return res.as_dict()


def bottom_factor(
    winning: Sequence[Card], lead: Combo, trump: Trump, rules: Rules
) -> tuple[int, int]:
    """(multiplier, flat bonus) for the bottom won with ``winning`` on the last trick."""
    combo = classify(winning, trump, rules)
    return bottom_multiplier(combo, trump, rules), bottom_bonus(combo, trump, rules)
