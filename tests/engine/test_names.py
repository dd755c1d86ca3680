"""Names a referee reads: cards as Chinese referees say them, every rule by its sheet's name,
in both languages, from the one table the CLI and the dashboard share."""

from __future__ import annotations

import re

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


def _violation_details() -> set[str]:
    """Every violation reason the referees give on simulated matches with injected faults,
    every profile of both games (a few seeds each)."""
    from engine.games import referee_for
    from engine.gouji.rules import Rules as GoujiRules
    from engine.gouji.sim import simulate as gouji_sim
    from engine.tractor.record_sim import simulate
    from engine.tractor.rules import Rules

    records = [
        simulate(Rules.load(p), seed=s, hands=2, inject=4)[0] for p in Rules.ids() for s in (0, 1)
    ]
    records += [gouji_sim(p, s, inject=4)[0] for p in GoujiRules.ids() for s in (0, 1)]
    out: set[str] = set()
    for events in records:
        ref = referee_for(events[0])
        for e in events:
            out |= {str(r["detail"]) for r in ref.feed(e) if r.get("kind") == "violation"}
    return out


def test_every_violation_reason_has_its_chinese() -> None:
    """A new English reason in the engine fails here until ``names.DETAILS`` says it in
    Chinese: the pages and the report never show a Chinese referee English."""
    details = _violation_details()
    assert len(details) > 20
    missing = sorted(d for d in details if names.detail_text(d, "zh_CN") is None)
    assert not missing, missing
    for d in details:
        zh = names.detail_text(d, "zh_CN")
        assert zh is not None and not re.search(r"\b(?:card|seat|trick|the|held|suit)\b", zh), zh
        assert names.detail_text(d, "en") == d


def test_an_unknown_reason_is_none_not_english() -> None:
    assert names.detail_text("a brand new reason", "zh_CN") is None
    assert names.detail_text("trick 2: a brand new reason", "zh_CN") is None
    assert (
        names.detail_text("过牌既不能打也不能烧 (C7, L34)", "zh_CN")
        == "过牌既不能打也不能烧 (C7, L34)"
    )
