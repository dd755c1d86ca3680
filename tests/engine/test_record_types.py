"""The typed record helpers: what they return, and that a null where cards or a banker belongs
fails as it did before the types (``TypeError``, which the referees report as an error)."""

from __future__ import annotations

import pytest

from engine.cards import parse_card
from engine.record import Event, SeqCounter, banker_of, cards_of, cards_text, dumps_event


def test_cards_helpers_read_a_play() -> None:
    ev = SeqCounter().event("play", 1.0, seat=2, cards=["10H", "AS"])
    assert cards_text(ev) == ["10H", "AS"]
    assert cards_of(ev) == [parse_card("10H"), parse_card("AS")]
    assert dumps_event(ev).startswith('{"v":1,"seq":0,"t":1.0,"type":"play"')


def test_null_cards_and_banker_raise_type_error() -> None:
    shown: Event = {"v": 1, "seq": 4, "t": 2.0, "type": "exchange", "cards": None}
    with pytest.raises(TypeError, match="exchange seq 4"):
        cards_of(shown)
    trump: Event = {"v": 1, "seq": 5, "t": 3.0, "type": "correction", "banker": None}
    with pytest.raises(TypeError, match="null banker"):
        banker_of(trump)
    assert banker_of({**trump, "banker": 3}) == 3


def test_a_doubted_read_makes_only_a_violation_provisional() -> None:
    from engine.record import Ruling, provisional_if

    v: Ruling = {"kind": "violation", "rule": "revoke", "seat": 1, "at_seq": 9}
    trick: Ruling = {"kind": "trick", "winner": 2}
    assert provisional_if(v, True) == {**v, "provisional": True} and "provisional" not in v
    assert provisional_if(v, False) is v and provisional_if(trick, True) is trick
