"""What a referee who sees only the cloth knows about each seat's hand.

Every card a seat plays later was already in its hand earlier (nothing enters a hand during
play), so the cards a seat has played from trick k onward are a *proven* part of its hand at
trick k. Follow obligations only grow with the hand, so a follow that is illegal against that
proven part is illegal against every hand the seat could have held: that is the whole proof of
a revoke, a missed pair or a missed tractor, and of a failed throw (another seat proven to hold
a beating unit). Nothing here guesses: it only collects what the table showed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.cards import Card


@dataclass(frozen=True, slots=True)
class SeenPlay:
    """One play of a seat in the current deal."""

    seq: int
    trick: int
    cards: tuple[Card, ...]
    evidence: str | None


@dataclass
class SeatKnowledge:
    """One seat, one deal: its plays in order, a shown rest of hand, and what its follows claim.

    ``voids``: effective suits the seat showed void in (a follow short of the led suit);
    ``no_pairs`` / ``no_tractors``: suits where a follow showed it held no pair / no tractor.
    They are the seat's claims; a later play contradicting one is what proves a violation.
    """

    seat: int
    plays: list[SeenPlay] = field(default_factory=list)
    shown_at: int | None = None
    shown: tuple[Card, ...] = ()
    voids: set[str] = field(default_factory=set)
    no_pairs: set[str] = field(default_factory=set)
    no_tractors: set[str] = field(default_factory=set)

    def add(self, play: SeenPlay) -> int:
        """Record a play; returns its index among this seat's plays."""
        self.plays.append(play)
        return len(self.plays) - 1

    def show(self, cards: list[Card]) -> None:
        """The seat showed every card it still holds (a ``show`` event with ``what: hand``)."""
        self.shown_at = len(self.plays)
        self.shown = tuple(cards)

    def held_from(self, index: int) -> list[Card]:
        """Cards proven in the hand when play ``index`` was made: that play and every later one
        (and the shown rest, when the seat showed its hand after that play)."""
        if self.shown_at is not None and self.shown_at >= index:
            out = [c for p in self.plays[index : self.shown_at] for c in p.cards]
            return out + list(self.shown)
        return [c for p in self.plays[index:] for c in p.cards]

    def cards_seen(self) -> list[Card]:
        return [c for p in self.plays for c in p.cards]

    def played_count(self) -> int:
        return sum(len(p.cards) for p in self.plays)

    def as_dict(self, order: dict[str, int] | None = None) -> dict[str, object]:
        """JSON-ready view for the dashboard (suits sorted S, H, C, D, T)."""
        rank = order or {"S": 0, "H": 1, "C": 2, "D": 3, "T": 4}

        def srt(xs: set[str]) -> list[str]:
            return sorted(xs, key=lambda s: rank.get(s, 9))

        return {
            "seat": self.seat,
            "voids": srt(self.voids),
            "no_pairs": srt(self.no_pairs),
            "no_tractors": srt(self.no_tractors),
            "cards_seen": [str(c) for c in self.cards_seen()],
            "cards_played": self.played_count(),
        }
