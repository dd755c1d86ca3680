"""The read check of a game whose sets are answered by one of the same count
(``engine.games.Game.answers_sets``: Gouji), for ``fusion.plays.Fusion``'s ``extra_checks``.

Gouji has no fixed turn and no lead count for fusion to check, but an answer (or a burn) must
have as many cards as the set it answers (C6: 「张数相同」). A read of another count, by a
seat that is not leading anew, most likely lost a card under its twin (a pair read as one) or
saw one twice: the play goes to a referee, so the Gouji referee's not-beating ruling on it
stays provisional. And since the set answered may be the misread one (a single read as a pair),
it is doubted too (``answered_set`` tells fusion which set that was). The referee's own state
(fed the seat presses) says what stands and who may lead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.games import RefereeLike

Problem = tuple[str, str]


def answer_count_check(referee: RefereeLike | None) -> Callable[[int, list[str]], list[Problem]]:
    """A check of a seat's read set against the set standing, by the referee's state."""

    def check(seat: int, cards: list[str]) -> list[Problem]:
        if referee is None:
            return []
        try:
            hand: dict[str, Any] = referee.state().get("hand") or {}
        except Exception:  # a referee fault must not stop the camera
            return []
        top = (hand.get("current_trick") or {}).get("top")
        if not top or top.get("seat") == seat or hand.get("next_seat") == seat:
            return []  # a lead, or a new lead: any count
        need = len(top.get("cards") or [])
        if need and len(cards) != need:
            why = f"read {len(cards)} card(s); the set to answer has {need}"
            return [("count", why)]
        return []

    return check


def answered_set(referee: RefereeLike | None) -> Callable[[], tuple[int, list[str]] | None]:
    """The set standing in the round (seat, cards), by the referee's state: what an answer of
    another count disagrees with."""

    def standing() -> tuple[int, list[str]] | None:
        if referee is None:
            return None
        try:
            hand: dict[str, Any] = referee.state().get("hand") or {}
        except Exception:  # a referee fault must not stop the camera
            return None
        top = (hand.get("current_trick") or {}).get("top")
        if not top or not isinstance(top.get("seat"), int):
            return None
        return int(top["seat"]), list(top.get("cards") or [])

    return standing
