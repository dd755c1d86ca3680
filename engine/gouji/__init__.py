"""Gouji (够级): rule profiles, plays and comparison, turn flow, referee, scoring, simulator.

The stable public API: ``Rules.load(ID)``, ``beats(prev, play, rules)``,
``is_gouji(play, rules)`` and ``valid_set(play, rules)``; cards in the shared notation.
"""

from engine.gouji.plays import beats, is_gouji, valid_set
from engine.gouji.rules import ProfileError, Rules

__all__ = ["ProfileError", "Rules", "beats", "is_gouji", "valid_set"]
