"""A toy third game, 比大小 (high card), in its own folder and nowhere else: the house test
(``tests/test_third_game.py``) registers it and runs it through ``tablescan judge``, a table
node reading a rendered video with the labels detector, and the dashboard's table page.

``GAME`` is the one registry entry a new game adds (``engine.games.GAMES``); its rules, its
referee and its record simulator are the modules beside this one."""

from __future__ import annotations

from engine.games import Game

GAME = Game(
    "toy",
    "High card (比大小)",
    "tests.toygame.rules",
    "Rules",
    "tests.toygame.referee",
    "Referee",
    "toy",  # the view key: no panel of its own, the table page's shared view shows it
    deal_end="referee",  # the referee says when every card of the deal is played
    new_deal="seat_areas",
    default_profile="toy-high",
    decks=1,
    levels=False,
    fixed_turn=False,
    simulator="tests.toygame.sim:simulate_record",
)
