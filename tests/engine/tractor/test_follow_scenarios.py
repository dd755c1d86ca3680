"""Hand-written following, tractor, trick and throw scenarios, each citing the sheet rule."""

from __future__ import annotations

import pytest

from engine.tractor import Rules, Trump, check_throw, classify, legal_follow, trick_winner

STD = Rules.load("standard")


def kind(cards: str, pid: str, level: str = "2", suit: str | None = "H") -> str:
    return classify(cards, Trump(level, suit), Rules.load(pid)).kind


@pytest.mark.parametrize(
    ("pid", "cards", "level", "suit", "want", "cite"),
    [
        ("shanghai-2000", "AS AS 2S 2S", "5", "H", "tractor", "上下级对子，AA22最小"),
        ("standard", "AS AS 2S 2S", "5", "H", "throw", "AA22 only where a sheet says so"),
        ("gap-tractor", "AS AS 2S 2S", "5", "H", "throw", "1122在主和副牌中都不是拖拉机"),
        ("gap-tractor", "JS JS 9S 9S", "10", "H", "tractor", "可有牌型JJ99"),
        ("cyclic-eat", "JS JS 9S 9S", "10", "H", "throw", "不允许空心拖拉机"),
        ("cyclic-eat", "9H 9H 10H 10H", "10", "H", "tractor", "“XX”与同花色相连对子算拖拉机"),
        ("school-2010", "2C 2C 4C 4C", "3", "H", "tractor", "如打3时，对2、4为拖拉机"),
        ("community-10ka", "BJ BJ SJ SJ", "10", "H", "throw", "大小王不构成拖拉机"),
        ("cyclic-eat", "BJ BJ SJ SJ", "10", "H", "tractor", "同花色相邻连对，或四王算拖拉机"),
        ("online-super", "SJ SJ 6H 6H", "6", "H", "throw", "SJ + main-level pair not listed"),
        ("online-juese", "SJ SJ 10H 10H", "10", "H", "tractor", "一对小王带一对主 10"),
        ("online-super", "6H 6H 6S 6S", "6", "H", "tractor", "对主级牌和对其他级牌"),
        (
            "online-super",
            "6S 6S AH AH",
            "6",
            "H",
            "tractor",
            "对其他级牌和对主花色A之间也可组成连对",
        ),
        ("tractor-from-a", "AS AS AC AC", "A", "H", "throw", "主A与副A，两对副A不是"),
        ("tractor-from-a", "SJ SJ AH AH", "A", "H", "tractor", "大王与小王、小王与主A"),
        ("chaodipi-h5", "4H 4H 6H 6H", "2", "H", "throw", "红心4与6不算姐妹对"),
        ("chaodipi-h5", "BJ BJ SJ SJ", "2", "H", "tractor", "大小王两对算姐妹对"),
        ("online-super", "5C 5C 7C 7C", "6", "H", "tractor", "则梅花对5与梅花对7也可组成连对"),
        ("four-deck", "2S 2S 2S 2S 3S 3S 3S 3S", "9", "H", "tractor4", "22223333比66778899要大"),
    ],
)
def test_tractor_flags(
    pid: str, cards: str, level: str, suit: str | None, want: str, cite: str
) -> None:
    assert cite
    assert kind(cards, pid, level, suit) == want


def test_perm_h5_is_top_trump() -> None:
    # chaodipi-h5: 红心5为最大将牌 — above the big joker, a trump even in no-trump.
    rules = Rules.load("chaodipi-h5")
    nt = Trump("7", None)
    assert trick_winner(["BJ", "5H", "7S"], nt, rules) == 1
    assert classify("5H", nt, rules).suit == "T"
    assert classify("4H", nt, rules).suit == "H"


def test_perm_twos_option() -> None:
    # online-juese, 2 as 常主: 主 10, 副 10, 主 2, 副 2, then the trump suit.
    rules = Rules.load("online-juese", {"trumps.perm_twos": True})
    t = Trump("10", "S")
    assert trick_winner(["AS", "2C", "2S", "10D"], t, rules) == 3
    assert trick_winner(["AS", "2C", "2S"], t, rules) == 2
    assert classify("2D", t, rules).suit == "T"


def test_no_pair_obligation_in_community_10ka() -> None:
    # 也可以出单牌但张数必须一样 / 即有对可以不出对
    t = Trump("10", "H")
    assert legal_follow("KS KS", "9S 9S 3S", "9S 3S", t, Rules.load("community-10ka")).ok
    assert not legal_follow("KS KS", "9S 9S 3S", "9S 3S", t, STD).ok


def test_tractor_follow_as_far_as_held() -> None:
    # A6.4: tractor if held, else as many pairs as held, then singles.
    t = Trump("2", "H")
    lead = "3S 3S 4S 4S 5S 5S"
    hand = "7S 7S 9S 9S JS QS KS 4C"
    assert legal_follow(lead, hand, "7S 7S 9S 9S JS QS", t, STD).ok
    v = legal_follow(lead, hand, "7S 7S JS QS KS 9S", t, STD)
    assert v.rule == "missed_pair"
    # A longer tractor is broken to follow a shorter one (engine default A6.4).
    hand = "7S 7S 8S 8S 9S 9S 3D"
    assert legal_follow("3S 3S 4S 4S", hand, "8S 8S 9S 9S", t, STD).ok
    assert legal_follow("3S 3S 4S 4S", hand, "7S 7S 9S 9S", t, STD).rule == "missed_tractor"


def test_trump_lead_must_be_followed_with_trumps() -> None:
    # A6.2: 其他玩家也必须跟主牌 — level cards and jokers are trumps.
    t = Trump("2", "H")
    assert legal_follow("3H", "2S 5C", "2S", t, STD).ok
    assert legal_follow("3H", "2S 5C", "5C", t, STD).rule == "revoke"
    assert legal_follow("3H 3H", "BJ 2D 5C", "BJ 2D", t, STD).ok


def test_four_deck_five_pair_ladder() -> None:
    # 跟5对连拖――跟4对连拖加1对 / 跟3对连拖加2对连拖 / 跟2对连拖加3对 / 若是三条也要拆掉
    rules = Rules.load("four-deck")
    t = Trump("2", "H")
    lead = "3S 3S 4S 4S 5S 5S 6S 6S 7S 7S"
    hand = "8S 8S 9S 9S 10S 10S JS JS KS KS AS AS 3C"
    assert legal_follow(lead, hand, "8S 8S 9S 9S 10S 10S JS JS KS KS", t, rules).ok
    v = legal_follow(lead, hand, "8S 8S 9S 9S 10S 10S KS KS AS AS", t, rules)
    assert v.rule == "missed_tractor"
    hand = "8S 8S 9S 9S 10S 10S QS QS KS KS 3S 3S 5D"
    assert legal_follow(lead, hand, "8S 8S 9S 9S 10S 10S QS QS KS KS", t, rules).ok
    assert not legal_follow(lead, hand, "8S 8S 9S 9S 3S 3S QS QS KS KS", t, rules).ok
    # A triple is broken to give a pair.
    assert legal_follow("3S 3S 4S 4S", "AS AS AS 9S 7S", "AS AS 9S 7S", t, rules).ok
    assert (
        legal_follow("3S 3S 4S 4S", "AS AS AS 9S 7S", "AS 9S 7S 9S", t, rules).rule == "not_in_hand"
    )


def test_four_deck_stronger_forms_win() -> None:
    # 4条比2连拖大 (2222比7788要大), 两个3条相连比3连拖大
    rules = Rules.load("four-deck")
    t = Trump("9", "H")
    assert trick_winner(["7S 7S 8S 8S", "3S 3S 3S 3S", "QS QS KS KS"], t, rules) == 1
    assert trick_winner(["6S 6S 7S 7S 8S 8S", "2S 2S 2S 3S 3S 3S"], t, rules) == 1


def test_ruff_needs_structure() -> None:
    # 两张主牌单张是无法杀掉对子的; 主牌也必须是相同对数的连对才可
    t = Trump("2", "H")
    assert trick_winner(["KS KS", "3H 4H"], t, STD) == 0
    assert trick_winner(["KS KS QS QS", "3H 3H 7H 7H"], t, STD) == 0
    assert trick_winner(["KS KS QS QS", "3H 3H 4H 4H"], t, STD) == 1
    # Over-ruff: the higher trump tractor wins; equal trumps: the first played.
    assert trick_winner(["KS KS QS QS", "3H 3H 4H 4H", "5H 5H 6H 6H"], t, STD) == 2
    assert trick_winner(["KS", "2C", "2D"], t, STD) == 1


def test_throw_ruff_and_winner() -> None:
    # 否则被视为垫牌: a ruff of a throw must contain its pairs; the largest unit decides.
    t = Trump("2", "H")
    lead = "AS AS KS"
    assert trick_winner([lead, "3H 3H 4H", "5H 6H 7H"], t, STD) == 1
    assert trick_winner([lead, "3H 3H 4H", "6H 6H 3H"], t, STD) == 2
    assert trick_winner([lead, "QS QS JS", "3D 3D 4D"], t, STD) == 0


@pytest.mark.parametrize(
    ("pid", "throw", "others", "forced", "cite"),
    [
        ("community-10ka", "AS AS QS QS JS", ["KS 3D", "4C", "5C"], "JS", "首先出牌者强制出J"),
        ("community-10ka", "AS AS QS QS JS", ["KS KS", "4C", "5C"], "QS QS", "首先出牌者强制出QQ"),
        ("timed-45min", "9S 8S 8S 4S 4S", ["JS", "3C", "3D"], "9S", "则首家必须出 9"),
        ("timed-45min", "9S 8S 8S 4S 4S", ["5S 5S", "3C", "3D"], "4S 4S", "则首家必须出 44"),
    ],
)
def test_failed_throw_forced_play(
    pid: str, throw: str, others: list[str], forced: str, cite: str
) -> None:
    assert cite
    rules = Rules.load(pid, {"levels.start": "2"}) if pid != "community-10ka" else Rules.load(pid)
    level = "10" if pid == "community-10ka" else "2"
    check = check_throw(throw, others, Trump(level, "H"), rules)
    assert not check.ok
    assert " ".join(str(c) for c in check.forced) == forced


def test_throw_stands_when_nobody_beats_it() -> None:
    # 若其他三人手中没有该种花色 的牌 … 则此人“甩”牌成功
    t = Trump("2", "H")
    rules = Rules.load("chaodipi-h5-glossary")
    assert check_throw("AS AS KS QS", ["3D", "4C", "JS JS 10S 10S"], t, rules).ok
    assert not check_throw("AS AS KS QS", ["3D", "4C", "JS JS 10S 10S AS"], t, rules).ok


def test_failed_throw_penalties() -> None:
    from engine.tractor.throws import throw_penalty_points

    t = Trump("2", "H")
    # xize-1h 甩错牌每张罚10分 (per card of the throw); pass10 有N张甩不出去应扣N*10分
    xize = check_throw("KS KS QS QS JS", ["AS", "4C", "5C"], t, Rules.load("xize-1h"))
    assert throw_penalty_points(xize, 5) == 50
    p10 = check_throw("KS KS QS QS JS", ["AS", "4C", "5C"], t, Rules.load("pass10"))
    assert throw_penalty_points(p10, 5) == 40
    # shanghai-2000: 撒错牌 -> opponents +2 levels
    sh = check_throw("KS KS QS QS JS", ["AS", "4C", "5C"], t, Rules.load("shanghai-2000"))
    assert sh.penalty is not None and sh.penalty.levels == 2


def test_penalty_lookup() -> None:
    assert Rules.load("xize-1h").penalty("missed_pair").points == 20
    assert Rules.load("cyclic-eat").penalty("revoke").levels == 3
    assert "not stated" in Rules.load("standard").penalty("out_of_turn").note
    # a sheet's own [throw] penalty is the failed throw's, never standard's inherited note
    assert Rules.load("pass10").penalty("failed_throw").note.startswith("N cards not thrown")
    assert Rules.load("shanghai-2000").penalty("failed_throw").levels == 2
    assert "room stake" in Rules.load("online-super").penalty("failed_throw").note
    assert "not stated" in Rules.load("four-deck").penalty("failed_throw").note


def test_ruff_structure_even_without_pair_obligation() -> None:
    # community-10ka: pairs need not be followed (即有对可以不出对), yet shapes still cannot be
    # compared (单张、对子、连对三种牌型之间不能比较大小): two trump singles do not beat a pair.
    rules = Rules.load("community-10ka")
    t = Trump("10", "H")
    assert trick_winner(["KS KS", "3H 4H"], t, rules) == 0
    assert trick_winner(["KS KS", "3H 3H"], t, rules) == 1


def test_throw_ruff_with_a_tractor_inside() -> None:
    # A ruff holding the throw's two pairs as one tractor still ruffs; ruffs compare by top card.
    t = Trump("2", "H")
    lead = "AS AS QS QS"
    assert trick_winner([lead, "3H 3H 4H 4H"], t, STD) == 1
    assert trick_winner([lead, "9H 9H 6H 6H", "3H 3H 4H 4H"], t, STD) == 1
    assert trick_winner([lead, "3H 3H 4H 4H", "9H 9H 6H 6H"], t, STD) == 2


def test_chaodipi_h5_fiveten() -> None:
    # 一家打出同一花色 的5、10、K / 其他人如有同性质 的牌必须跟出 / 将牌5、10、K可以将杀副牌5、10、K
    rules = Rules.load("chaodipi-h5")
    t = Trump("7", "S")
    assert classify("5C 10C KC", t, rules).kind == "fiveten"
    assert classify("5C 10C KC", t, STD).kind == "throw"
    hand = "5C 10C KC 3C AC 4D"
    assert legal_follow("5D 10D KD", ["5D", "10D", "KD", "3D"], "5D 10D KD", t, rules).ok
    v = legal_follow("5C 10C KC", hand.replace("5C 10C KC", "5D 10D KD"), "3C AC 4D", t, rules)
    assert v.ok  # no clubs 5-10-K held: anything of the suit, then other cards
    v = legal_follow("5D 10D KD", "5D 10D KD 3D AD", "3D AD KD", t, rules)
    assert v.rule == "missed_tractor" and "fiveten" in v.reason
    assert trick_winner(["5D 10D KD", "5S 10S KS", "AD AD QD"], t, rules) == 1
    assert trick_winner(["5D 10D KD", "3S 4S 6S"], t, rules) == 0
    # 以5、10、K抠底时，做庄方则被钩回到2
    from engine.tractor import level_outcome

    out = level_outcome(40, rules, "9", capture="5S 10S KS", trump=t)
    assert out.knocked_back == "2"


def test_four_deck_throw_beaten_by_a_quad() -> None:
    # 4条比2连拖大: a quad of 2s (the lowest rank) still beats a thrown pair-tractor.
    rules = Rules.load("four-deck")
    t = Trump("9", "H")
    check = check_throw("7S 7S 8S 8S AS", ["2S 2S 2S 2S", "3C", "4C"], t, rules)
    assert not check.ok and " ".join(map(str, check.forced)) == "8S 8S 7S 7S"
    assert check_throw("7S 7S 8S 8S AS", ["2S 2S 2S", "3C", "4C"], t, rules).ok


def test_kangqi_deal_level_cards_are_plain() -> None:
    # 扛旗: 这时只有红五、大王、小王是主 / 而且不留底牌，全部抓光
    rules = Rules.load(
        "chaodipi-h5-glossary", {"cards.hand": 27, "cards.bottom": 0, "trumps.level_cards": False}
    )
    t = Trump("A", None)
    assert classify("AS", t, rules).suit == "S"
    assert classify("5H", t, rules).suit == "T"
    assert trick_winner(["KS", "AS", "2S"], t, rules) == 1
    normal = Rules.load("chaodipi-h5-glossary")
    assert classify("AS", t, normal).suit == "T"
