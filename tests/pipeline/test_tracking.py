"""Tracker: reads on still frames become observations; identical cards are counted."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vision.calibration import Calibration, default_layout
from vision.tracking import Tracker

LAYOUT = default_layout(4)
IDENTITY = Calibration(np.eye(3), (1000, 1000))


@dataclass(frozen=True)
class Det:
    card: str
    score: float
    quad: list[list[float]]


def at(card: str, x: float, y: float, score: float = 0.95, turned: int = 0) -> Det:
    """A card read upright, or read ``turned`` by that many quarter turns (clockwise): from
    its lower index corner (2), or from a mark in a side corner (1, 3)."""
    quad = [[x - 30, y - 40], [x + 30, y - 40], [x + 30, y + 40], [x - 30, y + 40]]
    if turned % 2:  # the same place, seen landscape
        quad = [[x + 40, y - 30], [x + 40, y + 30], [x - 40, y + 30], [x - 40, y - 30]]
    k = 2 if turned == 3 else 0 if turned == 1 else turned
    return Det(card, score, quad[k:] + quad[:k])


def seat_xy(seat: int, dx: float = 0.0) -> tuple[float, float]:
    c = np.array(LAYOUT.seat_areas[seat].polygon).mean(0)
    return float(c[0] + dx), float(c[1])


def step(tr: Tracker, dets: list[Det], frame: int, ready: list[str] | None = None):  # type: ignore[no-untyped-def]
    names = ready if ready is not None else [a.name for a in LAYOUT.areas]
    return tr.update(names, tr.assign(dets), frame, frame / 20)


def test_pair_of_identical_cards_is_two_cards() -> None:
    tr = Tracker(LAYOUT, IDENTITY)
    assert step(tr, [], 0) == []
    obs = step(tr, [at("7H", *seat_xy(0)), at("7H", *seat_xy(0, 30), score=0.7)], 5)
    assert len(obs) == 1 and obs[0].kind == "appeared" and obs[0].seat == 0
    assert obs[0].cards == ("7H", "7H")
    assert sorted(obs[0].scores) == [0.7, 0.95]


def test_added_cards_then_cleared() -> None:
    tr = Tracker(LAYOUT, IDENTITY)
    step(tr, [at("AS", *seat_xy(1))], 1)
    obs = step(tr, [at("AS", *seat_xy(1)), at("KS", *seat_xy(1, 30))], 2, ["seat1"])
    assert [(o.kind, o.cards) for o in obs] == [("appeared", ("KS",))]
    obs = step(tr, [], 3, ["seat1"])
    assert [(o.kind, o.before) for o in obs] == [("cleared", ("AS", "KS"))]


def test_area_not_ready_is_not_reread() -> None:
    tr = Tracker(LAYOUT, IDENTITY)
    step(tr, [], 0)
    assert step(tr, [at("AS", *seat_xy(2))], 1, ["seat0"]) == []  # seat2 still moving


def test_bottom_face_down_then_turned_up() -> None:
    tr = Tracker(LAYOUT, IDENTITY)
    step(tr, [], 0)
    backs = [at("back", 400 + 25 * i, 500) for i in range(8)]
    obs = step(tr, backs, 1, ["centre"])
    assert [(o.kind, o.count) for o in obs] == [("facedown", 8)]
    faces = [
        at(c, 400 + 25 * i, 500)
        for i, c in enumerate(["3H", "3H", "5H", "6D", "6D", "4H", "8H", "10S"])
    ]
    obs = step(tr, faces, 2, ["centre"])
    assert obs[0].kind == "revealed" and sorted(obs[0].cards) == sorted(
        ["3H", "3H", "5H", "6D", "6D", "4H", "8H", "10S"]
    )


def test_cards_outside_every_area_are_ignored() -> None:
    tr = Tracker(LAYOUT, IDENTITY)
    step(tr, [], 0)
    assert step(tr, [at("AS", 5, 5)], 1) == []


def test_one_card_read_from_both_corners_is_one_doubtful_card() -> None:
    from vision.tracking import MERGE_DOUBT, merge_split_cards

    x, y = seat_xy(0)
    # its two corners, turned 180° to each other, centres guessed apart along the long axis
    split = [at("JS", x, y, 0.9), at("JS", x + 2, y - 23, 0.8, turned=2)]
    merged = merge_split_cards(split)
    assert len(merged) == 1 and merged[0].score == 0.9 * MERGE_DOUBT
    pair = [at("JS", x, y), at("JS", x + 30, y + 2)]  # two decks' copies, fanned across
    assert len(merge_split_cards(pair)) == 2
    # two copies whose indices face the same way stay two cards wherever their centres
    # were guessed (a lone corner's centre can land anywhere along the card)
    along = [at("JS", x, y, 0.9), at("JS", x + 2, y - 23, 0.8)]
    assert len(merge_split_cards(along)) == 2


def test_a_joker_read_at_three_corners_is_one_doubtful_card() -> None:
    """A joker with a star in every corner: the marks read as indices facing three ways,
    each placing the card somewhere else. One card, kept from the surest read, doubted; a
    true pair of jokers (fanned, facing the same way) stays two."""
    from vision.tracking import MERGE_DOUBT, merge_split_cards

    x, y = seat_xy(0)
    corners = [at("SJ", x, y, 0.95), at("SJ", x + 50, y + 20, 0.93, turned=1)]
    corners.append(at("SJ", x + 95, y + 10, 0.96, turned=2))  # one with the 1st through the 2nd
    merged = merge_split_cards(corners)
    assert len(merged) == 1 and merged[0].score == 0.96 * MERGE_DOUBT
    pair = [at("SJ", x, y), at("SJ", x + 20, y + 3, 0.9)]
    assert [d.score for d in merge_split_cards(pair)] == [0.95, 0.9]
