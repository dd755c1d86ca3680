"""A hand's record events turned into motion: every frame's scene, planned before drawing.

Hands reach in from the seats' edges, cards land one at a time fanned and overlapping,
declarations are shown and taken back, the trick's winner sweeps it away, the bottom is buried
face down and turned up at the end. Each truth event is stamped with the frame its cards have
settled on (the first still frame after the last card lands and the hand leaves).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vision.calibration import Layout, default_layout, seat_angle

BACK = "back"
TABLE = 1000.0  # table plane units
CARD_H = 170.0
CARD_W = CARD_H * 0.714


@dataclass
class Obj:
    """A card lying on (or carried over) the table, in table units."""

    card: str  # shared notation, or "back"
    x: float
    y: float
    angle: float  # degrees
    face_up: bool = True


@dataclass
class Hand:
    """A player's hand and sleeve reaching in from the seat's edge."""

    seat: int
    x: float
    y: float


@dataclass
class Scene:
    objs: dict[int, Obj] = field(default_factory=dict)
    hand: Hand | None = None
    next_id: int = 0

    def add(self, obj: Obj) -> int:
        self.next_id += 1
        self.objs[self.next_id] = obj
        return self.next_id


@dataclass
class Step:
    """One frame's scene, plus truth bookkeeping."""

    scene_objs: list[Obj]
    hand: Hand | None


@dataclass
class Timeline:
    """Frames as scene snapshots, and the truth events with their settle frames."""

    frames: list[Step] = field(default_factory=list)
    truth: list[tuple[int, dict[str, Any]]] = field(default_factory=list)


class Director:
    """Turns record events into motion: hands reaching in, cards landing, tricks swept."""

    def __init__(self, n_seats: int, layout: Layout, rng: random.Random) -> None:
        self.n = n_seats
        self.layout = layout
        self.rng = rng
        self.scene = Scene()
        self.tl = Timeline()
        self.in_area: dict[int, list[int]] = {s: [] for s in range(n_seats)}
        self.bottom: list[int] = []

    # frame emission
    def snap(self, count: int = 1) -> None:
        objs = [Obj(o.card, o.x, o.y, o.angle, o.face_up) for o in self.scene.objs.values()]
        hand = None if self.scene.hand is None else Hand(**vars(self.scene.hand))
        for _ in range(count):
            self.tl.frames.append(Step(objs, hand))

    def idle(self, lo: int, hi: int) -> None:
        self.snap(self.rng.randint(lo, hi))

    def edge(self, seat: int) -> tuple[float, float]:
        a = seat_angle(seat, self.n)
        return TABLE / 2 + 560 * math.cos(a), TABLE / 2 + 560 * math.sin(a)

    def move_hand(
        self, seat: int, to: tuple[float, float], frames: int, carry: Sequence[int] = ()
    ) -> None:
        h = self.scene.hand
        start = (h.x, h.y) if h is not None and h.seat == seat else self.edge(seat)
        for i in range(1, frames + 1):
            f = i / frames
            f = f * f * (3 - 2 * f)
            x = start[0] + (to[0] - start[0]) * f
            y = start[1] + (to[1] - start[1]) * f
            self.scene.hand = Hand(seat, x, y)
            for k, oid in enumerate(carry):
                o = self.scene.objs[oid]
                o.x, o.y = x + k * 4, y + 20 + k * 3
            self.snap()

    def hand_out(self, seat: int, frames: int) -> None:
        self.move_hand(seat, self.edge(seat), frames)
        self.scene.hand = None

    def slots(self, seat: int | None, k: int, step: float) -> list[tuple[float, float, float]]:
        """Fan positions for k cards in a seat's area (or the centre), with angles."""
        if seat is None:
            cx, cy, a = TABLE / 2, TABLE / 2, math.pi / 2
        else:
            area = self.layout.seat_areas[seat]
            pts = np.array(area.polygon)
            cx, cy = float(pts[:, 0].mean()), float(pts[:, 1].mean())
            a = seat_angle(seat, self.n)
        ux, uy = math.cos(a + math.pi / 2), math.sin(a + math.pi / 2)
        base = math.degrees(a - math.pi / 2)
        jx, jy = self.rng.uniform(-12, 12), self.rng.uniform(-10, 10)
        tilt = self.rng.uniform(-6, 6)
        out = []
        for i in range(k):
            off = (i - (k - 1) / 2) * step
            out.append(
                (
                    cx + jx + ux * off + self.rng.uniform(-2, 2),
                    cy + jy + uy * off + self.rng.uniform(-2, 2),
                    base + tilt + self.rng.uniform(-2.5, 2.5),
                )
            )
        return out

    def lay(self, seat: int, cards: list[str], into: int | None, face_up: bool = True) -> list[int]:
        """The seat's hand brings ``cards`` and lays them one by one (fanned, overlapping)."""
        step = CARD_W * (0.3 if into is None else self.rng.uniform(0.28, 0.34))
        slots = self.slots(into, len(cards), step)
        first = slots[0]
        ids = [self.scene.add(Obj(c, *self.edge(seat), first[2], face_up)) for c in cards]
        self.move_hand(seat, (first[0], first[1]), self.rng.randint(4, 6), carry=ids)
        for k, (oid, (x, y, ang)) in enumerate(zip(ids, slots, strict=True)):
            o = self.scene.objs[oid]
            o.x, o.y, o.angle = x, y, ang
            rest = ids[k + 1 :]
            nxt = slots[min(k + 1, len(slots) - 1)]
            self.move_hand(seat, (nxt[0] + 25, nxt[1] + 25), self.rng.randint(2, 3), carry=rest)
        self.hand_out(seat, self.rng.randint(4, 6))
        return ids

    def take_back(self, seat: int, ids: list[int]) -> None:
        """A declaration shown and taken back into the hand."""
        o = self.scene.objs[ids[0]]
        self.move_hand(seat, (o.x, o.y), self.rng.randint(4, 6))
        self.move_hand(seat, self.edge(seat), self.rng.randint(4, 6), carry=ids)
        for oid in ids:
            del self.scene.objs[oid]
        self.scene.hand = None

    def sweep(self, winner: int) -> None:
        """The winner gathers every seat's cards and pulls them to their edge."""
        all_ids = [oid for s in range(self.n) for oid in self.in_area[s]]
        if not all_ids:
            return
        c = (TABLE / 2, TABLE / 2)
        self.move_hand(winner, c, self.rng.randint(4, 6))
        frames = self.rng.randint(3, 5)
        starts = {oid: (self.scene.objs[oid].x, self.scene.objs[oid].y) for oid in all_ids}
        for i in range(1, frames + 1):
            f = i / frames
            for oid in all_ids:
                o = self.scene.objs[oid]
                sx, sy = starts[oid]
                o.x, o.y = sx + (c[0] - sx) * f, sy + (c[1] - sy) * f
            self.scene.hand = Hand(winner, c[0] + 20, c[1] + 20)
            self.snap()
        for oid in all_ids:
            self.scene.objs[oid].face_up = False
        self.move_hand(winner, self.edge(winner), self.rng.randint(4, 6), carry=all_ids)
        for oid in all_ids:
            del self.scene.objs[oid]
        self.scene.hand = None
        for s in range(self.n):
            self.in_area[s] = []

    def gather(self, seat: int) -> None:
        """Between deals: the dealer gathers what lies on the table (the bottom turned up)
        and takes it to their edge, leaving the cloth empty for the next deal."""
        ids = list(self.scene.objs)
        if ids:
            o = self.scene.objs[ids[0]]
            self.move_hand(seat, (o.x, o.y), self.rng.randint(4, 6))
            for oid in ids:
                self.scene.objs[oid].face_up = False
            self.move_hand(seat, self.edge(seat), self.rng.randint(5, 7), carry=ids)
            for oid in ids:
                del self.scene.objs[oid]
            self.scene.hand = None
        self.bottom = []
        self.in_area = {s: [] for s in range(self.n)}

    def settle(self, event: dict[str, Any]) -> None:
        """The event's cards are down and the hand is gone: this frame is its truth time."""
        self.tl.truth.append((len(self.tl.frames), event))


def play_order_winners(events: list[dict[str, Any]], n: int) -> dict[int, int]:
    """Index of each trick's last play → the next trick's leader (the leader of the last trick
    for the last one): the sweep direction when no referee said who took each trick."""
    out: dict[int, int] = {}
    plays = [i for i, e in enumerate(events) if e["type"] == "play"]
    for t in range(0, len(plays) - n + 1, n):
        last = plays[t + n - 1]
        nxt = plays[t + n] if t + n < len(plays) else None
        out[last] = events[nxt]["seat"] if nxt is not None else events[plays[t]]["seat"]
    return out


def direct(
    events: list[dict[str, Any]],
    seed: int,
    layout: Layout | None = None,
    winners: dict[int, int] | None = None,
) -> Timeline:
    """Plan every frame of the hand(s) in ``events`` (record events, as the simulator gives).
    ``winners``: index of each trick's last play → the seat that takes it (the referee's
    judgement, given by the spine); none given: taken from the play order."""
    start = next((e for e in events if e["type"] == "match_start"), None)
    n = len(start["seats"]) if start else 4
    layout = layout or default_layout(n, TABLE, CARD_H)
    rng = random.Random(seed)
    d = Director(n, layout, rng)
    winners = winners or play_order_winners(events, n)
    played_in_trick = 0
    dealt = False  # a deal was played: the next hand_start gathers the cards first
    d.idle(6, 8)
    for idx, ev in enumerate(events):
        kind = ev["type"]
        if kind == "hand_start" and dealt:
            d.idle(6, 10)
            banker = ev.get("banker")
            d.gather(banker if isinstance(banker, int) else 0)
            d.idle(6, 8)
            d.settle(ev)
            d.idle(4, 6)
        elif kind == "hand_end":
            dealt = True
            d.settle(ev)
        elif kind == "declare":
            ids = d.lay(ev["seat"], list(ev["cards"]), ev["seat"])
            d.settle(ev)
            d.idle(6, 9)
            d.take_back(ev["seat"], ids)
            d.idle(3, 5)
        elif kind == "bury":
            d.bottom = d.lay(ev["seat"], [BACK] * int(ev["count"]), None, face_up=False)
            d.settle(ev)
            d.idle(4, 8)
        elif kind == "play":
            ids = d.lay(ev["seat"], list(ev["cards"]), ev["seat"])
            d.in_area[ev["seat"]] += ids
            d.settle(ev)
            played_in_trick += 1
            d.idle(1, 4)
            if idx in winners:
                d.idle(3, 6)
                d.sweep(winners[idx])
                d.idle(3, 5)
                played_in_trick = 0
        elif kind == "bottom_reveal":
            cards = list(ev["cards"])
            if not d.bottom:
                d.bottom = d.lay(0, [BACK] * len(cards), None, face_up=False)
            first = d.scene.objs[d.bottom[0]]
            seat = 0
            d.move_hand(seat, (first.x, first.y), rng.randint(4, 6))
            for oid, card in zip(d.bottom, cards, strict=False):
                o = d.scene.objs[oid]
                o.card, o.face_up = card, True
                d.move_hand(seat, (o.x + 30, o.y + 20), 2)
            d.hand_out(seat, rng.randint(4, 6))
            d.settle(ev)
            d.idle(8, 12)
        else:
            d.settle(ev)
    d.idle(6, 8)
    return d.tl
