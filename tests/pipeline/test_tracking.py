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


def at(card: str, x: float, y: float, score: float = 0.95) -> Det:
    return Det(
        card, score, [[x - 30, y - 40], [x + 30, y - 40], [x + 30, y + 40], [x - 30, y + 40]]
    )


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
    split = [at("JS", x, y, 0.9), at("JS", x + 2, y - 23, 0.8)]  # offset along the long axis
    merged = merge_split_cards(split)
    assert len(merged) == 1 and merged[0].score == 0.9 * MERGE_DOUBT
    pair = [at("JS", x, y), at("JS", x + 30, y + 2)]  # two decks' copies, fanned across
    assert len(merge_split_cards(pair)) == 2
