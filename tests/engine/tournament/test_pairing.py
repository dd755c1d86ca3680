"""Pairings: the bracket's byes, the round robin, Swiss under rematch pressure, the seats."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.tournament import (
    Entrant,
    FormatError,
    Game,
    Match,
    bracket_positions,
    game_from_places,
    load_format,
    pair_round,
    two_table_swap,
)


def field(n: int) -> list[Entrant]:
    return [Entrant(f"A{i}") for i in range(1, n + 1)]


def win(stage: int, rnd: int, a: str, b: str, games: int = 1) -> Match:
    return Match(stage, rnd, a, b, tuple(Game("a", 12, 3) for _ in range(games)))


def played(pairing: object) -> list[str]:
    return [x for p in pairing.pairs for x in p] + list(pairing.byes)  # type: ignore[attr-defined]


def test_fourteen_pairs_leave_places_8_and_16_as_byes() -> None:
    # community-10ka: 「抽到A8和A16的两组玩家可以轮空」: 16 places, 14 pairs
    slots = bracket_positions([e.name for e in field(14)], 0, "x")
    assert [i + 1 for i, s in enumerate(slots) if s is None] == [8, 16]
    fmt = load_format("community-10ka")
    r1 = pair_round(fmt, 1, 1, field(14), [], seed=5)
    assert len(r1.pairs) == 6 and len(r1.byes) == 2
    assert sorted(played(r1)) == sorted(e.name for e in field(14))
    ms = [win(1, 1, a, b) for a, b in r1.pairs]
    r2 = pair_round(fmt, 1, 2, field(14), ms, seed=5)
    assert len(r2.pairs) == 4 and not r2.byes
    assert set(played(r2)) == {a for a, _ in r1.pairs} | set(r1.byes)


def test_five_entrants_three_byes_then_a_power_of_two() -> None:
    fmt = load_format("cyclic-eat")
    r1 = pair_round(fmt, 1, 1, field(5), [], seed=1)
    assert len(r1.pairs) == 1 and len(r1.byes) == 3
    a, b = r1.pairs[0]
    ms = [Match(1, 1, a, b, (Game("b", 3, 12), Game("b", 1, 12)))]
    r2 = pair_round(fmt, 1, 2, field(5), ms, seed=1)
    assert sorted(played(r2)) == sorted([b, *r1.byes]) and not r2.byes
    with pytest.raises(FormatError, match="has no result yet, so round 3 cannot be drawn"):
        pair_round(fmt, 1, 3, field(5), ms, seed=1)


def test_the_same_seed_draws_the_same_and_another_seed_differs() -> None:
    fmt = load_format("community-10ka")
    draws = {pair_round(fmt, 1, 1, field(12), [], seed=s).pairs for s in range(6)}
    assert pair_round(fmt, 1, 1, field(12), [], seed=3) == pair_round(
        fmt, 1, 1, field(12), [], seed=3
    )
    assert len(draws) > 1


def test_round_robin_meets_everyone_once() -> None:
    fmt = load_format("gouji-qingdao")
    seen = set()
    for rnd in range(1, 5):
        p = pair_round(fmt, 1, rnd, field(5), [], seed=2)
        assert len(p.pairs) == 2 and len(p.byes) == 1
        seen |= {frozenset(x) for x in p.pairs}
    assert len(seen) == 8
    p5 = pair_round(fmt, 1, 5, field(5), [], seed=2)
    seen |= {frozenset(x) for x in p5.pairs}
    assert len(seen) == 10  # all 5·4/2 pairs in five rounds
    with pytest.raises(FormatError, match="a round robin of 5 plays 5 rounds"):
        pair_round(fmt, 1, 6, field(5), [], seed=2)


def swiss_field(n: int) -> tuple[object, list[Entrant]]:
    fmt = load_format("chaodipi-h5")
    # stage 2 is the Swiss: a field of n after a knock-out of 20 or fewer is everyone
    return fmt, field(n)


def test_swiss_under_rematch_pressure() -> None:
    # four pairs, three rounds: after two rounds the leaders (2 wins) have met, so round 3
    # must pair each with a 1-win pair instead, and the only pairs left unplayed are forced
    fmt = load_format("chaodipi-h5")
    f = field(4)
    ms = [
        win(2, 1, "A1", "A2"),
        win(2, 1, "A3", "A4"),
        win(2, 2, "A1", "A3"),
        win(2, 2, "A2", "A4"),
    ]
    # scores: A1 2, A2 1, A3 1, A4 0; unplayed pairs: A1-A4, A2-A3
    p3 = pair_round(fmt, 2, 3, f, ms, seed=0)
    assert {frozenset(p) for p in p3.pairs} == {frozenset(("A1", "A4")), frozenset(("A2", "A3"))}
    # a fourth round has no pairs left: the sheet plays three
    with pytest.raises(FormatError, match="plays 3 rounds"):
        pair_round(fmt, 2, 4, f, ms, seed=0)


def test_swiss_score_groups_first() -> None:
    fmt = load_format("chaodipi-h5")
    f = field(8)
    r1 = [
        win(2, 1, "A1", "A2"),
        win(2, 1, "A3", "A4"),
        win(2, 1, "A5", "A6"),
        win(2, 1, "A7", "A8"),
    ]
    p2 = pair_round(fmt, 2, 2, f, r1, seed=4)
    winners = {"A1", "A3", "A5", "A7"}
    for a, b in p2.pairs:
        assert (a in winners) == (b in winners), "高分对高分，低分对低分"
        assert frozenset((a, b)) not in {frozenset((m.a, m.b)) for m in r1}


def test_swiss_odd_field_gives_one_bye_to_a_low_score_once() -> None:
    fmt = load_format("chaodipi-h5")
    f = field(5)
    r1 = pair_round(fmt, 2, 1, f, [], seed=9)
    assert len(r1.byes) == 1
    ms = [win(2, 1, a, b) for a, b in r1.pairs]
    r2 = pair_round(fmt, 2, 2, f, ms, seed=9)
    assert r2.byes[0] != r1.byes[0]
    losers = {b for _, b in r1.pairs}
    assert r2.byes[0] in losers  # 0 points, not the round-1 bye


def test_gouji_two_table_swap_seats() -> None:
    # 「甲乙队第一小组分别坐1#桌子1、3、5和2、4、6」; 「两桌互换，甲队队员分别做另一桌乙队的
    # 2、4、6位置，乙队队员坐另一桌甲队的1、3、5位置」(L244)
    a = [f"甲{i}" for i in range(1, 7)]
    b = [f"乙{i}" for i in range(1, 7)]
    seats = {(s.set, s.table, s.seat): s.player for s in two_table_swap("甲", a, "乙", b)}
    assert [seats[(1, "1", n)] for n in range(1, 7)] == ["甲1", "乙1", "甲2", "乙2", "甲3", "乙3"]
    assert [seats[(1, "2", n)] for n in range(1, 7)] == ["甲4", "乙4", "甲5", "乙5", "甲6", "乙6"]
    assert [seats[(2, "2", n)] for n in range(1, 7)] == ["乙1", "甲1", "乙2", "甲2", "乙3", "甲3"]
    assert [seats[(2, "1", n)] for n in range(1, 7)] == ["乙4", "甲4", "乙5", "甲5", "乙6", "甲6"]
    with pytest.raises(FormatError, match="team 乙: a two-table match needs 6 players, found 5"):
        two_table_swap("甲", a, "乙", b[:5])


def test_gouji_places_score_as_the_sheets_count() -> None:
    qd = load_format("gouji-qingdao").points
    assert game_from_places(qd, [1, 2, 3]) == Game("a", 8, 0)  # 串三户 8
    assert game_from_places(qd, [1, 4, 6]) == Game("draw", 0, 0)  # 4+0-4 against 2+0-2
    assert game_from_places(qd, [2, 4, 6]) == Game("b", 0, 2)  # -2 against 2: 只记正分
    pdk = load_format("gouji-paodekuai").points
    assert game_from_places(pdk, [1, 3, 5]) == Game("a", 6 + 4 + 2, 5 + 3 + 1)


def test_dianshao_cross_final_after_two_groups() -> None:
    fmt = load_format("gouji-dianshao")
    f = [Entrant(n, group=g) for g, names in (("一", "甲乙丙"), ("二", "丁戊己")) for n in names]
    six = tuple(Game("a", 15, 6) for _ in range(6))
    ms = []
    for g in ("甲乙丙", "丁戊己"):  # the first beats both, the second beats the third
        ms += [
            Match(1, 1, g[0], g[1], six),
            Match(1, 2, g[0], g[2], six),
            Match(1, 3, g[1], g[2], six),
        ]
    semis = pair_round(fmt, 2, 1, f, ms, seed=0)
    assert semis.pairs == (("丁", "乙"), ("甲", "戊")) or semis.pairs == (
        ("甲", "戊"),
        ("丁", "乙"),
    )
    ms += [Match(2, 1, a, b, six) for a, b in semis.pairs]
    final = pair_round(fmt, 2, 2, f, ms, seed=0)
    assert {frozenset(p) for p in final.pairs} == {frozenset("甲丁"), frozenset("乙戊")}


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 13), seed=st.integers(0, 10**6), data=st.data())
def test_swiss_properties(n: int, seed: int, data: st.DataObject) -> None:
    fmt = load_format("chaodipi-h5")
    f = field(n)
    ms: list[Match] = []
    met: set[frozenset[str]] = set()
    byes: list[str] = []
    for rnd in (1, 2, 3):
        try:
            p = pair_round(fmt, 2, rnd, f, ms, seed)
        except FormatError as e:  # a small field can run out of new opponents
            assert "without a rematch" in str(e) and n <= 4
            return
        assert p == pair_round(fmt, 2, rnd, f, ms, seed), "reproducible with the same seed"
        assert sorted(played(p)) == sorted(e.name for e in f), "everyone once a round"
        assert len(p.byes) == n % 2
        for a, b in p.pairs:
            assert frozenset((a, b)) not in met, "no rematch"
            met.add(frozenset((a, b)))
            winner = data.draw(st.sampled_from("ab"))
            ms.append(
                Match(
                    2,
                    rnd,
                    a,
                    b,
                    (Game(winner, 12 if winner == "a" else 3, 12 if winner == "b" else 3),),
                )
            )
        byes += p.byes
    assert len(byes) == len(set(byes)), "one bye at most per entrant"


@settings(max_examples=30, deadline=None)
@given(n=st.integers(2, 20), seed=st.integers(0, 10**6))
def test_knockout_bracket_properties(n: int, seed: int) -> None:
    fmt = load_format("community-10ka")
    f = field(n)
    ms: list[Match] = []
    rnd, left = 1, n
    byes: list[str] = []
    while left > 1:
        p = pair_round(fmt, 1, rnd, f, ms, seed)
        alive = played(p)
        assert len(alive) == len(set(alive)) == left
        byes += p.byes
        ms += [win(1, rnd, a, b) for a, b in p.pairs]
        left = len(p.pairs) + len(p.byes)
        rnd += 1
    assert len(byes) == len(set(byes))
    assert rnd - 1 == max(1, (n - 1).bit_length())


@settings(max_examples=30, deadline=None)
@given(n=st.integers(2, 11), seed=st.integers(0, 10**6))
def test_round_robin_properties(n: int, seed: int) -> None:
    fmt = load_format("gouji-qingdao")
    f = field(n)
    rounds = n - 1 if n % 2 == 0 else n
    met: list[frozenset[str]] = []
    byes: list[str] = []
    for rnd in range(1, rounds + 1):
        p = pair_round(fmt, 1, rnd, f, [], seed)
        assert p == pair_round(fmt, 1, rnd, f, [], seed)
        assert sorted(played(p)) == sorted(e.name for e in f)
        met += [frozenset(x) for x in p.pairs]
        byes += p.byes
    assert len(met) == len(set(met)) == n * (n - 1) // 2, "everyone meets everyone once"
    assert len(byes) == len(set(byes)) == (n if n % 2 else 0)
