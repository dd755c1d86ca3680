"""The public API of issue 2 on the standard profile: hand-written following, trick and throw
scenarios, each tied to the Part A rule it enforces (TRACTOR.md)."""

from __future__ import annotations

import pytest

from engine.cards import parse_cards
from engine.tractor import (
    Rules,
    Trump,
    bottom_multiplier,
    check_throw,
    classify,
    effective_suit,
    legal_follow,
    level_outcome,
    trick_winner,
)

STD = Rules.load("standard")
H2 = Trump(level="2", suit="H")


def test_effective_suit_and_trumps() -> None:
    # A3.1: jokers, every level card and the trump suit are trumps.
    assert [effective_suit(c, H2, STD) for c in parse_cards("BJ 2S 5H 5S AD")] == [
        "T",
        "T",
        "T",
        "S",
        "D",
    ]
    nt = Trump("2", None)
    assert effective_suit(parse_cards("5H")[0], nt, STD) == "H"
    assert effective_suit(parse_cards("2D")[0], nt, STD) == "T"


@pytest.mark.parametrize(
    ("cards", "trump", "kind"),
    [
        ("7S", H2, "single"),
        ("7S 7S", H2, "pair"),
        ("7S 7S 8S 8S", H2, "tractor"),
        ("AS AS 3S 3S", H2, "throw"),  # A–3 across the level 2: gap, not AA22
        ("5C 5C 7C 7C", Trump("6", "H"), "tractor"),  # B10 example 5577 at level 6
        ("BJ BJ SJ SJ", H2, "tractor"),
        ("2H 2H 2S 2S", H2, "tractor"),  # main-level pair + other-level pair
        ("2S 2S 2C 2C", H2, "throw"),  # two other-level pairs are no tractor
        ("AS KS", H2, "throw"),
        ("AS KH", H2, "mixed"),
    ],
)
def test_classify(cards: str, trump: Trump, kind: str) -> None:
    assert classify(cards, trump, STD).kind == kind


def test_follow_suit_pair_and_tractor() -> None:
    # A6.2 follow suit; A6.3 有对必对; A6.4 tractor, then pairs, then singles.
    hand = "9S 9S 3S 4D 7C"
    assert legal_follow("KS", hand, "3S", H2, STD).ok
    v = legal_follow("KS", hand, "4D", H2, STD)
    assert not v.ok and v.rule == "revoke"
    assert legal_follow("KS KS", hand, "9S 9S", H2, STD).ok
    v = legal_follow("KS KS", hand, "9S 3S", H2, STD)
    assert not v.ok and v.rule == "missed_pair"
    hand2 = "9S 9S 10S 10S 3S 4S"
    v = legal_follow("JS JS QS QS", hand2, "9S 9S 3S 4S", H2, STD)
    assert not v.ok and v.rule == "missed_tractor"
    assert legal_follow("JS JS QS QS", hand2, "9S 9S 10S 10S", H2, STD).ok
    # Void: anything goes, a trump or a discard.
    assert legal_follow("KS", "4D 5H", "5H", H2, STD).ok
    assert not legal_follow("KS", "4D 5H", "4D 4D", H2, STD).ok


def test_trick_winner() -> None:
    # A7: same shape of the led suit, or a trump ruff of the same shape; ties: first played.
    assert trick_winner(["KS", "AS", "3H", "AS"], H2, STD) == 2
    assert trick_winner(["KS KS", "AS 3S", "3H 4H", "7S 7S"], H2, STD) == 0  # singles can't ruff
    assert trick_winner(["KS KS", "AS AS", "3H 3H", "7S 7S"], H2, STD) == 2
    assert trick_winner(["2S", "2C", "2D", "3S"], H2, STD) == 0  # other-level cards tie
    assert trick_winner(["2S", "2C", "2H", "3S"], H2, STD) == 2


def test_check_throw() -> None:
    # A4.4: fails if anyone beats a unit; the smallest failing unit is forced (B5 example).
    ok = check_throw("AS AS KS", ["QS QS JS", "3D", "4C"], H2, STD)
    assert ok.ok
    bad = check_throw("KS KS QS QS JS", ["AS 3D", "4C", "5C"], H2, STD)
    assert not bad.ok and [str(c) for c in bad.forced] == ["JS"]


def test_bottom_and_levels() -> None:
    assert bottom_multiplier("5S", H2, STD) == 2
    assert bottom_multiplier("5S 5S", H2, STD) == 4
    assert bottom_multiplier("5S 5S 6S 6S", H2, STD) == 8
    out = level_outcome(0, STD, "2", banker=0)
    assert (out.side, out.levels, out.new_level, out.next_banker) == ("banker", 3, "5", 2)
    out = level_outcome(125, STD, "2", banker=0)
    assert (out.side, out.levels, out.next_banker) == ("attackers", 1, 1)
