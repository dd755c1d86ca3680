"""Golden tests: each profile's level table, bottom multipliers and knock-backs against the
numbers TRACTOR.md gives, with the sheet text quoted beside each check."""

from __future__ import annotations

import pytest

from engine.tractor import Rules, Trump, bottom_multiplier, bottom_score, level_outcome, profile_ids
from engine.tractor.scoring import band_for

T2 = Trump("2", "S")


def table(pid: str, scores: list[int]) -> list[tuple[str, int]]:
    rules = Rules.load(pid)
    return [band_for(s, rules) for s in scores]


B, A = "banker", "attackers"

# (profile, quote, scores, expected (side, levels) per score)
TABLES = [
    (
        "standard",
        "A10 实行80分为基准分 (engine default 40-point bands)",
        [0, 5, 35, 40, 75, 80, 115, 120, 155, 160, 200],
        [(B, 3), (B, 2), (B, 2), (B, 1), (B, 1), (A, 0), (A, 0), (A, 1), (A, 1), (A, 2), (A, 3)],
    ),
    (
        "shanghai-2000",
        "抢分每次满80分为一级，超过40分加 / 抢分低于80分庄家升一级，低于40分升二 / 0分升三级",
        [0, 5, 35, 40, 75, 80, 115, 120, 155, 160, 195, 200],
        [
            (B, 3),
            (B, 2),
            (B, 2),
            (B, 1),
            (B, 1),
            (A, 1),
            (A, 1),
            (A, 2),
            (A, 2),
            (A, 3),
            (A, 3),
            (A, 4),
        ],
    ),
    (
        "chaodipi-anchao",
        "10分升（降）一级制度（5分不计） [interp A]",
        [0, 5, 70, 75, 80, 85, 90, 200],
        [(B, 8), (B, 7), (B, 1), (B, 0), (A, 0), (A, 0), (A, 1), (A, 12)],
    ),
    (
        "upgrade-glossary",
        "对手得分为负分或0分，庄家升5级 / 5~35分，庄家升3级 / 40~75，庄家升1级 / "
        "80~95分，对手获胜 / 每多20分可多升1级",
        [-10, 0, 5, 35, 40, 75, 80, 95, 100, 115, 120, 200],
        [
            (B, 5),
            (B, 5),
            (B, 3),
            (B, 3),
            (B, 1),
            (B, 1),
            (A, 0),
            (A, 0),
            (A, 1),
            (A, 1),
            (A, 2),
            (A, 6),
        ],
    ),
    (
        "community-10ka",
        "如果得分为0，则庄家方连升2级 / 小丁80，则庄家方升1级 / 大丁等丁80小丁200 则轮换庄家 / "
        "等丁200，则抓分方连升2级",
        [0, 5, 75, 80, 195, 200],
        [(B, 2), (B, 1), (B, 1), (A, 0), (A, 0), (A, 2)],
    ),
    (
        "shuangkou",
        "每10分一级 / 80分下庄 [interp floor]",
        [0, 60, 75, 80, 100, 150],
        [(B, 8), (B, 2), (B, 0), (A, 0), (A, 2), (A, 7)],
    ),
    (
        "online-super",
        "0分（大光）主打方升6级 … 285—320分（封顶）捡分方升6级",
        [
            0,
            5,
            10,
            15,
            20,
            25,
            30,
            35,
            40,
            75,
            80,
            115,
            120,
            125,
            160,
            165,
            200,
            205,
            240,
            245,
            280,
            285,
            320,
            400,
        ],
        [
            (B, 6),
            (B, 5),
            (B, 5),
            (B, 4),
            (B, 4),
            (B, 3),
            (B, 3),
            (B, 2),
            (B, 1),
            (B, 1),
            (A, 0),
            (A, 0),
            (A, 1),
            (A, 2),
            (A, 2),
            (A, 3),
            (A, 3),
            (A, 4),
            (A, 4),
            (A, 5),
            (A, 5),
            (A, 6),
            (A, 6),
            (A, 6),
        ],
    ),
    (
        "xize-1h",
        "庄家直接跳三级 / 每低40分，庄家升一级 / 超过80分（含80分）时庄家下庄 / "
        "旁家每多得40分升1 级,升级不封顶",
        [0, 5, 35, 40, 75, 80, 115, 120, 155, 160, 200, 240, 360],
        [
            (B, 3),
            (B, 2),
            (B, 2),
            (B, 1),
            (B, 1),
            (A, 0),
            (A, 0),
            (A, 1),
            (A, 1),
            (A, 2),
            (A, 3),
            (A, 4),
            (A, 7),
        ],
    ),
    (
        "jiawang",
        "则旁家被大光、庄家升3级 / 则旁家被小光、庄家升2级 / each further 40 +1, no cap",
        [0, 5, 35, 40, 75, 80, 115, 120, 200],
        [(B, 3), (B, 2), (B, 2), (B, 1), (B, 1), (A, 0), (A, 0), (A, 1), (A, 3)],
    ),
    (
        "school-2010",
        "比赛以80分为界，10分一级 / 余数5分作10记 / 光头 … 其余为8级",
        [0, 5, 60, 65, 70, 75, 80, 85, 90, 95],
        [(B, 8), (B, 8), (B, 2), (B, 2), (B, 1), (B, 1), (A, 0), (A, 1), (A, 1), (A, 2)],
    ),
    (
        "timed-45min",
        "得分为 0 ，庄家方连升 3 级 / 不满 40 ，庄家连升 2 级 / 小于 80 ，庄家方升 1 级 / "
        "大于等于 80 小于 120 ，轮换庄家 / 120 小于 160 ，抓分方升 1 级 / "
        "小于 200 ，抓分方连升 2 级",
        [0, 5, 35, 40, 75, 80, 115, 120, 155, 160, 195, 200],
        [
            (B, 3),
            (B, 2),
            (B, 2),
            (B, 1),
            (B, 1),
            (A, 0),
            (A, 0),
            (A, 1),
            (A, 1),
            (A, 2),
            (A, 2),
            (A, 3),
        ],
    ),
    (
        "pass10",
        "0分---4级 / 5-25分---庄家升3级 / 30-50分 庄家升2级 / 55-75 庄家升1级 / 80-95---庄家下台 / "
        "100-115---台下升1级 / 120－135台下升2级，依次类推",
        [0, 5, 25, 30, 50, 55, 75, 80, 95, 100, 115, 120, 135, 140, 200],
        [
            (B, 4),
            (B, 3),
            (B, 3),
            (B, 2),
            (B, 2),
            (B, 1),
            (B, 1),
            (A, 0),
            (A, 0),
            (A, 1),
            (A, 1),
            (A, 2),
            (A, 2),
            (A, 3),
            (A, 6),
        ],
    ),
    (
        "chaodipi-h5",
        "双方均以20分一级计算升跳缉 [interp floor]",
        [0, 5, 20, 25, 40, 45, 60, 65, 75, 80, 95, 100, 200],
        [
            (B, 4),
            (B, 3),
            (B, 3),
            (B, 2),
            (B, 2),
            (B, 1),
            (B, 1),
            (B, 0),
            (B, 0),
            (A, 0),
            (A, 0),
            (A, 1),
            (A, 6),
        ],
    ),
]


@pytest.mark.parametrize(("pid", "quote", "scores", "want"), TABLES, ids=[t[0] for t in TABLES])
def test_level_table(pid: str, quote: str, scores: list[int], want: list[tuple[str, int]]) -> None:
    assert quote
    assert table(pid, scores) == want


# (profile, quote, winning play -> multiplier)
MULTS = [
    ("standard", "若是“拖拉机”则乘8，以此类推", {"3H": 2, "3H 3H": 4, "3H 3H 4H 4H": 8}),
    ("upgrade-glossary", "并翻倍计算底牌中分牌总分", {"3H": 2, "3H 3H": 2, "3H 3H 4H 4H": 2}),
    ("community-10ka", "底牌分数牌将翻倍", {"3H": 2, "3H 3H": 2, "3H 3H 4H 4H": 2}),
    (
        "online-super",
        "单张扣底：底牌分数×2 / 对子×4 / 连对扣底：底牌分数×4×连对对数 / 甩牌…按照最大的牌型",
        {
            "3H": 2,
            "3H 3H": 4,
            "3H 3H 4H 4H": 8,
            "3H 3H 4H 4H 5H 5H": 12,
            "AH AH KH": 4,
        },
    ),
    (
        "xize-1h",
        "旁家挖底牌可得底牌分数的2倍 / 用对子挖可得4倍 / 用连对挖可得8倍，用三连对挖可得16倍",
        {"3H": 2, "3H 3H": 4, "3H 3H 4H 4H": 8, "3H 3H 4H 4H 5H 5H": 16},
    ),
    ("jiawang", "×2/4/8/16 as xize-1h", {"3H": 2, "3H 3H": 4, "3H 3H 4H 4H 5H 5H": 16}),
    ("pass10", "单扣N=2，双扣N=4，拖拉机扣N=8", {"3H": 2, "3H 3H": 4, "3H 3H 4H 4H": 8}),
    (
        "timed-45min",
        "单扣底分×2，双扣底分×4 / 拖拉机扣底分×8 / 甩牌抠底，有对算双抠",
        {"3H": 2, "3H 3H": 4, "3H 3H 4H 4H": 8, "3H 3H 4H 4H 5H 5H": 8, "AH AH KH": 4},
    ),
    ("cyclic-eat", "单牌抠底，底分乘二；对子抠底，底分乘四", {"3H": 2, "3H 3H": 4}),
    (
        "chaodipi-h5-glossary",
        "的分乘2计入总分 / 的分乘4计入总分 / 若是“拖拉机”则乘8，以此类推",
        {"3H": 2, "3H 3H": 4, "3H 3H 4H 4H": 8},
    ),
    (
        "tractor-from-a",
        "闲家用5扣底，21，翻2 倍 / 用55扣底 翻4倍 / 用4455扣底 翻8倍 / 用445566扣底 翻16倍",
        {"5S": 2, "5S 5S": 4, "4S 4S 5S 5S": 8, "4S 4S 5S 5S 6S 6S": 16, "5H": 0},
    ),
]


@pytest.mark.parametrize(("pid", "quote", "cases"), MULTS, ids=[m[0] for m in MULTS])
def test_bottom_multiplier(pid: str, quote: str, cases: dict[str, int]) -> None:
    assert quote
    rules = Rules.load(pid)
    trump = Trump(rules.start, "S")
    got = {play: bottom_multiplier(play, trump, rules) for play in cases}
    assert got == cases


def test_tractor_from_a_trump_only_capture() -> None:
    # 最后一轮牌由抓分方用主牌获胜: a side-suit winner captures nothing.
    rules = Rules.load("tractor-from-a")
    trump = Trump("A", "S")
    assert bottom_score("5H", ["10D", "KD", "5C"], trump, rules) == 0
    assert bottom_score("5S", ["10D", "KD", "5C"], trump, rules) == 50


def test_school_2010_flat_bonus() -> None:
    # 副牌抠十分、主牌抠二十分、小王抠三十分 / 大王抠四十分、对抠五十分、拖拉机抠六十分
    # / 另底牌分乘2
    rules = Rules.load("school-2010")
    bottom = ["10D", "5C"]  # 15 points, x2 = 30
    cases = {"3H": 40, "3S": 50, "SJ": 60, "BJ": 70, "3H 3H": 80, "3H 3H 4H 4H": 90}
    got = {p: bottom_score(p, bottom, T2, rules) for p in cases}
    assert got == cases


def test_chaodipi_h5_knockbacks() -> None:
    rules = Rules.load("chaodipi-h5")
    # 一方打序号J时，对方以J抠底(单双均可) / 则做庄一方被钩回到序号2
    out = level_outcome(60, rules, "J", banker=0, capture="JH", trump=Trump("J", "S"))
    assert (out.side, out.knocked_back, out.banker_level) == ("banker", "2", "3")
    out = level_outcome(120, rules, "J", banker=0, capture="JH JH", trump=Trump("J", "S"))
    assert (out.side, out.knocked_back, out.banker_level, out.next_banker) == (A, "2", "2", 1)
    # 一方打序号A时，对方以A抠底 / 则打A一方被钩回到序号J / 不论对方得分多少，必打序号J
    out = level_outcome(10, rules, "A", banker=0, capture="AH", trump=Trump("A", "S"))
    assert (out.side, out.banker_level, out.game_over) == ("banker", "J", False)
    # No knock-back when the capture is not the level rank.
    out = level_outcome(10, rules, "A", banker=0, capture="KH", trump=Trump("A", "S"))
    assert out.knocked_back == "" and out.game_over


def test_chaodipi_anchao_no_knockback() -> None:
    # 均不倒回“2”或“J”
    rules = Rules.load("chaodipi-anchao")
    out = level_outcome(60, rules, "J", banker=0, capture="JH", trump=Trump("J", "S"))
    assert (out.knocked_back, out.new_level) == ("", "K")  # 60 points: +2 from J


def test_must_play_stops() -> None:
    # shanghai-2000: 但A必打; chaodipi-anchao: “J”必打; shuangkou: 5、10、k必打; pass10: 逢10必打
    assert level_outcome(0, Rules.load("shanghai-2000"), "Q").new_level == "A"
    assert level_outcome(0, Rules.load("chaodipi-anchao"), "9").new_level == "J"
    out = level_outcome(0, Rules.load("shuangkou"), "3")
    assert (out.levels, out.new_level, out.stopped_at) == (8, "5", "5")
    assert level_outcome(0, Rules.load("pass10"), "8").new_level == "10"
    # community-10ka: 即这局打10,下局就可打A (+2 from 10 lands on A)
    assert level_outcome(0, Rules.load("community-10ka"), "10").new_level == "A"


def test_game_end() -> None:
    # 先过“A”者赢一局: the banker side holding the stage at A wins; pass10: 先过10为胜.
    assert level_outcome(40, Rules.load("standard"), "A").game_over
    assert not level_outcome(80, Rules.load("standard"), "A").game_over
    assert level_outcome(40, Rules.load("pass10"), "10").game_over
    # online-super cycles: 则再次循环到2开始继续升级
    out = level_outcome(0, Rules.load("online-super"), "K")
    assert (out.new_level, out.game_over) == ("6", False)


def test_rotation() -> None:
    # 庄家升级时，下一副牌由其对家当庄家 / 由此副牌的庄家的下家当庄家
    rules = Rules.load("standard")
    assert level_outcome(40, rules, "5", banker=3).next_banker == 1
    assert level_outcome(80, rules, "5", banker=3).next_banker == 0


@pytest.mark.parametrize("pid", profile_ids())
def test_every_profile_loads_and_cites(pid: str) -> None:
    rules = Rules.load(pid)
    assert rules.id == pid
    assert rules.cites, "every profile cites its sheet"
    if pid != "standard":
        assert rules.inherits == "standard"
        assert rules.inherited, "what the sheet does not state is marked as inherited"


def test_level_outside_the_ladder_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="level '3' is not on profile community-10ka's ladder"):
        level_outcome(40, Rules.load("community-10ka"), "3")


# Profiles whose sheets state no level table: the table is standard's and marked inherited,
# and the numbers the sheet does state are checked here.
SILENT_TABLES = {
    "cmec-nj-2013": "双升比赛规则(5.10.K打法): the text breaks off after the glossary",
    "national-shuangsheng": "升级（双升）竞赛规则: the scraper deleted the tables",
    "four-deck": "拖拉机四副牌比赛规则: only the wrong-bury clause has numbers",
    "online-juese": "升级角色版: partial copy",
    "tractor-from-a": "拖拉机（两副牌）比赛规则: the file ends inside it",
    "cyclic-eat": "扑克牌八十分竞赛规则: only 结站 (unclear)",
    "gap-tractor": "拖拉机（升级）比赛细则: no table",
    "bianfeng-online": "边锋 glossary: no table",
    "chaodipi-h5-glossary": "炒地皮 glossary: no table",
}


@pytest.mark.parametrize("pid", sorted(SILENT_TABLES))
def test_silent_sheets_inherit_the_table(pid: str) -> None:
    assert SILENT_TABLES[pid]
    rules = Rules.load(pid)
    assert "advance.bands" in rules.inherited
    assert rules.bands == Rules.load("standard").bands


def test_sheet_numbers_of_silent_profiles() -> None:
    # four-deck: 则对方先加160分; 打四副牌 (hand 52 by arithmetic)
    four = Rules.load("four-deck")
    assert (four.decks, four.hand, four.bottom) == (4, 52, 8)
    assert four.penalty("wrong_bury_count").points == 160
    # tractor-from-a: 比赛从打A开始不断升级
    assert Rules.load("tractor-from-a").start == "A"
    # cyclic-eat: 违规出牌，降三级 / 每一张降或增10分，降分降到0分为止
    cyc = Rules.load("cyclic-eat")
    assert cyc.penalty("revoke").levels == 3
    assert (cyc.throw.penalty.per_card, cyc.throw.penalty.floor0) == (10, True)
    # cmec-nj-2013: 2副牌，共108张 / 发牌每人25张，底牌8张
    cmec = Rules.load("cmec-nj-2013")
    assert (cmec.decks, cmec.hand, cmec.bottom) == (2, 25, 8)
    # chaodipi-h5-glossary: 红桃5永远是主牌; national-shuangsheng: 黑>红>梅>方
    assert Rules.load("chaodipi-h5-glossary").perm_trumps == ("5H",)
    assert Rules.load("national-shuangsheng").declare.ladder[:4] == ("D", "C", "H", "S")
