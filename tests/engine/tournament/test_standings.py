"""Standings worked by hand from the sheets' own tie-break rules."""

from __future__ import annotations

from engine.tournament import Entrant, Game, Match, check_results, load_format, standings


def team(*names: str) -> list[Entrant]:
    return [Entrant(n) for n in names]


def m(a: str, b: str, *games: tuple[str, float, float], rnd: int = 1) -> Match:
    return Match(1, rnd, a, b, tuple(Game(*g) for g in games))


WIN_A = ("a", 6, 0)
WIN_B = ("b", 0, 6)


def table(fid: str, field: list[Entrant], ms: list[Match]) -> list[tuple[int, str, str]]:
    fmt = load_format(fid)
    check_results(fmt, [e.name for e in field], ms)
    return [(s.rank, s.entrant, s.tiebreak) for s in standings(fmt, 1, field, ms)]


def test_qingdao_three_way_tie_goes_to_accumulated_game_points() -> None:
    # 队1 beats 队2, 队2 beats 队3, 队3 beats 队1 (2-1 in 局 each), all beat 队4:
    # each of the three has 2 场分 and 1 head-to-head; 累计局分 then splits them.
    ms = [
        m("队1", "队2", ("a", 8, 0), ("a", 2, 0), ("b", 0, 2), rnd=1),
        m("队2", "队3", ("a", 4, 0), ("a", 2, 0), ("b", 0, 2), rnd=2),
        m("队3", "队1", ("a", 2, 0), ("a", 2, 0), ("b", 0, 4), rnd=3),
        m("队1", "队4", WIN_A, WIN_A, rnd=2),
        m("队2", "队4", WIN_A, WIN_A, rnd=3),
        m("队3", "队4", WIN_A, WIN_A, rnd=1),
    ]
    # 局分: 队1 8+2+4+12 = 26, 队2 2+4+2+12 = 20, 队3 2+2+2+12 = 18
    assert table("gouji-qingdao", team("队1", "队2", "队3", "队4"), ms) == [
        (1, "队1", "ahead of 队2 on accumulated game points"),
        (2, "队2", "ahead of 队3 on accumulated game points"),
        (3, "队3", "behind 队2 on accumulated game points"),
        (4, "队4", ""),
    ]


def test_a_smaller_tie_starts_again_from_head_to_head() -> None:
    # as above, but 队2 and 队3 level on 局分: the two of them are then compared alone, and
    # 队2 beat 队3
    ms = [
        m("队1", "队2", ("a", 8, 0), ("a", 2, 0), ("b", 0, 2), rnd=1),
        m("队2", "队3", ("a", 4, 0), ("a", 2, 0), ("b", 0, 2), rnd=2),
        m("队3", "队1", ("a", 2, 0), ("a", 4, 0), ("b", 0, 4), rnd=3),
        m("队1", "队4", WIN_A, WIN_A, rnd=2),
        m("队2", "队4", WIN_A, WIN_A, rnd=3),
        m("队3", "队4", WIN_A, WIN_A, rnd=1),
    ]
    # 局分: 队1 10+4+12 = 26, 队2 2+6+12 = 20, 队3 2+6+12 = 20
    rows = table("gouji-qingdao", team("队1", "队2", "队3", "队4"), ms)
    assert rows[0] == (1, "队1", "ahead of 队2 on accumulated game points")
    assert rows[1] == (2, "队2", "ahead of 队3 on head-to-head")
    assert rows[2] == (3, "队3", "behind 队2 on head-to-head")


def test_qingdao_largest_win_then_lots() -> None:
    # two teams level on everything but the widest 局 won: 队A won one 局 by 8
    ms = [m("队A", "队B", ("a", 8, 0), ("b", 0, 4), ("b", 0, 4))]
    ms.append(m("队A", "队C", ("b", 0, 2), ("a", 2, 0), ("draw", 0, 0), rnd=2))
    field = team("队A", "队B", "队C")
    rows = table("gouji-qingdao", field, ms)
    # 队B: 1 场 won; 队A: lost, drew; 队C: drew
    assert rows[0][:2] == (1, "队B")
    # 队A and 队C: 0.5 each, head-to-head level (a drawn match), 局分 队A 10+2 = 12 vs 队C 2
    assert rows[1] == (2, "队A", "ahead of 队C on accumulated game points")


def test_paodekuai_circle_of_three_goes_to_their_small_points() -> None:
    # 「如出现三队同分且甲队胜乙队，乙队胜丙队，丙队胜甲队，则计算三队对阵小分」(L245)
    level = ("draw", 21, 21)
    ms = [
        m("甲", "乙", ("a", 25, 17), level, level, level),
        m("乙", "丙", ("a", 22, 20), level, level, level, rnd=2),
        m("丙", "甲", ("a", 24, 18), level, level, level, rnd=3),
    ]
    fmt = load_format("gouji-paodekuai")
    field = team("甲", "乙", "丙")
    check_results(fmt, ["甲", "乙", "丙"], ms)
    rows = [(s.rank, s.entrant, s.match_points, s.tiebreak) for s in standings(fmt, 1, field, ms)]
    # small points among the three: 甲 25+63 + 18+63 = 169, 乙 17+63 + 22+63 = 165,
    # 丙 20+63 + 24+63 = 170
    assert rows == [
        (1, "丙", 3, "ahead of 甲 on head-to-head game points"),
        (2, "甲", 3, "ahead of 乙 on head-to-head game points"),
        (3, "乙", 3, "behind 甲 on head-to-head game points"),
    ]


def test_dianshao_shares_a_rank_where_the_sheet_stops() -> None:
    six = [("a", 15, 6)] * 6
    ms = [m("甲", "乙", *six), m("丙", "丁", *six)]
    rows = table("gouji-dianshao", team("甲", "乙", "丙", "丁"), ms)
    assert [r[0] for r in rows] == [1, 1, 3, 3]
    assert {rows[0][1], rows[1][1]} == {"甲", "丙"}
    assert rows[0][2] == f"level with {rows[1][1]} (the sheet breaks this tie no further)"
    assert rows[1][2] == f"level with {rows[0][1]} (the sheet breaks this tie no further)"
