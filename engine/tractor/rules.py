"""Rule profiles: one TOML file per tournament sheet, loaded into a frozen ``Rules``.

Every profile inherits ``standard`` (TRACTOR.md Part A) unless it says ``inherits = ""``; the
sheet's own rules override it key by key, and each key may cite its sheet in ``[section.cites]``.
Where a sheet is silent, the value comes from ``standard`` and ``Rules.inherited`` says so, so a
referee can tell a sheet's rule from an assumed default. This module is what a loaded profile
is; ``profile_loader`` reads and checks the files (the engine's only I/O).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.errors import ProfileError

__all__ = ["ProfileError", "Rules", "profile_ids"]  # ProfileError: re-exported, engine.errors

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


@dataclass(frozen=True, slots=True)
class Rules:
    """A loaded profile. Hashable, so per-trump lookup tables can be cached on it."""

    id: str
    name: str
    source: str
    inherits: str
    decks: int
    hand: int
    bottom: int
    ladder: tuple[str, ...]
    start: str
    must_play: tuple[str, ...]
    win: str
    perm_trumps: tuple[str, ...]
    perm_twos: bool
    level_cards: bool
    tractor: TractorRules
    follow: FollowRules
    throw: ThrowRules
    bottom_rules: BottomRules
    threshold: int
    bands: tuple[Band, ...]
    knockbacks: tuple[Knockback, ...]
    rotation_keep: str
    rotation_lose: str
    declare: DeclareRules
    penalties: tuple[tuple[str, Penalty], ...]
    options: tuple[tuple[str, str], ...]
    cites: tuple[tuple[str, str], ...] = field(default=(), compare=False)
    inherited: tuple[str, ...] = field(default=(), compare=False)
    path: str = field(default="", compare=False)
    table: tuple[tuple[str, str], ...] = field(default=(), compare=False)

    @classmethod
    def load(
        cls, profile: str | Path = "standard", options: Mapping[str, Any] | None = None
    ) -> Rules:
        """A profile id (``xize-1h``) or a TOML path, with ``options`` set last as the record
        sets them: ``{"section.key": value}`` (``{"cards.decks": 4, "tractor.gap": False}``),
        the one form both games take. Changing ``cards.decks`` alone keeps the sheet's bottom
        and derives the hand from it (``cards.decks = 4`` on ``standard``: 52 cards, bottom 8,
        as the four-deck sheet has it)."""
        from engine.tractor.profile_loader import load_rules

        return load_rules(profile, options)

    @staticmethod
    def ids() -> list[str]:
        """Every profile shipped in ``profiles/``, ``standard`` first."""
        return profile_ids()

    def penalty(self, rule: str) -> Penalty:
        """The profile's penalty for a violation id (``revoke``, ``failed_throw``, ...). A
        failed throw takes the sheet's own ``[throw]`` penalty over an inherited entry."""
        if rule == "failed_throw" and "throw.penalty" not in self.inherited:
            return self.throw.penalty
        for name, pen in self.penalties:
            if name == rule:
                return pen
        if rule == "failed_throw":
            return self.throw.penalty
        return Penalty(note="not stated by the sheet: referee's decision")

    def option(self, key: str, default: str = "") -> str:
        return dict(self.options).get(key, default)

    def cite(self, key: str) -> str:
        return dict(self.cites).get(key, "")

    @property
    def level_index(self) -> dict[str, int]:
        return {r: i for i, r in enumerate(self.ladder)}


def profile_ids() -> list[str]:
    """All shipped profiles, ``standard`` first."""
    ids = sorted(p.stem for p in PROFILE_DIR.glob("*.toml") if p.stem != "standard")
    return ["standard", *ids]
