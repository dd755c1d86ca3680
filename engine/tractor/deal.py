"""What the 80-points referee keeps about a match while it judges: the deals, their tricks,
the plays, the follows and throws still open to proof, and the violations found."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from engine.cards import Card
from engine.tractor.combos import Combo
from engine.tractor.knowledge import SeatKnowledge
from engine.tractor.order import Trump

RULES_DOC = {
    "revoke": "did not follow the led suit while holding it (未跟花色)",
    "missed_pair": "did not follow a pair with a pair while holding one (有对不跟对)",
    "missed_tractor": "did not follow a tractor with a tractor while holding one",
    "failed_throw": "a throw (甩牌) that another seat could beat",
    "wrong_count": "a follow with a different number of cards than the lead",
    "out_of_turn": "played out of turn (越序)",
    "illegal_lead": "a lead that is no legal combination",
    "wrong_bury_count": "a bottom of the wrong number of cards",
    "wrong_hand_size": "a seat played more or fewer cards than its hand",
}


PENALTY_KEY = {"wrong_hand_size": "extra_cards"}
"""Violation ids whose penalty the profiles file under another key."""


@dataclass
class Violation:
    """One ruling against a seat, with the record positions and evidence that prove it."""

    hand: int
    rule: str
    seat: int
    at_seq: int
    proven_by_seq: int
    evidence: list[str]
    penalty: dict[str, Any]
    how: str
    detail: str
    count: int = 1
    status: str = "open"
    provisional: bool = False

    @property
    def id(self) -> str:
        return f"{self.hand}:{self.rule}:{self.seat}:{self.at_seq}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "rule": self.rule,
            "seat": self.seat,
            "at_seq": self.at_seq,
            "proven_by_seq": self.proven_by_seq,
            "evidence": list(self.evidence),
            "penalty": dict(self.penalty),
            "how": self.how,
            "status": self.status,
            "provisional": self.provisional,
            "detail": self.detail,
        }


@dataclass
class PlayRec:
    seq: int
    seat: int
    cards: list[Card]
    evidence: str | None
    confidence: float | None


@dataclass
class TrickState:
    index: int
    leader: int
    lead: Combo
    legal_lead: bool
    plays: list[PlayRec] = field(default_factory=list)
    winner: int | None = None
    points: int = 0
    incomplete: bool = False

    def seats_played(self) -> set[int]:
        return {p.seat for p in self.plays}

    def as_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "leader": self.leader,
            "plays": [
                {"seat": p.seat, "cards": [str(c) for c in p.cards], "seq": p.seq}
                for p in self.plays
            ],
            "winner": self.winner,
            "points": self.points,
            **({"incomplete": True} if self.incomplete else {}),
        }


@dataclass
class PendingFollow:
    """A follow whose legality the seat's later plays may still disprove."""

    seat: int
    seq: int
    index: int
    trick: int
    lead: Combo
    play: tuple[Card, ...]
    suit: str
    evidence: str | None


@dataclass
class PendingThrow:
    """A throw that another seat's later plays may still show was beatable."""

    seat: int
    seq: int
    trick: int
    lead: Combo
    suit: str
    start: dict[int, int]
    evidence: str | None


@dataclass
class HandState:
    """Everything about one deal."""

    hand: int
    banker: int | None
    level: str
    start_seq: int
    trump: Trump | None = None
    trump_seq: int | None = None
    declares: list[tuple[int, int, list[Card]]] = field(default_factory=list)
    bury: tuple[int, int] | None = None
    tricks: list[TrickState] = field(default_factory=list)
    seats: dict[int, SeatKnowledge] = field(default_factory=dict)
    follows: list[PendingFollow] = field(default_factory=list)
    throws: list[PendingThrow] = field(default_factory=list)
    violations: list[Violation] = field(default_factory=list)
    bottom: list[Card] | None = None
    bottom_seq: int | None = None
    ended: bool = False
    end_seq: int | None = None
    end_reason: str = ""
    result: dict[str, Any] | None = None
    levels_before: list[str] = field(default_factory=list)
    levels_after: list[str] | None = None
    """Each team's level once the deal is scored (None before, or without an outcome)."""
    seen: Counter[Card] = field(default_factory=Counter)
    trump_unknown: bool = False
    missed: set[int] = field(default_factory=set)
    """Seats with a play the record lacks (an incomplete trick): their card count proves
    nothing."""
    audited: int = 0
    """Follows and throws still open at the end of the deal and not disproved by its cards."""

    def current(self) -> TrickState | None:
        return self.tricks[-1] if self.tricks else None
