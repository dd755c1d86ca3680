"""Builds the real referee for a match, or says why it cannot.

The dashboard never judges: it feeds the match record to the game's referee (the shared
interface in CONTRIBUTING.md) and shows ``report()``/``state()``. While a game's referee is not
available, ``ReplayReferee`` groups plays into tricks without judging anything (no winners, no
violations) so the screens still show what was played, and the page says so.
"""

from __future__ import annotations

import logging
from typing import Any

from engine.cards import parse_cards
from engine.games import referee_for
from engine.record import RecordError

log = logging.getLogger(__name__)


def make_referee(match_start: dict[str, Any]) -> tuple[Any, str]:
    """(referee, engine name). Falls back to ``ReplayReferee`` with the reason in the name."""
    try:
        ref = referee_for(match_start)
        return ref, f"{type(ref).__module__}.{type(ref).__name__}"
    except (RecordError, ImportError, AttributeError, ValueError, KeyError) as e:
        log.warning("no referee engine for this match, replaying only: %s", e)
        return ReplayReferee(), f"replay only (no judging: {e})"


class ReplayReferee:
    """Groups plays into tricks (one play per seat) and sums card points. Judges nothing."""

    def __init__(self) -> None:
        self.seats = 4
        self.hands: list[dict[str, Any]] = []

    def feed(self, event: dict[str, Any]) -> list[dict[str, Any]]:
        kind = event["type"]
        if kind == "match_start":
            self.seats = len(event["seats"])
        elif kind == "hand_start":
            self.hands.append(
                {
                    "hand": event["hand"],
                    "trump": {"level": event["level"], "suit": None},
                    "banker": event["banker"],
                    "tricks": [],
                    "bottom": {"cards": None, "multiplier": None, "points": None},
                    "attacker_points": 0,
                    "violations": [],
                    "outcome": None,
                }
            )
        elif not self.hands:
            return []
        elif kind == "trump":
            self.hands[-1]["trump"]["suit"] = event["suit"]
        elif kind == "bottom_reveal":
            self.hands[-1]["bottom"]["cards"] = event["cards"]
        elif kind == "play":
            tricks = self.hands[-1]["tricks"]
            if not tricks or len(tricks[-1]["plays"]) == self.seats:
                tricks.append({"leader": event["seat"], "plays": [], "winner": None, "points": 0})
            tricks[-1]["plays"].append(
                {"seat": event["seat"], "cards": event["cards"], "seq": event["seq"]}
            )
            tricks[-1]["points"] += sum(c.points for c in parse_cards(event["cards"]))
        return []

    def state(self) -> dict[str, Any]:
        return {}

    def report(self) -> dict[str, Any]:
        return {"hands": self.hands}
