"""Small builder for hand-written referee scenarios: a record as a list of event dicts."""

from __future__ import annotations

from typing import Any

import pytest

from engine.record import SeqCounter, validate_event
from engine.tractor.referee import Referee
from engine.tractor.rules import Rules


class Table:
    """Builds a one-deal record event by event and feeds a referee as it goes, remembering
    the rulings each event produced (to check that nothing is flagged before its proof)."""

    def __init__(
        self,
        profile: str = "standard",
        level: str = "2",
        suit: str | None = "S",
        banker: int = 0,
        bury: int | None = None,
        options: dict[str, Any] | None = None,
    ) -> None:
        self.rules = Rules.load(profile, options)
        self.ref = Referee(self.rules)
        self.counter = SeqCounter()
        self.events: list[dict[str, Any]] = []
        self.rulings: dict[int, list[dict[str, Any]]] = {}
        self.add(
            "match_start",
            game="tractor",
            profile=profile,
            seats=["N", "W", "S", "E"],
            teams=[[0, 2], [1, 3]],
            levels=[level, level],
        )
        self.add("hand_start", hand=1, banker=banker, level=level)
        self.add("trump", suit=suit)
        self.add("bury", seat=banker, count=self.rules.bottom if bury is None else bury)

    def add(self, type_: str, **fields: Any) -> int:
        ev = self.counter.event(type_, float(self.counter.next_seq), **fields)
        validate_event(ev)
        self.events.append(ev)
        self.rulings[ev["seq"]] = self.ref.feed(ev)
        return int(ev["seq"])

    def play(self, seat: int, cards: str) -> int:
        return self.add(
            "play", seat=seat, cards=cards.split(), evidence=f"clip-{self.counter.next_seq}"
        )

    def trick(self, *plays: tuple[int, str]) -> list[int]:
        return [self.play(seat, cards) for seat, cards in plays]

    def found(self, seq: int, rule: str | None = None) -> list[dict[str, Any]]:
        """Violations that the event ``seq`` produced (of ``rule`` if given)."""
        return [
            r
            for r in self.rulings[seq]
            if r["kind"] == "violation" and (rule is None or r["rule"] == rule)
        ]

    def all_found(self) -> list[dict[str, Any]]:
        return [r for s in sorted(self.rulings) for r in self.found(s)]


@pytest.fixture
def table() -> type[Table]:
    """The scenario builder: ``table(profile, level, suit, banker)``."""
    return Table
