"""80-points / Tractor rules engine: pure functions over cards, a trump context and a profile.

Public API (other tools call it; keep it stable)::

    from engine.cards import parse_cards
    from engine.tractor import (Rules, Trump, legal_follow, trick_winner, check_throw,
                                bottom_multiplier, level_outcome)
    rules = Rules.load("ID", options)            # profile id or TOML path; options as the
                                                 # record's: {"cards.decks": 4} (hand derived)
    trump = Trump(level="2", suit="H")           # suit=None: no-trump
    legal_follow(lead, hand, play, trump, rules) # -> Verdict(ok, reason, rule)
    trick_winner(plays, trump, rules)            # plays[0] is the lead -> winner index
    check_throw(lead, other_hands, trump, rules) # -> ThrowCheck(ok, forced, ...)
    bottom_multiplier(winning_play, trump, rules)  # -> int (0: no capture, trump_only)
    level_outcome(attacker_points, rules, level)   # -> Outcome(side, levels, next_banker, ...)

What a referee needs besides: ``classify`` (a play -> ``Combo`` of ``Unit`` components:
kind, suit, throw parts), ``effective_suit`` (``T`` for trumps, else the suit letter),
``strength``, ``card_points``/``points``, ``bottom_score``, the declarations
(``read_declaration``, ``can_overcall``, ``judge_declarations``, ``fallback_trump``), the
profile's penalties (``rules.penalty("revoke")``) and the simulator (``engine.tractor.sim``:
``simulate_hand``, ``simulate_match``, ``match_events``). Card arguments accept notation
strings, lists of strings or ``Card`` objects; violation ids are ``wrong_count``,
``not_in_hand``, ``revoke``, ``missed_pair``, ``missed_tractor`` (four-deck triples/quads and
5-10-K included), ``illegal_declaration``, ``illegal_overcall``.

Profiles live in ``engine/tractor/profiles/<id>.toml`` (``tablescan profiles``); a bad one
is an ``engine.errors.ProfileError`` (re-exported here), the same class as Gouji's. To build
a referee for a record, ask the registry: ``engine.games.referee_for(match_start)``.
"""

from engine.tractor.combos import Combo, Unit, classify
from engine.tractor.declare import (
    Declaration,
    DeclarationRuling,
    can_overcall,
    fallback_trump,
    judge_declarations,
    read_declaration,
    trump_of,
)
from engine.tractor.follow import Verdict, judge_follow, legal_follow
from engine.tractor.order import TRUMP, Trump, effective_suit, is_trump, sort_key, strength
from engine.tractor.rules import Penalty, ProfileError, Rules, profile_ids
from engine.tractor.scoring import (
    Outcome,
    bottom_bonus,
    bottom_multiplier,
    bottom_score,
    card_points,
    level_outcome,
    points,
)
from engine.tractor.throws import ThrowCheck, check_throw
from engine.tractor.trick import trick_winner, winner_of

__all__ = [
    "TRUMP",
    "Combo",
    "Declaration",
    "DeclarationRuling",
    "Outcome",
    "Penalty",
    "ProfileError",
    "Rules",
    "ThrowCheck",
    "Trump",
    "Unit",
    "Verdict",
    "bottom_bonus",
    "bottom_multiplier",
    "bottom_score",
    "can_overcall",
    "card_points",
    "check_throw",
    "classify",
    "effective_suit",
    "fallback_trump",
    "is_trump",
    "judge_declarations",
    "judge_follow",
    "legal_follow",
    "level_outcome",
    "points",
    "profile_ids",
    "read_declaration",
    "sort_key",
    "strength",
    "trick_winner",
    "trump_of",
    "winner_of",
]
