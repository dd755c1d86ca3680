"""A Gouji 局 scored from the finishing places, as the format's sheet counts it.

Each team's three players score the sheet's small points for their places (头科 … 大落); a
sweep (串三户: one team takes 头科, 二科 and 三科) scores the sheet's sweep figure where it has
one; under 只记正分，不记负分 (青岛) the side ahead records its points and the other side 0 (the
tables sum to zero, so the two teams' sums offset, 相抵, into one positive figure).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.tournament.formats import FormatError, Points
from engine.tournament.results import Game

__all__ = ["game_from_places"]


def game_from_places(points: Points, places_a: Sequence[int]) -> Game:
    """The game of side ``a`` finishing on ``places_a`` (three of 1–6; ``b`` has the rest)."""
    if not points.places:
        raise FormatError("this format's sheet gives no points per place")
    if len(places_a) != 3 or len(set(places_a)) != 3 or not set(places_a) <= set(range(1, 7)):
        raise FormatError(f"places {list(places_a)}: side a holds three distinct places of 1–6")
    places_b = [p for p in range(1, 7) if p not in places_a]
    a = float(sum(points.places[p - 1] for p in places_a))
    b = float(sum(points.places[p - 1] for p in places_b))
    if points.sweep and set(places_a) == {1, 2, 3}:
        a, b = float(points.sweep), 0.0 if points.positive_only else b
    elif points.sweep and set(places_b) == {1, 2, 3}:
        a, b = (0.0 if points.positive_only else a), float(points.sweep)
    if points.positive_only:
        a, b = max(a, 0.0), max(b, 0.0)
    return Game("a" if a > b else "b" if b > a else "draw", a, b)
