"""Gouji's read checks in fusion, against a real Gouji referee: an answer of another count
than the set standing goes to a referee, and so does the set it answers (either may be the
misread one: a single read as a pair, or a pair's lower card lost)."""

from __future__ import annotations

from typing import Any

from engine.games import referee_for
from fusion.answers import answer_count_check, answered_set
from fusion.plays import Fusion
from vision.tracking import Observation

SEATS = ["a", "b", "c", "d", "e", "f"]


def appeared(seat: int, cards: str, frame: int) -> Observation:
    cs = tuple(cards.split())
    return Observation(
        "appeared", f"seat{seat}", seat, frame, frame / 20, cards=cs, scores=(0.96,) * len(cs)
    )


def table() -> tuple[Any, Fusion]:
    """A Gouji referee that has seen the deal open, and fusion asking it (as the node wires it)."""
    start: dict[str, Any] = {"v": 1, "seq": 0, "t": 0.0, "type": "match_start", "game": "gouji"}
    start |= {"profile": "gouji-core", "seats": SEATS, "teams": [[0, 2, 4], [1, 3, 5]]}
    start |= {"levels": ["-", "-"]}
    ref = referee_for(start)
    ref.feed(start)
    ref.feed({"v": 1, "seq": 1, "t": 0.0, "type": "hand_start", "hand": 1, "banker": 0})
    checks = answer_count_check(ref)
    return ref, Fusion(
        6, 4, 0.6, banker=0, turns=False, extra_checks=checks, answered=answered_set(ref)
    )


def test_an_answer_of_another_count_doubts_the_set_it_answers() -> None:
    ref, f = table()
    seq = 2
    lead = f.feed(appeared(0, "QH QH", 1))  # in truth one QH, read twice
    assert [d.event["type"] for d in lead] == ["play"] and lead[0].unsure is None
    ref.feed({"v": 1, "seq": seq, "t": 0.1, "type": "play", "seat": 0, "cards": ["QH", "QH"]})
    lead[0].written_seq = seq
    out = f.feed(appeared(1, "KH", 2))  # the answer: one card
    answer, *late = out
    assert answer.unsure is not None and answer.unsure.reason == "count"
    assert [(d.event["type"], d.unsure.reason if d.unsure else None) for d in late] == [
        ("needs_referee", "later_doubt")
    ]
    assert late[0].flags is lead[0]  # the doubt names the standing set's play


def test_an_answer_of_the_same_count_doubts_nothing() -> None:
    ref, f = table()
    f.feed(appeared(0, "QH QH", 1))
    ref.feed({"v": 1, "seq": 2, "t": 0.1, "type": "play", "seat": 0, "cards": ["QH", "QH"]})
    out = f.feed(appeared(1, "KH KH", 2))
    assert [d.event["type"] for d in out] == ["play"] and out[0].unsure is None
