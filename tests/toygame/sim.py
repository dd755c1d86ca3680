"""The toy game's record simulator (``Game.simulate``): a seeded deal played by random
legal players, the winner of each trick leading the next; ``inject`` makes one seat lay two
cards at once in its last trick (it was dealt one more for it), a violation the play proves."""

from __future__ import annotations

import random
from typing import Any

from engine.cards import deck
from engine.record import Event
from tests.toygame.referee import strength
from tests.toygame.rules import Rules

SEATS = ["North", "West", "South", "East"]


def simulate_record(
    profile: str, seed: int, *, hands: int = 1, inject: int = 0, kinds: list[str] | None = None
) -> tuple[list[Event], dict[str, Any]]:
    del hands, kinds  # one deal; one kind
    rules = Rules.load(profile)
    rng = random.Random(seed)
    cards = [str(c) for c in deck(1)]
    rng.shuffle(cards)
    cheat = rng.randrange(4) if inject else None
    held = [[cards.pop() for _ in range(rules.hand + (s == cheat))] for s in range(4)]
    dealt = [list(h) for h in held]
    events: list[dict[str, Any]] = [
        {
            "type": "match_start",
            "game": "toy",
            "profile": rules.id,
            "seats": SEATS,
            "teams": [[0, 2], [1, 3]],
            "levels": ["2", "2"],
        },
        {"type": "hand_start", "hand": 1, "banker": None, "level": "2"},
    ]
    injected: list[dict[str, Any]] = []
    leader = 0
    for trick in range(rules.hand):
        plays: list[tuple[int, list[str]]] = []
        for k in range(4):
            seat = (leader + k) % 4
            n = 2 if seat == cheat and trick == rules.hand - 1 else 1
            laid = [held[seat].pop(rng.randrange(len(held[seat]))) for _ in range(n)]
            if n == 2:
                injected.append({"rule": "wrong_count", "seat": seat, "seq": len(events)})
            events.append({"type": "play", "seat": seat, "cards": laid})
            plays.append((seat, laid))
        leader = max(plays, key=lambda p: max(map(strength, p[1])))[0]
    for seq, ev in enumerate(events):
        ev.update({"v": 1, "seq": seq, "t": float(seq)})
    return events, {"dealt": dealt, "injected": injected}  # type: ignore[return-value]
