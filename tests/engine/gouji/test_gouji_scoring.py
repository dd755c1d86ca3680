"""Golden tests from each sheet's scoring table (GOUJI.md §3.7), quoting the sheet."""

from __future__ import annotations

from typing import Any

import pytest

from engine.gouji import Rules
from engine.gouji.scoring import Outcome, score
from engine.gouji.table import Burn

ALTERNATE = [0, 1, 2, 3, 4, 5]  # 头科 … 大落, teams alternate: no 串三户
SWEEP = [0, 2, 4, 1, 3, 5]  # team 0 takes 头科, 二科, 三科

TABLES = {
    "gouji-changshi": [5, 4, 3, 2, 1, 0],  # 「相应计分为5、4、3、2、1、0分」(L14)
    "gouji-16tiao": [6, 5, 4, 3, 2, 1],  # 「6分，二科得5分，三科得4分，四科得3分」(L90)
    "gouji-tv-bie3": [7, 5, 4, 3, 2, 1],  # 「按头二科、三科、四科、二落、大落」(L127)
    "gouji-jinan-2010": [7, 5, 4, 3, 2, -1],  # 「头科7分；二科5分；三科4分；四科3分」(L211)
    "gouji-kelamayi": [2, 1, 0, 0, -1, -2],  # 「“头科”2分,“二科”1分」(L237)
    "gouji-paodekuai": [6, 5, 4, 3, 2, 1],  # 「分别积小分6、5、4、3、2、1」(L245)
    "gouji-bie3": [4, 2, 0, 0, -2, -4],  # 「头科：＋4分 二科：＋2分」(L248)
    "gouji-qingdao": [4, 2, 0, 0, -2, -4],  # 「头科得4分，二科得2分」(L254)
    "gouji-dianshao": [5, 4, 3, 2, 1, 0],  # 「“头科”加5分，“二科”加4分」(L264)
    # No table in the sheet: the core fallback (places_stated = false)
    "gouji-core": [5, 4, 3, 2, 1, 0],
    "gouji-dagang": [5, 4, 3, 2, 1, 0],
    "gouji-tiaozhan": [5, 4, 3, 2, 1, 0],
    "gouji-abqu": [5, 4, 3, 2, 1, 0],
    "gouji-tongsu": [5, 4, 3, 2, 1, 0],
}


def outcome(
    places: list[int] = ALTERNATE,
    opened: list[bool] | None = None,
    open_count: list[int] | None = None,
    burns: list[Burn] | None = None,
    blocks: list[tuple[int, int, int]] | None = None,
    kills: list[tuple[int, int]] | None = None,
) -> Outcome:
    return Outcome(
        places,
        opened if opened is not None else [True] * 6,
        open_count or [0] * 6,
        burns or [],
        blocks or [],
        kills or [],
    )


def run(pid: str, out: Outcome) -> dict[str, Any]:
    return score(Rules.load(pid), out, [s for s in out.places[:5]])


@pytest.mark.parametrize("pid", sorted(TABLES))
def test_place_table(pid: str) -> None:
    rules = Rules.load(pid)
    assert list(rules.score.places) == TABLES[pid]
    assert rules.score.places_stated is (
        pid not in {"gouji-core", "gouji-dagang", "gouji-tiaozhan", "gouji-abqu", "gouji-tongsu"}
    )
    res = run(pid, outcome())
    assert res["seats"] == TABLES[pid]  # seat i took place i, everyone opened
    assert res["table_from_sheet"] is rules.score.places_stated
    assert res["teams"] == [sum(TABLES[pid][0::2]), sum(TABLES[pid][1::2])]


def test_changshi_chuansanhu_nine_to_zero() -> None:
    # 「胜利方直接得9分，负方不得分」(L45)
    res = run("gouji-changshi", outcome(SWEEP))
    assert res["chuansanhu"] and res["teams"] == [9, 0]


def test_16tiao_chuansanhu_doubles_to_thirty() -> None:
    # 「串三户记分翻番」(L92), 「获胜一方积30分」(L93); the loser's score is not stated
    res = run("gouji-16tiao", outcome(SWEEP))
    assert res["teams"] == [30, 3 + 2 + 1]


def test_qingdao_chuansanhu_eight_and_only_positive() -> None:
    # 「“串三户”获胜一方积8分」(L254), 「“只记正分，不记负分”」(L254)
    res = run("gouji-qingdao", outcome(SWEEP))
    assert res["recorded"] == [8, 0]
    plain = run("gouji-qingdao", outcome(ALTERNATE))
    assert plain["teams"] == [4 + 0 - 2, 2 + 0 - 4] and plain["recorded"] == [4, 0]


def test_kelamayi_no_doubling_and_only_positive() -> None:
    # 「堵三家得分不翻倍」(L237); 「正负相加后只记录正分」(L237)
    res = run("gouji-kelamayi", outcome(SWEEP))
    assert res["teams"] == [2 + 1 + 0, 0 - 1 - 2]
    assert res["recorded"] == [6, 0]


def test_tv_bie3_kaidian_per_pair() -> None:
    # 「对门双方都开点，均得0分」, 「开点方得2分，未开点方得0分」, 「双方都未开点，均得2分」(L112)
    opened = [True, False, False, True, True, False]  # pairs (0,3) both, (1,4) one, (2,5) none
    res = run("gouji-tv-bie3", outcome(opened=opened))
    extra = [p - t for p, t in zip(res["seats"], TABLES["gouji-tv-bie3"], strict=True)]
    assert extra == [0, 0, 2, 0, 2, 2]


def test_bie3_unopened_minus_two_and_dui_jia_plus_two() -> None:
    # 「游戏中没有“开点”的人－2分」(L248), 「同时对家+2分」(L248); both unopened: 0
    opened = [False, False, True, True, True, True]
    res = run("gouji-bie3", outcome(opened=opened))
    extra = [p - t for p, t in zip(res["seats"], TABLES["gouji-bie3"], strict=True)]
    assert extra == [-2, -2, 0, 2, 2, 0]
    neither = [False, True, True, False, True, True]
    res = run("gouji-bie3", outcome(opened=neither))
    assert res["seats"] == TABLES["gouji-bie3"]


@pytest.mark.parametrize(
    ("pid", "won", "lost", "neither"),
    [
        ("gouji-16tiao", 1, 0, 1),  # 「对头不开点加1分」(L91)
        ("gouji-kelamayi", 1, -1, 0),  # 「让对方不开点…获得1分」, 「对方得-1分」(L237)
        ("gouji-tiaozhan", 0, -1, 0),  # 「不开点计分时扣一分」(L232)
        ("gouji-jinan-2010", 2, 0, 0),  # 「点贡得2分」(L211) (interp.: to the opener)
        ("gouji-changshi", 0, 0, 0),  # tribute card counts are not given: unjudged
    ],
)
def test_kaidian_extras(pid: str, won: int, lost: int, neither: int) -> None:
    base = TABLES[pid]
    res = run(pid, outcome(opened=[True, True, True, False, True, True]))
    assert res["seats"][0] - base[0] == won and res["seats"][3] - base[3] == lost
    res = run(pid, outcome(opened=[False, True, True, False, True, True]))
    assert res["seats"][0] - base[0] == neither


def test_dianshao_each_open_and_two_kill_one() -> None:
    # 「每次“打点”加1分」(L264); 「大花二杀一加1分」(L264)
    res = run("gouji-dianshao", outcome(open_count=[2, 0, 1, 0, 0, 0], kills=[(4, 10)]))
    assert res["seats"] == [5 + 2, 4, 3 + 1, 2, 1 + 1, 0]


def test_burn_points_and_teammates() -> None:
    # bie3: 「“烧牌”成功后，被烧者－1分」, 「烧人者加+1分」(L248)
    burn = Burn(seat=1, victim=0, seq=5)
    res = run("gouji-bie3", outcome(burns=[burn]))
    assert res["seats"][1] - 2 == 1 and res["seats"][0] - 4 == -1
    # 「联邦之间烧牌互不得分」(L237): seat 2 burning seat 0 scores nothing
    mate = Burn(seat=2, victim=0, seq=5)
    assert run("gouji-kelamayi", outcome(burns=[mate]))["seats"] == TABLES["gouji-kelamayi"]
    # a void or failed burn scores nothing
    assert (
        run("gouji-bie3", outcome(burns=[Burn(1, 0, 5, void=True)]))["seats"]
        == TABLES["gouji-bie3"]
    )


def test_burn_success_per_sheet() -> None:
    # jinan: 「并抢出头科或二科」(L202): seat 2 finished 三科, so no 烧贡
    assert (
        run("gouji-jinan-2010", outcome(burns=[Burn(2, 1, 5)]))["seats"]
        == TABLES["gouji-jinan-2010"]
    )
    assert run("gouji-jinan-2010", outcome(burns=[Burn(1, 0, 5)]))["seats"][1] == 5 + 1
    # kelamayi: 「第一把烧死,未被解烧或反烧」(L237): a beaten first set is no success
    assert (
        run("gouji-kelamayi", outcome(burns=[Burn(1, 0, 5, beaten=True)]))["seats"]
        == TABLES["gouji-kelamayi"]
    )
    # 16tiao: 「烧牌者需走科方为烧牌成功」(L73): seat 5 never went out
    out = outcome(burns=[Burn(5, 4, 5)])
    assert score(Rules.load("gouji-16tiao"), out, [0, 1, 2, 3, 4])["seats"][5] == 1


def test_bie3_blocking_points() -> None:
    # 16tiao 「憋3加1分」(L91); bie3 「被闷者－1分，闷人者加+1分」(L248)
    assert run("gouji-16tiao", outcome(blocks=[(1, 0, 9)]))["seats"][1] == 5 + 1
    res = run("gouji-bie3", outcome(blocks=[(1, 0, 9)]))
    assert res["seats"][1] == 2 + 1 and res["seats"][0] == 4 - 1
    # tiaozhan 「将同伙鳖三，不加分」(L232)
    assert run("gouji-tiaozhan", outcome(blocks=[(2, 0, 9)]))["seats"] == TABLES["gouji-tiaozhan"]


def test_items_sum_to_the_seat_points() -> None:
    res = run("gouji-bie3", outcome(opened=[False] + [True] * 5, blocks=[(1, 0, 9)]))
    for seat, items in enumerate(res["items"]):
        assert sum(i["points"] for i in items) == res["seats"][seat]


def test_tv_bie3_mingdian_replaces_the_pair_table() -> None:
    # 「明点成功得4分，对方得0分」(L115); 「不再重复计算普通开点计分规则」(L116)
    rules = Rules.load("gouji-tv-bie3")
    opened = [True, False, False, False, True, False]
    won = score(rules, Outcome(ALTERNATE, opened, [0] * 6, [], [], [], (0,)), ALTERNATE[:5])
    extra = [p - t for p, t in zip(won["seats"], TABLES["gouji-tv-bie3"], strict=True)]
    assert extra == [4, 0, 2, 0, 2, 2]  # seat 0 called 明点 on seat 3, who never opened
    lost = score(rules, Outcome(ALTERNATE, opened, [0] * 6, [], [], [], (3,)), ALTERNATE[:5])
    extra = [p - t for p, t in zip(lost["seats"], TABLES["gouji-tv-bie3"], strict=True)]
    assert extra == [4, 0, 2, 0, 2, 2]  # seat 3 called it on seat 0, who opened: 对方 gets 4


def test_entered_penalties_are_scored() -> None:
    res = score(
        Rules.load("gouji-tiaozhan"),
        Outcome(ALTERNATE, [True] * 6, [0] * 6, [], [], [], (), ((4, -1, "询问张数"),)),
        ALTERNATE[:5],
    )
    assert res["seats"][4] == TABLES["gouji-tiaozhan"][4] - 1
