"""The toy game's one profile: four seats, three cards each, one card a play; the highest
rank takes the trick (suits do not count; jokers highest) and leads the next."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from engine.errors import ProfileError


@dataclass(frozen=True)
class Rules:
    id: str = "toy-high"
    title: str = "High card, three cards each"
    hand: int = 3  #: cards each seat is dealt
    per_play: int = 1  #: cards a play must have

    @staticmethod
    def ids() -> list[str]:
        return ["toy-high"]

    @classmethod
    def load(cls, profile: str | Path, options: Mapping[str, Any] | None = None) -> Rules:
        if str(profile) not in cls.ids():
            raise ProfileError(f"unknown toy profile {str(profile)!r}")
        rules = cls()
        for key, value in (options or {}).items():
            name = key.removeprefix("deal.")
            if name != "hand" or not isinstance(value, int):
                raise ProfileError(f"options: key {key!r} (the toy game takes deal.hand)")
            rules = replace(rules, hand=value)
        return rules
