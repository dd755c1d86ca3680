"""Standings of a stage and the reason for every tie-break.

Entrants are ranked by the stage's criteria in the order the sheet lists them (青岛: 场分, then
胜负关系, 累计局分, 最大胜局, 抽签). Ties are broken as the sheets read: a criterion is applied to
the tied entrants only (head-to-head counts only their matches with one another), and when it
splits them into smaller ties, each smaller tie starts again from the first tie-break (so two
teams left level after a three-way head-to-head are compared with each other alone). Where the
sheet's criteria run out, the entrants share the rank and the reason says so.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine.tournament.entrants import Entrant
from engine.tournament.formats import Format, Stage
from engine.tournament.results import Match, outcome

__all__ = ["CRITERION_NAMES", "Reason", "Standing", "lot_order", "standings"]

#: the criteria as the reasons name them (English; the dashboard's catalogs translate them)
CRITERION_NAMES = {
    "match_points": "match points",
    "game_points": "accumulated game points",
    "head_to_head": "head-to-head",
    "head_to_head_game_points": "head-to-head game points",
    "largest_win": "largest win",
    "lots": "lots",
}
LEVEL = "level"  # the sheet's criteria ran out: the rank is shared


@dataclass(frozen=True, slots=True)
class Reason:
    """Why an entrant stands where it does against a tied neighbour."""

    relation: str  # ahead | behind | level
    other: str
    criterion: str  # one of CRITERION_NAMES, or "" for level

    def text(self) -> str:
        """``ahead of 队3 on head-to-head``; ``level with 队3`` when the sheet stops."""
        if self.relation == LEVEL:
            return f"level with {self.other} (the sheet breaks this tie no further)"
        where = "ahead of" if self.relation == "ahead" else "behind"
        return f"{where} {self.other} on {CRITERION_NAMES[self.criterion]}"


@dataclass(frozen=True, slots=True)
class Standing:
    """One line of the table."""

    rank: int
    entrant: str
    group: str
    played: int
    won: int
    drawn: int
    lost: int
    match_points: float
    game_points: float
    reason: Reason | None

    @property
    def tiebreak(self) -> str:
        return self.reason.text() if self.reason else ""


def lot_order(names: Sequence[str], seed: int, what: str) -> list[str]:
    """``names`` in the order a lot drawn with ``seed`` puts them (the same seed, the same
    order): the one source of chance in the package."""
    out = sorted(names)
    random.Random(f"{seed}:{what}").shuffle(out)
    return out


class _Table:
    """One group's matches and the criteria's values over them."""

    def __init__(self, fmt: Format, stage: Stage, matches: Sequence[Match], lots: list[str]):
        self.stage = stage
        self.matches = matches
        self.lots = {e: -i for i, e in enumerate(lots)}
        mp = stage.match_points
        self.points: dict[tuple[str, Match], float] = {}
        for m in matches:
            win = outcome(stage, m).winner
            for e in (m.a, m.b):
                self.points[(e, m)] = mp[1] if win is None else mp[0] if win == e else mp[2]

    def value(self, criterion: str, e: str, tied: Sequence[str]) -> float:
        among = set(tied)
        mine = [m for m in self.matches if e in (m.a, m.b)]
        if criterion == "match_points":
            return sum(self.points[(e, m)] for m in mine)
        if criterion == "game_points":
            return sum(m.points_of(e) for m in mine)
        if criterion == "head_to_head":
            return sum(self.points[(e, m)] for m in mine if {m.a, m.b} <= among)
        if criterion == "head_to_head_game_points":
            return sum(m.points_of(e) for m in mine if {m.a, m.b} <= among)
        if criterion == "largest_win":
            margins = [
                (g.a_points - g.b_points) * (1 if m.side(e) == "a" else -1)
                for m in mine
                for g in m.games
                if g.winner == m.side(e)
            ]
            return max(margins, default=0.0)
        return float(self.lots[e])  # lots


def _order(
    group: list[str], idx: int, crits: Sequence[str], value: Callable[[str, str, list[str]], float]
) -> list[tuple[str, str]]:
    """``group`` in order, each with the criterion that puts it above the next ("" at the
    end, LEVEL where the criteria run out)."""
    if len(group) == 1:
        return [(group[0], "")]
    if idx >= len(crits):
        ordered = sorted(group)
        return [(e, LEVEL) for e in ordered[:-1]] + [(ordered[-1], "")]
    crit = crits[idx]
    vals = {e: value(crit, e, group) for e in group}
    levels = sorted(set(vals.values()), reverse=True)
    if len(levels) == 1:
        return _order(group, idx + 1, crits, value)
    out: list[tuple[str, str]] = []
    for level in levels:
        part = [e for e in group if vals[e] == level]
        sub = _order(part, 1, crits, value)  # a smaller tie starts again from the first
        if out:
            out[-1] = (out[-1][0], crit)
        out.extend(sub)
    return out


def standings(
    fmt: Format, stage_no: int, field: Sequence[Entrant], matches: Sequence[Match], seed: int = 0
) -> list[Standing]:
    """The table of stage ``stage_no`` for its ``field`` (``pairing.stage_field``: everyone in
    stage 1) over ``matches`` (already checked), group by group; the reason on every entrant
    that a tie-break placed. ``seed`` draws the lots where the sheet breaks a tie by lot."""
    stage = fmt.stage(stage_no)
    played = [m for m in matches if m.stage == stage_no]
    groups: dict[str, list[Entrant]] = {}
    for e in field:
        groups.setdefault(e.group, []).append(e)
    out: list[Standing] = []
    for gname in sorted(groups):
        names = [e.name for e in groups[gname]]
        ms = [m for m in played if m.a in names and m.b in names]
        table = _Table(fmt, stage, ms, lot_order(names, seed, f"{fmt.id}:{stage_no}:{gname}:lots"))
        ordered = _order(sorted(names), 0, stage.rank, table.value)
        rank = 0
        for i, (name, sep) in enumerate(ordered):
            prev_sep = ordered[i - 1][1] if i else ""
            if not (i and prev_sep == LEVEL):
                rank = i + 1
            reason: Reason | None = None
            if sep == LEVEL:
                reason = Reason(LEVEL, ordered[i + 1][0], "")
            elif sep and sep != stage.rank[0]:
                reason = Reason("ahead", ordered[i + 1][0], sep)
            elif prev_sep == LEVEL:
                reason = Reason(LEVEL, ordered[i - 1][0], "")
            elif prev_sep and prev_sep != stage.rank[0]:
                reason = Reason("behind", ordered[i - 1][0], prev_sep)
            mine = [m for m in ms if name in (m.a, m.b)]
            wins = [outcome(stage, m).winner for m in mine]
            out.append(
                Standing(
                    rank=rank,
                    entrant=name,
                    group=gname,
                    played=len(mine),
                    won=sum(w == name for w in wins),
                    drawn=sum(w is None for w in wins),
                    lost=sum(w is not None and w != name for w in wins),
                    match_points=table.value("match_points", name, names),
                    game_points=table.value("game_points", name, names),
                    reason=reason,
                )
            )
    return out
