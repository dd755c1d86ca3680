"""Each sheet's score for one deal (GOUJI.md §3.7): place table, 串三户, 开点 per 对门 pair,
burns, 憋3, two-kills-one, entered 进贡 (changshi), and "only positive scores recorded" where a
sheet says so.

Every point carries an item naming what earned it, so a referee can read the sum back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.gouji.rules import Rules
from engine.gouji.table import SEATS, Burn, Tribute, duitou, same_team

PLACE_NAMES = ("头科", "二科", "三科", "四科", "二落", "大落")


@dataclass(frozen=True, slots=True)
class Outcome:
    """What scoring needs from a finished deal."""

    places: list[int | None]  # seats, 头科 first; None where not decided
    opened: list[bool]
    open_count: list[int]
    burns: list[Burn]
    blocks: list[tuple[int, int, int]]  # (blocker, victim, seq)
    kills: list[tuple[int, int]]  # (seat, seq)
    mingdian: tuple[int, ...] = ()  # seats that declared 明点 on their 对门
    penalties: tuple[tuple[int, int, str], ...] = ()  # (seat, points, what) entered fouls
    tributes: tuple[Tribute, ...] = ()  # entered 进贡/还贡 of the deal


def burn_succeeded(b: Burn, rules: Rules, went_out: list[int]) -> bool:
    """Per profile: going out (16tiao), 头科/二科 (jinan), or the first set standing (kelamayi)."""
    if b.void or b.failed:
        return False
    if rules.burn.success == "first_set":
        return not b.beaten
    if b.seat not in went_out:
        return False
    if rules.burn.success == "top2":
        return went_out.index(b.seat) < 2
    return True


def score(rules: Rules, out: Outcome, went_out: list[int]) -> dict[str, Any]:
    """Per-seat points with their items, team totals and the recorded result."""
    s = rules.score
    seat_pts = [0] * SEATS
    items: list[list[dict[str, Any]]] = [[] for _ in range(SEATS)]

    def add(seat: int, what: str, pts: int, tribute: bool = False) -> None:
        if pts:
            seat_pts[seat] += pts
            item: dict[str, Any] = {"what": what, "points": pts}
            if tribute:  # views tell tribute points from the rest by this key
                item["tribute"] = True
            items[seat].append(item)

    # jinan scores these extras as tributes, in its words: 「点贡得2分，闷、烧贡各得1分」(L211)
    as_tribute = s.tribute == "points"

    places = [p for p in out.places if p is not None]
    complete = len(places) == SEATS
    if complete:
        for i, seat in enumerate(places):
            add(seat, PLACE_NAMES[i], s.places[i])
    sweep = complete and len({p % 2 for p in places[:3]}) == 1
    if sweep and s.chuansanhu_team:
        add(places[0], "串三户", s.chuansanhu_team - sum(s.places[:3]))
        if s.chuansanhu_loser_zero:
            for i, seat in enumerate(places[3:], start=3):
                add(seat, "串三户 (负方不得分)", -s.places[i])
    named = {s for m in out.mingdian for s in (m, duitou(m))}
    for caller in dict.fromkeys(out.mingdian):
        if out.opened[duitou(caller)]:
            add(duitou(caller), "明点失败 (对方)", s.mingdian)  # 「明点失败得0分，对方」(L115)
        else:
            add(caller, "明点成功", s.mingdian)  # 「明点成功得4分，对方得0分」(L115)
    for seat in range(SEATS):
        if seat in named:  # 「不再重复计算普通开点计分规则」(L116)
            continue
        me, him = out.opened[seat], out.opened[duitou(seat)]
        pts = {
            (True, True): s.kaidian_both,
            (False, False): s.kaidian_neither,
            (True, False): s.kaidian_won,
            (False, True): s.kaidian_lost,
        }[(me, him)]
        if as_tribute and (me, him) == (True, False):
            add(seat, "点贡", pts, tribute=True)
        else:
            add(seat, "开点" if me else "未开点", pts)
        add(seat, f"打点 ×{out.open_count[seat]}", s.kaidian_per_open * out.open_count[seat])
    for b in out.burns:
        if not burn_succeeded(b, rules, went_out):
            continue
        if same_team(b.seat, b.victim) and not s.burn_teammate:
            continue
        add(b.seat, "烧贡" if as_tribute else "烧牌", s.burn, tribute=as_tribute)
        add(b.victim, "被烧", s.burn_victim)
    for blocker, victim, _seq in out.blocks:
        if same_team(blocker, victim) and not s.bie3_teammate:
            continue
        add(blocker, "闷贡" if as_tribute else "憋3", s.bie3, tribute=as_tribute)
        add(victim, "被憋3", s.bie3_victim)
    for seat, _seq in out.kills:
        add(seat, "二杀一", s.two_kill_one)
    for seat, pts, what in out.penalties:
        add(seat, what, pts)
    if s.tribute == "per_card":  # 「每进贡一张，由吃贡者得1分，进贡者不得分」(L8); 还贡: nothing
        for tr in out.tributes:
            if tr.kind == "jin":
                add(tr.to, "进贡" if tr.count == 1 else f"进贡 ×{tr.count}", tr.count, tribute=True)
    teams = [sum(seat_pts[i] for i in range(t, SEATS, 2)) for t in (0, 1)]
    if s.positive_only:
        net = teams[0] - teams[1]
        recorded = [max(net, 0), max(-net, 0)]
    else:
        recorded = list(teams)
    return {
        "seats": seat_pts,
        "items": items,
        "teams": teams,
        "recorded": recorded,
        "chuansanhu": sweep,
        "complete": complete,
        "table_from_sheet": s.places_stated,  # False: the sheet has none, the core's is used
    }


def match_summary(recorded: Sequence[Sequence[int]], first_to: int) -> dict[str, Any]:
    """A match's result from each deal's recorded team points: deals, the points summed, the
    deals each team won (「得分多者为胜局」(L211); a level deal none), and the winner: by
    deals won where the sheet plays first-to, else by points; None when level."""
    teams = [sum(int(r[t]) for r in recorded) for t in (0, 1)]
    won = [sum(r[t] > r[1 - t] for r in recorded) for t in (0, 1)]
    lead = won if first_to else teams
    winner = None if lead[0] == lead[1] else (0 if lead[0] > lead[1] else 1)
    return {"hands": len(recorded), "teams": teams, "deals_won": won, "winner": winner}
