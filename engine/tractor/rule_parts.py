"""The parts of a loaded rule profile (bands, knock-backs, penalties, per-section rules) and
where the shipped profiles lie; ``rules.Rules`` holds them, ``profile_loader`` fills them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

PROFILE_DIR = Path(__file__).with_name("profiles")
SIDES = ("banker", "attackers")


@dataclass(frozen=True, slots=True)
class Band:
    """One row of a level table: scores ``lo..hi`` (inclusive, step 5) give ``side`` levels.

    With ``per``, the levels grow by one every ``per`` points away from ``anchor``
    (``round`` down or up), capped at ``cap`` when it is set.
    """

    lo: int
    hi: int
    side: str
    levels: int
    per: int = 0
    anchor: int = 0
    round_up: bool = False
    cap: int = 0

    def levels_for(self, score: int) -> int:
        if not self.per:
            return self.levels
        dist = abs(score - self.anchor)
        steps = -(-dist // self.per) if self.round_up else dist // self.per
        value = self.levels + steps
        return min(value, self.cap) if self.cap else value


@dataclass(frozen=True, slots=True)
class Knockback:
    """A bottom capture that sends the banker side back: while playing ``level``, a capture
    with ``unit`` (a rank such as ``J``, or ``5-10-K``) resets it to ``to``; ``then`` says how
    its level is counted when it keeps the stage (``score``: advance from ``to``; ``stay``)."""

    level: str
    unit: str
    to: str
    then: str


@dataclass(frozen=True, slots=True)
class Penalty:
    """What an offence costs: points to the other side (flat and/or per card), levels.

    ``per`` says what ``per_card`` counts for a failed throw: the cards of the attempted
    throw (``thrown``) or the cards that could not be thrown (``back``)."""

    points: int = 0
    per_card: int = 0
    levels: int = 0
    floor0: bool = False
    per: str = "thrown"
    note: str = ""


@dataclass(frozen=True, slots=True)
class TractorRules:
    min_pairs: int
    aa22: bool
    gap: bool
    level_in_suit: bool
    joker: bool
    sj_main: bool
    main_other: bool
    other_a: bool
    h5_joker: bool
    triples: bool
    quads: bool
    fiveten: bool


@dataclass(frozen=True, slots=True)
class FollowRules:
    pairs: bool
    tractors: bool
    ladder5: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ThrowRules:
    allowed: bool
    against: str
    forced: str
    penalty: Penalty


@dataclass(frozen=True, slots=True)
class BottomRules:
    scheme: str
    factor: int
    cap: int
    trump_only: bool
    throw: str
    bonus: tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class DeclareRules:
    min_cards: int
    first_banker: str
    overcall: str
    ladder: tuple[str, ...]
    jokers_declare: bool
    jokers_overcall: bool
    overcall_changes_banker: str
    fallback: str


def profile_ids() -> list[str]:
    """All shipped profiles, ``standard`` first."""
    ids = sorted(p.stem for p in PROFILE_DIR.glob("*.toml") if p.stem != "standard")
    return ["standard", *ids]
