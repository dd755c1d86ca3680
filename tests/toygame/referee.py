"""The toy game's referee, in the shared referee shape (``feed``/``state``/``report``, with
``next_hand`` and ``match_result`` for the node): a play of the wrong number of cards is a
violation the play itself proves; a trick is ruled when each seat has played to it."""

from __future__ import annotations

from typing import Any

from engine.cards import parse_cards
from engine.record import Event, Ruling
from tests.toygame.rules import Rules

ORDER = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "SJ", "BJ"]


def strength(card: str) -> int:
    c = parse_cards([card])[0]
    return ORDER.index(c.rank)


class Referee:
    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.seats: list[str] = []
        self.teams: list[list[int]] = []
        self.hands: list[dict[str, Any]] = []
        self.violations: list[Ruling] = []
        self.current: list[tuple[int, list[str]]] = []  # (seat, cards) of the trick
        self.left: list[int] = []
        self.live = False

    def feed(self, event: Event) -> list[Ruling]:
        kind = event["type"]
        if kind == "match_start":
            self.seats = list(event["seats"])
            self.teams = [list(t) for t in event["teams"]]
        elif kind == "hand_start":
            self.hands.append({"hand": event.get("hand", len(self.hands) + 1), "won": []})
            self.left = [self.rules.hand] * len(self.seats)
            self.current, self.live = [], True
        elif kind == "play" and self.live:
            return self._play(event)
        elif kind == "hand_end":
            self.live = False
        return []

    def _play(self, ev: Event) -> list[Ruling]:
        seat, cards, seq = int(ev["seat"]), list(ev.get("cards") or []), int(ev["seq"])
        out: list[Ruling] = []
        if len(cards) != self.rules.per_play:
            v: Ruling = {
                "kind": "violation",
                "rule": "wrong_count",
                "seat": seat,
                "at_seq": seq,
                "proven_by_seq": seq,
                "cards": cards,
                "evidence": [ev["evidence"]] if ev.get("evidence") else [],
                "detail": f"played {len(cards)} cards, the toy game plays {self.rules.per_play}",
                "penalty": "",
                "hand": self.hands[-1]["hand"],
            }
            self.violations.append(v)
            out.append(v)
        self.left[seat] -= len(cards)
        self.current.append((seat, cards))
        if len(self.current) == len(self.seats):
            best = max(self.current, key=lambda p: max(map(strength, p[1]), default=-1))
            hand = self.hands[-1]
            hand["won"].append(best[0])
            out.append(
                {
                    "kind": "trick",
                    "hand": hand["hand"],
                    "trick": len(hand["won"]),
                    "winner": best[0],
                }
            )
            self.current = []
        if all(n <= 0 for n in self.left) and not self.current:
            self.live = False
        return out

    def state(self) -> dict[str, Any]:
        leader = self.hands[-1]["won"][-1] if self.hands and self.hands[-1]["won"] else 0
        plays = [{"seat": s, "cards": c} for s, c in self.current]
        nxt = (self.current[-1][0] + 1) % len(self.seats) if self.current else leader
        return {
            "game": "toy",
            "hand": {"live": self.live, "next_seat": nxt, "current_trick": {"plays": plays}}
            if self.hands
            else None,
        }

    def report(self) -> dict[str, Any]:
        return {
            "game": "toy",
            "profile": self.rules.id,
            "seats": self.seats,
            "teams": self.teams,
            "hands": self.hands,
            "violations": self.violations,
            "errors": [],
        }

    def next_hand(self) -> dict[str, Any] | None:
        return None  # one deal is the match

    def match_result(self) -> dict[str, Any]:
        won = [0] * len(self.teams)
        for h in self.hands:
            for seat in h["won"]:
                won[next(i for i, t in enumerate(self.teams) if seat in t)] += 1
        best = max(won, default=0)
        winner = won.index(best) if won.count(best) == 1 else None
        return {"hands": len(self.hands), "levels": ["2"] * len(self.teams), "winner": winner}
