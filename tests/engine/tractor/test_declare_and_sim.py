"""Declarations per profile ladder, the no-declaration fallbacks, and the simulator's match
records (validated by engine.record) and determinism."""

from __future__ import annotations

from itertools import pairwise

import pytest

from engine.record import validate_event
from engine.tractor import (
    Rules,
    Trump,
    can_overcall,
    fallback_trump,
    read_declaration,
    trump_of,
)
from engine.tractor.sim import hand_summary, match_events, simulate_match


def overcalls(pid: str, prev: tuple[int, str], new: tuple[int, str], level: str = "2") -> bool:
    rules = Rules.load(pid)
    a = read_declaration(prev[0], prev[1], level, rules)
    b = read_declaration(new[0], new[1], level, rules)
    return can_overcall(a, b, rules).ok


def test_pair_ladder_national() -> None:
    # 用两张相同花色地超抢 / 可以按照黑>红>梅>方地顺序超抢
    assert overcalls("national-shuangsheng", (0, "2D"), (1, "2D 2D"))
    assert overcalls("national-shuangsheng", (0, "2D 2D"), (1, "2S 2S"))
    assert not overcalls("national-shuangsheng", (0, "2S 2S"), (1, "2H 2H"))
    assert not overcalls("national-shuangsheng", (0, "2S"), (1, "2H"))


def test_chaodipi_h5_ladder_top_is_h5_pair() -> None:
    # 梅花、红心、黑桃、小工、大王、红心5
    assert overcalls("chaodipi-h5", (0, "BJ BJ"), (1, "5H 5H"))
    assert not overcalls("chaodipi-h5", (0, "5H 5H"), (1, "BJ BJ"))
    assert overcalls("chaodipi-h5", (0, "2S 2S"), (1, "SJ SJ"))


def test_cyclic_ladder() -> None:
    # 对大王、对小王、黑、红、梅、方顺序循环吃 / 对方块可吃对大王
    assert overcalls("cyclic-eat", (0, "2H 2H"), (1, "2S 2S"))
    assert overcalls("cyclic-eat", (0, "BJ BJ"), (1, "2D 2D"))
    assert not overcalls("cyclic-eat", (0, "2S 2S"), (1, "2D 2D"))


def test_more_cards_and_none_and_last_shown() -> None:
    # four-deck 反主时须比前一个翻主方多一张以上; gap-tractor 2反1, no jokers
    assert overcalls("four-deck", (0, "2S"), (1, "2H 2H"))
    assert not overcalls("four-deck", (0, "2S 2S"), (1, "2H 2H"))
    assert overcalls("gap-tractor", (0, "2S"), (1, "2D 2D"))
    assert not overcalls("gap-tractor", (0, "2S"), (1, "SJ SJ"))
    # community-10ka 一旦有人亮主就无法反主了
    assert not overcalls("community-10ka", (0, "10S"), (1, "10H 10H"), level="10")
    # cmec-nj-2013 最后亮出的级牌花色即为主花色
    assert overcalls("cmec-nj-2013", (0, "2S"), (1, "2H"))


def test_bad_declarations_are_clear() -> None:
    rules = Rules.load("standard")
    with pytest.raises(ValueError, match="not a level card"):
        read_declaration(0, "3S", "2", rules)
    with pytest.raises(ValueError, match="cannot declare"):
        read_declaration(0, "BJ", "2", rules)
    with pytest.raises(ValueError, match="needs 2 cards"):
        read_declaration(0, "2S", "2", Rules.load("cyclic-eat"))


def test_trump_of() -> None:
    rules = Rules.load("standard")
    assert trump_of(read_declaration(0, "2S 2S", "2", rules), "2") == Trump("2", "S")
    assert trump_of(read_declaration(0, "SJ SJ", "2", rules), "2") == Trump("2", None)


@pytest.mark.parametrize(
    ("pid", "bottom", "want", "cite"),
    [
        ("standard", "3S 9H 2C AD 4S", ("C", 2), "first level card, else highest"),
        ("chaodipi-anchao", "3S 9H AD 4S", ("D", 2), "八张底牌中最大且最早出现的牌的花色定主"),
        ("four-deck", "SJ 9H", (None, 0), "无人反牌则开底牌第一张为主牌"),
        ("chaodipi-h5", "5H 9S", ("H", 0), "王牌为无将，红心5为红心将牌"),
        ("online-super", "3S 9H BJ 4S", (None, 2), "从底牌中抽取正数第三张牌的花色 / 无主"),
        ("tractor-from-a", "3S 9H 4H 5C", ("H", -1), "以底牌花色数量多的花色作为主牌"),
        ("timed-45min", "3S 9H", (None, -1), "若发牌结束仍无人亮牌，则打无主"),
        ("cyclic-eat", "3S 9H 2D AC", ("D", 2), "按顺时针翻牌，直至翻到“2”"),
        ("cyclic-eat", "3S BJ AC KD", ("C", 2), "若无“2”则翻完为止，以“A”为最大 / 王不作为"),
    ],
)
def test_fallback(pid: str, bottom: str, want: tuple[str | None, int], cite: str) -> None:
    assert cite
    rules = Rules.load(pid)
    level = rules.start if pid != "cyclic-eat" else "5"
    trump, index = fallback_trump(bottom.split(), level, rules)
    assert (trump.suit, index) == want


def test_match_events_are_valid_records() -> None:
    match = simulate_match(Rules.load("standard"), seed=11, max_hands=2)
    events = match_events(match)
    assert [e["seq"] for e in events] == list(range(len(events)))
    assert all(b["t"] > a["t"] for a, b in pairwise(events))
    for e in events:
        validate_event(e)
    types = {e["type"] for e in events}
    assert {"match_start", "hand_start", "declare", "bury", "play", "bottom_reveal"} <= types
    assert sum(e["type"] == "play" for e in events) == sum(len(h.tricks) * 4 for h in match.hands)
    summary = hand_summary(match.hands[0])
    assert summary["attacker_points"] == match.hands[0].attacker_points


def test_simulator_is_deterministic() -> None:
    rules = Rules.load("four-deck")
    a = match_events(simulate_match(rules, seed=5, max_hands=1))
    b = match_events(simulate_match(rules, seed=5, max_hands=1))
    c = match_events(simulate_match(rules, seed=6, max_hands=1))
    assert a == b and a != c


def test_declaration_sequence() -> None:
    from engine.tractor import judge_declarations

    # national-shuangsheng: 超抢成功者成为庄家 (deal 1: the successful overcaller banks)
    rules = Rules.load("national-shuangsheng")
    r = judge_declarations([(0, "2D"), (1, "2H 2H"), (2, "2C 2C"), (3, "3S")], "2", rules, True)
    assert [v.ok for v in r.verdicts] == [True, True, False, False]
    assert r.standing is not None and r.standing.what == "H" and r.banker == 1
    assert r.verdicts[3].rule == "illegal_declaration"
    # four-deck: 第一个先翻的先做庄，反主不反庄
    four = Rules.load("four-deck")
    r = judge_declarations([(0, "2D"), (1, "2H 2H")], "2", four, True)
    assert r.banker == 0 and r.standing is not None and r.standing.what == "H"
    # later deals keep the banker: 但该局庄家不变
    r = judge_declarations([(3, "5S")], "5", Rules.load("online-super"), False, banker=2)
    assert r.banker == 2
