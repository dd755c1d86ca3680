"""``tablescan demo``: the main job on its embedded default (no camera, no broker)."""

from __future__ import annotations

import argparse
import random

from engine.cards import deck, format_cards


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("demo", help="run the product on its embedded default")
    p.add_argument("--seed", type=int, default=1)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    # Placeholder until the simulator lands: deal two decks to four seats.
    cards = deck(2)
    random.Random(args.seed).shuffle(cards)
    for seat in range(4):
        print(f"seat {seat}: {format_cards(cards[seat * 25 : seat * 25 + 25])}")
    print(f"bottom: {format_cards(cards[100:])}")
    return 0
