"""Names a referee reads: cards as Chinese referees say them, every rule by its sheet's name,
in both languages, from the one table the CLI and the dashboard share."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engine import names
from engine.cards import RANKS

SUITS = ("S", "H", "C", "D")
CODES = [f"{r}{s}" for r in RANKS for s in SUITS] + ["BJ", "SJ"]


def test_cards_as_referees_say_them() -> None:
    assert names.card_name("AH") == "红桃A"
    assert names.card_name("10S") == "黑桃10"
    assert names.card_name("BJ") == "大王" and names.card_name("SJ") == "小王"
    assert names.card_name("QD", "en") == "Q of diamonds"
    assert names.cards_text(["KC", "KC"]) == "梅花K、梅花K"
    assert names.cards_text([]) == "-"
    assert names.suit_name(None) == "无主" and names.suit_name(None, "en") == "no trump"


@given(st.sampled_from(CODES), st.sampled_from(names.LANGS))
def test_every_card_has_a_name_that_is_not_its_code(code: str, lang: str) -> None:
    name = names.card_name(code, lang)
    assert name and name != code


def test_every_rule_named_in_both_languages() -> None:
    for rid, (zh, en) in names.RULES.items():
        assert any("\u4e00" <= ch <= "\u9fff" for ch in zh), rid
        assert en and en != rid and "_" not in en, rid
    assert names.rule_name("revoke") == "打错牌（未跟花色）"
    assert names.rule_name("failed_throw", "en") == "Failed throw"
    assert names.rule_name("no_such_rule") == "no_such_rule"  # an unnamed id stays readable


def test_unknown_code_is_kept() -> None:
    assert names.card_name("XX") == "XX"
