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
from engine.match_clock import ClockRule
from engine.tractor.profile_loader import read_profile
from engine.tractor.rule_parts import (
    PROFILE_DIR,
    SIDES,
    Band,
    BottomRules,
    DeclareRules,
    FollowRules,
    Knockback,
    Penalty,
    ThrowRules,
    TractorRules,
    profile_ids,
)

__all__ = [
    "PROFILE_DIR",
    "SIDES",
    "Band",
    "BottomRules",
    "DeclareRules",
    "FollowRules",
    "Knockback",
    "Penalty",
    "ProfileError",
    "Rules",
    "ThrowRules",
    "TractorRules",
    "profile_ids",
]  # ProfileError: re-exported, engine.errors


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
    clock: ClockRule  # [match]: the sheet's limit and at-time rule (minutes 0: none stated)
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
        return cls(**read_profile(profile, options))

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
