"""Gouji (够级): rule profiles, plays and comparison, turn flow, referee, scoring, simulator.

The stable public API: ``Rules.load(ID, options)`` (options ``{"section.key": value}``, as
80-points takes them), ``beats(prev, play, rules)``,
``is_gouji(play, rules)`` and ``valid_set(play, rules)``; cards in the shared notation.

Modules, one job each:

- ``rules``: the profiles in ``profiles/<id>.toml`` (13 sheets of GOUJI.md §2 over
  ``gouji-core``, every override cited to its sheet line), loaded and checked.
- ``plays``: what one set is, what beats what, 够级 thresholds, which sets open the point.
- ``table``: one deal's state machine: card counts, rounds, passes, 让牌, burns, 无头,
  四户乱缠, 开点, 憋3, 革命, places; what a seat may do now and which rule a play breaks.
- ``scoring``: each sheet's score for a deal, every point with the item that earned it.
- ``referee``: ``GoujiReferee``, the shared referee interface over the match record.
- ``sim``: random legal six-player deals with injected violations and their ground truth.
"""

from engine.gouji.plays import beats, is_gouji, valid_set
from engine.gouji.rules import ProfileError, Rules

__all__ = ["ProfileError", "Rules", "beats", "is_gouji", "valid_set"]
