"""Faults the independent judging cases found (issue 16), each pinned by a scenario.

1. the 5-10-K follow duty (TRACTOR.md B20.14 「其他人如有同性质的牌必须跟出」, C1 #10): judged at
   once when the hand is shown, at the proving play when it is not;
2. a ruff of a multi-pair throw is compared by its largest unit, a trump tractor's top pair
   included (000: 「敲牌时，以最大对子…或最大牌为大」);
3. every finished hand of ``Referee.report()`` (``judge --json``) has its ``levels_after``.
"""

from __future__ import annotations

from typing import Any

from engine.tractor.record_sim import simulate
from engine.tractor.referee import Referee
from engine.tractor.rules import Rules

Table = Any


def _fiveten_lead(table: type[Table]) -> tuple[Table, list[int]]:
    """Seat 1 holds 5D 10D KD but follows the led 5-10-K of diamonds with other diamonds."""
    t = table("chaodipi-h5", level="2", suit="S")
    first = t.trick((0, "5D 10D KD"), (1, "3D 4D 6D"), (2, "7D 8D 9D"), (3, "JD QD AD"))
    return t, first


def test_fiveten_follow_is_proven_when_the_seat_later_plays_it(table: type[Table]) -> None:
    t, first = _fiveten_lead(table)
    assert t.all_found() == []  # nothing proven yet: the seat may hold no 5-10-K
    t.trick((0, "3H"), (1, "3S"), (2, "4H"), (3, "6H"))  # seat 1 ruffs and takes the lead
    proof = t.trick((1, "5D 10D KD"), (2, "7D 8D 9D"), (3, "JD QD AD"), (0, "3D 4D 6D"))
    found = t.found(proof[0], "missed_tractor")
    assert len(found) == 1, t.all_found()
    v = found[0]
    assert (v["seat"], v["at_seq"], v["proven_by_seq"]) == (1, first[1], proof[0])
    assert "fiveten" in v["detail"]
    assert [r for r in t.all_found() if r is not v] == []


def test_fiveten_follow_is_judged_at_once_when_the_hand_is_shown(table: type[Table]) -> None:
    t, first = _fiveten_lead(table)
    shown = t.add("show", seat=1, what="hand", cards=["5D", "10D", "KD", "3S", "AC"])
    found = t.found(shown, "missed_tractor")
    assert len(found) == 1, t.all_found()
    assert (found[0]["seat"], found[0]["at_seq"]) == (1, first[1])


def test_fiveten_followed_in_kind_or_not_held_is_legal(table: type[Table]) -> None:
    t = table("chaodipi-h5", level="2", suit="S")
    t.trick((0, "5D 10D KD"), (1, "5D 10D KD"), (2, "7D 8D 9D"), (3, "JD QD AD"))
    t.add("show", seat=2, what="hand", cards=["7D", "8D", "AC"])
    assert t.all_found() == []


def test_a_trump_tractor_in_a_ruff_of_pairs_counts_by_its_top_pair(table: type[Table]) -> None:
    """Three side pairs led; the second ruff's largest pair is the SJ pair of its trump
    tractor (SJ SJ + the level pair), above every pair of the first ruff."""
    t = table("standard", level="2", suit="H")
    t.trick(
        (0, "KS KS 9S 9S 5S 5S"),
        (1, "3H 3H 6H 6H 9H 9H"),
        (2, "SJ SJ 2H 2H 4H 4H"),
        (3, "3C 4C 5C 6C 7C 8C"),
    )
    assert t.ref.report()["hands"][0]["tricks"][0]["winner"] == 2


def test_a_lower_ruff_with_a_tractor_still_loses(table: type[Table]) -> None:
    """The same comparison the other way: the tractor's top pair is below the other ruff's."""
    t = table("standard", level="2", suit="H")
    t.trick(
        (0, "KS KS 9S 9S 5S 5S"),
        (1, "AH AH 6H 6H 9H 9H"),
        (2, "3H 3H 4H 4H 7H 7H"),
        (3, "3C 4C 5C 6C 7C 8C"),
    )
    assert t.ref.report()["hands"][0]["tricks"][0]["winner"] == 1


def test_report_keeps_levels_after_of_every_finished_hand() -> None:
    rules = Rules.load("standard")
    events, _ = simulate(rules, 3, hands=2, inject=0)
    ref = Referee(rules)
    produced: list[list[str]] = []
    for ev in events:
        ref.feed(ev)
        if ev["type"] == "hand_end":
            produced.append(list(ref.levels))
    hands = ref.report()["hands"]
    assert len(hands) == 2
    assert [h["levels_after"] for h in hands] == produced
