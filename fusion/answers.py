"""The read check of a game whose sets are answered by one of the same count
(``engine.games.Game.answers_sets``: Gouji), for ``fusion.plays.Fusion``'s ``extra_checks``.

Gouji has no fixed turn and no lead count for fusion to check, but an answer (or a burn) must
have as many cards as the set it answers (C6: 「张数相同」). A read of another count, by a
seat that is not leading anew, most likely lost a card under its twin (a pair read as one) or
saw one twice: the play goes to a referee, so the Gouji referee's not-beating ruling on it
stays provisional. And since the set answered may be the misread one (a single read as a pair),
it is doubted too (``answered_set`` tells fusion which set that was). The referee (fed the
seat presses) says what stands and who may lead (``AnsweredSets``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

Problem = tuple[str, str]


@runtime_checkable
class AnsweredSets(Protocol):
    """What the referee of a game with ``answers_sets`` tells the camera's read check
    (``engine.gouji.referee.GoujiReferee``): the set standing, and who may lead anew."""

    def standing(self) -> tuple[int, list[str]] | None: ...

    def may_lead(self) -> int | None: ...


def answer_count_check(referee: object) -> Callable[[int, list[str]], list[Problem]]:
    """A check of a seat's read set against the set standing, by the referee (none without
    a referee that answers sets)."""

    if not isinstance(referee, AnsweredSets):  # decided once, not on every read
        return lambda _seat, _cards: []

    def check(seat: int, cards: list[str]) -> list[Problem]:
        try:
            top, leader = referee.standing(), referee.may_lead()
        except Exception:  # a referee fault must not stop the camera
            return []
        if top is None or top[0] == seat or leader == seat:
            return []  # a lead, or a new lead: any count
        need = len(top[1])
        if need and len(cards) != need:
            why = f"read {len(cards)} card(s); the set to answer has {need}"
            return [("count", why)]
        return []

    return check


def answered_set(referee: object) -> Callable[[], tuple[int, list[str]] | None]:
    """The set standing in the round (seat, cards), by the referee: what an answer of
    another count disagrees with."""

    if not isinstance(referee, AnsweredSets):
        return lambda: None

    def standing() -> tuple[int, list[str]] | None:
        try:
            return referee.standing()
        except Exception:  # a referee fault must not stop the camera
            return None

    return standing
