"""Rendered match videos: a simulated hand drawn as an overhead camera would film it.

This is the pipeline's ground truth. The true record is known (it is the simulator's), so a
replay of the video can be scored event by event. The render is deliberately unkind in the
ways a real table is: cards arrive one at a time under a moving hand, pairs and fans overlap,
the winner sweeps the trick away, the bottom is buried face down and turned up at the end, the
light drifts, the sensor is noisy and the camera is not square to the table.

Outputs beside ``match.mp4``: ``match.labels.jsonl`` (every card's quad per scene change),
``match.truth.jsonl`` (the record, each event's ``t`` the moment
its cards have settled: the first still frame after the last card lands and the hand leaves)
and ``match.table.toml`` (calibration by the ArUco markers drawn at the table corners, seat
areas, hand masks) which ``tablescan replay`` takes.
"""

from __future__ import annotations

import json
import logging
import math
import random
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.calibration import Layout, default_layout, draw_marker, seat_angle

log = logging.getLogger(__name__)

Image = NDArray[Any]
BACK = "back"

TABLE = 1000.0  # table plane units
CARD_H = 170.0
CARD_W = CARD_H * 0.714
MARGIN = 95.0  # canvas border around the table plane (markers, players' edges)
PX = 0.8  # canvas pixels per table unit
MARKER_SIZE = 70.0
IMAGE_SIZE = (1280, 720)
FPS = 20.0


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


class CardArt:
    """Card sprites of one deck design at canvas scale, rotated sprites cached by angle."""

    def __init__(self, faces: dict[str, Image], design: str) -> None:
        self.faces = faces
        self.design = design
        self._rot: dict[tuple[str, int], tuple[Image, NDArray[Any]]] = {}

    def sprite(self, card: str, angle: float) -> tuple[Image, NDArray[Any]]:
        key = (card, round(angle) % 360)
        hit = self._rot.get(key)
        if hit is not None:
            return hit
        img = self.faces[card]
        h, w = img.shape[:2]
        diag = math.ceil(math.hypot(w, h)) + 2
        m = cv2.getRotationMatrix2D((w / 2, h / 2), -float(key[1]), 1.0)
        m[0, 2] += diag / 2 - w / 2
        m[1, 2] += diag / 2 - h / 2
        rot = cv2.warpAffine(img, m, (diag, diag), flags=cv2.INTER_LINEAR, borderValue=(0, 0, 0, 0))
        alpha = (rot[..., 3:4].astype(np.float32)) / 255.0
        out = (rot[..., :3].copy(), alpha)
        self._rot[key] = out
        return out


def load_art(split: str, rng: random.Random, height_px: int, design: str | None = None) -> CardArt:
    """One real deck design of ``split`` ("train" or "eval") whose every card renders cleanly.

    Falls back to plain drawn faces only when no deck package is installed (logged): the
    renders are then not a recognizer test, only a pipeline one.
    """
    try:
        from vision.synth import decks
    except ImportError:  # pragma: no cover - the recognizer package is part of the repo
        decks = None  # type: ignore[assignment]
    if decks is not None:
        candidates = decks.list_decks(split)
        rng.shuffle(candidates)
        if design is not None:
            candidates = [d for d in candidates if d.name == design]
            if not candidates:
                raise ValueError(f"design {design!r}: no such {split} deck design")
        for deck in candidates:
            faces: dict[str, Image] = {}
            try:
                for card in (*decks.CARD_NAMES, decks.BACK):
                    faces[card] = _opaque_corners(decks.render_card(deck, card, height_px))
            except decks.DeckError as e:
                log.info("deck %s skipped: %s", deck.name, e)
                continue
            return CardArt(faces, deck.name)
    log.warning("no %s deck design renders cleanly; drawing plain card faces", split)
    return CardArt(_plain_faces(height_px), "plain")


def _opaque_corners(img: Image) -> Image:
    """Keep the design's own rounded corners (alpha), ensure 4 channels."""
    if img.shape[2] == 3:
        img = cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)
    return img


def _plain_faces(height_px: int) -> dict[str, Image]:
    from engine.cards import RANKS, SUITS

    w = int(height_px * 0.714)
    out: dict[str, Image] = {}
    names = [r + s for s in SUITS for r in RANKS] + ["BJ", "SJ"]
    for name in [*names, BACK]:
        img = np.zeros((height_px, w, 4), np.uint8)
        cv2.rectangle(img, (0, 0), (w - 1, height_px - 1), (250, 250, 250, 255), -1)
        if name == BACK:
            cv2.rectangle(img, (4, 4), (w - 5, height_px - 5), (120, 40, 30, 255), -1)
        else:
            red = name[-1] in "HD" or name == "BJ"
            colour = (30, 30, 200, 255) if red else (20, 20, 20, 255)
            cv2.putText(img, name, (3, 18), cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1, cv2.LINE_AA)
        cv2.rectangle(img, (0, 0), (w - 1, height_px - 1), (90, 90, 90, 255), 1)
        out[name] = img
    return out


# --- drawing ------------------------------------------------------------------------------


def to_canvas(x: float, y: float) -> tuple[float, float]:
    return ((x + MARGIN) * PX, (y + MARGIN) * PX)


def canvas_size() -> int:
    return round((TABLE + 2 * MARGIN) * PX)


def _blend(canvas: Image, sprite: Image, alpha: NDArray[Any], cx: float, cy: float) -> None:
    h, w = sprite.shape[:2]
    x0, y0 = round(cx - w / 2), round(cy - h / 2)
    H, W = canvas.shape[:2]
    sx0, sy0 = max(0, -x0), max(0, -y0)
    sx1, sy1 = min(w, W - x0), min(h, H - y0)
    if sx1 <= sx0 or sy1 <= sy0:
        return
    roi = canvas[y0 + sy0 : y0 + sy1, x0 + sx0 : x0 + sx1]
    a = alpha[sy0:sy1, sx0:sx1]
    s = sprite[sy0:sy1, sx0:sx1]
    roi[:] = (s * a + roi * (1.0 - a)).astype(np.uint8)


def _cloth(rng: random.Random, size: int) -> Image:
    """Felt or wood, with a little texture, plus the four corner markers."""
    kind = rng.choice(["felt-green", "felt-blue", "wood", "felt-red"])
    base = {
        "felt-green": (60, 110, 40),
        "felt-blue": (120, 80, 40),
        "wood": (50, 95, 150),
        "felt-red": (50, 45, 120),
    }[kind]
    nrng = np.random.default_rng(rng.randrange(1 << 30))
    img = np.empty((size, size, 3), np.float32)
    img[:] = base
    tex: NDArray[Any] = nrng.normal(0, 6, (size // 4, size // 4)).astype(np.float32)
    tex = cv2.resize(tex, (size, size), interpolation=cv2.INTER_CUBIC)
    if kind == "wood":
        grain = np.sin(np.linspace(0, 60, size, dtype=np.float32))[None, :] * 10
        tex = (
            tex + grain + cv2.resize(nrng.normal(0, 8, (4, size)).astype(np.float32), (size, size))
        )
    img += tex[..., None]
    out = np.clip(img, 0, 255).astype(np.uint8)
    # ArUco markers, centred on the table corners, on a white quiet zone
    mpx = round(MARKER_SIZE * PX)
    quiet = round(mpx * 0.25)
    for mid, (tx, ty) in enumerate([(0, 0), (TABLE, 0), (TABLE, TABLE), (0, TABLE)]):
        cx, cy = to_canvas(tx, ty)
        x0, y0 = round(cx - mpx / 2), round(cy - mpx / 2)
        cv2.rectangle(
            out, (x0 - quiet, y0 - quiet), (x0 + mpx + quiet, y0 + mpx + quiet), (235, 235, 235), -1
        )
        marker = draw_marker("DICT_4X4_50", mid, mpx)
        out[y0 : y0 + mpx, x0 : x0 + mpx] = marker[..., None]
    return out


SKIN = [(120, 150, 200), (95, 125, 175), (70, 95, 140), (140, 170, 215)]
SLEEVE = [(60, 60, 60), (140, 60, 30), (40, 40, 120), (150, 150, 150), (30, 90, 30)]


def _draw_hand(
    canvas: Image, hand: Hand, n_seats: int, skin: tuple[int, ...], sleeve: tuple[int, ...]
) -> None:
    a = seat_angle(hand.seat, n_seats)
    ex, ey = TABLE / 2 + 700 * math.cos(a), TABLE / 2 + 700 * math.sin(a)
    hx, hy = to_canvas(hand.x, hand.y)
    sx, sy = to_canvas(ex, ey)
    # the hand reaches from the seat's edge: a sleeve, a shadow, a palm with fingers
    shadow = canvas.copy()
    cv2.line(
        shadow, (int(sx + 12), int(sy + 12)), (int(hx + 12), int(hy + 12)), (0, 0, 0), int(70 * PX)
    )
    cv2.addWeighted(shadow, 0.25, canvas, 0.75, 0, dst=canvas)
    dx, dy = hx - sx, hy - sy
    norm = math.hypot(dx, dy) or 1.0
    wx, wy = hx - dx / norm * 55 * PX, hy - dy / norm * 55 * PX
    cv2.line(canvas, (int(sx), int(sy)), (int(wx), int(wy)), sleeve, int(72 * PX))
    ang = math.degrees(math.atan2(dy, dx))
    cv2.ellipse(canvas, (int(hx), int(hy)), (int(48 * PX), int(38 * PX)), ang, 0, 360, skin, -1)
    for k in (-1.5, -0.5, 0.5, 1.5):
        fa = math.radians(ang + k * 14)
        fx, fy = hx + math.cos(fa) * 62 * PX, hy + math.sin(fa) * 62 * PX
        cv2.line(canvas, (int(hx), int(hy)), (int(fx), int(fy)), skin, int(14 * PX))


# --- the timeline ---------------------------------------------------------------------------


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

    def settle(self, event: dict[str, Any]) -> None:
        """The event's cards are down and the hand is gone: this frame is its truth time."""
        self.tl.truth.append((len(self.tl.frames), event))


def _trick_winners(events: list[dict[str, Any]], n: int) -> dict[int, int]:
    """Index of each trick's last play → the seat that takes the trick (the sweep direction).

    The engine's referee decides, as it would at the table; if it cannot judge these events
    the next trick's leader is taken (the leader of the last trick for the last one).
    """
    out: dict[int, int] = {}
    try:
        from tablescan.node import make_referee

        start = next(e for e in events if e["type"] == "match_start")
        ref = make_referee(start)
        for idx, e in enumerate(events):
            for r in ref.feed(e):
                if r.get("kind") == "trick" and isinstance(r.get("winner"), int):
                    out[idx] = r["winner"]
    except Exception as e:  # a render must not fail on a judging problem
        log.info("trick winners from the play order (%s)", e)
        out = {}
    if out:
        return out
    plays = [i for i, e in enumerate(events) if e["type"] == "play"]
    for t in range(0, len(plays) - n + 1, n):
        last = plays[t + n - 1]
        nxt = plays[t + n] if t + n < len(plays) else None
        out[last] = events[nxt]["seat"] if nxt is not None else events[plays[t]]["seat"]
    return out


def direct(events: list[dict[str, Any]], seed: int, layout: Layout | None = None) -> Timeline:
    """Plan every frame of the hand(s) in ``events`` (record events, as the simulator gives)."""
    start = next((e for e in events if e["type"] == "match_start"), None)
    n = len(start["seats"]) if start else 4
    layout = layout or default_layout(n, TABLE, CARD_H)
    rng = random.Random(seed)
    d = Director(n, layout, rng)
    winners = _trick_winners(events, n)
    played_in_trick = 0
    d.idle(6, 8)
    for idx, ev in enumerate(events):
        kind = ev["type"]
        if kind == "declare":
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


# --- the camera ------------------------------------------------------------------------------


@dataclass
class Camera:
    """Canvas → image homography, lighting drift and sensor noise for one render."""

    homography: NDArray[Any]
    image_size: tuple[int, int]
    rng: np.random.Generator
    noise: list[tuple[Image, Image]]
    light_phase: float
    floor: tuple[int, int, int]

    @classmethod
    def random(cls, seed: int, image_size: tuple[int, int] = IMAGE_SIZE) -> Camera:
        rng = np.random.default_rng(seed)
        w, h = image_size
        size = canvas_size()
        side = h * 0.98
        cx, cy = w / 2 + rng.uniform(-40, 40), h / 2
        half = side / 2
        dst = np.array(
            [
                (cx - half, cy - half),
                (cx + half, cy - half),
                (cx + half, cy + half),
                (cx - half, cy + half),
            ],
            np.float64,
        )
        # a camera a little off-centre and tilted: the far edge shrinks, corners wander
        shrink = rng.uniform(0.0, 0.08) * side
        dst[0, 0] += shrink
        dst[1, 0] -= shrink
        dst += rng.uniform(-12, 12, dst.shape)
        src = np.array([(0, 0), (size, 0), (size, size), (0, size)], np.float64)
        hmat = cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32))
        noise = []
        for _ in range(6):
            n = rng.normal(0, 3.5, (h, w, 3))
            noise.append(
                (np.clip(n, 0, 255).astype(np.uint8), np.clip(-n, 0, 255).astype(np.uint8))
            )
        f = [int(v) for v in rng.integers(20, 60, 3)]
        floor = (f[0], f[1], f[2])
        return cls(
            hmat.astype(np.float64), image_size, rng, noise, float(rng.uniform(0, 6.28)), floor
        )

    def table_corners_image(self) -> list[tuple[float, float]]:
        """Where the table corners (TL, TR, BR, BL) land in the image: the manual calibration."""
        pts = np.array(
            [to_canvas(x, y) for x, y in [(0, 0), (TABLE, 0), (TABLE, TABLE), (0, TABLE)]]
        )
        img = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), self.homography).reshape(-1, 2)
        return [(round(float(x), 2), round(float(y), 2)) for x, y in img]

    def shoot(self, canvas: Image, index: int, fps: float) -> Image:
        w, h = self.image_size
        frame = cv2.warpPerspective(
            canvas, self.homography, (w, h), flags=cv2.INTER_AREA, borderValue=self.floor
        )
        t = index / fps
        # lighting: a slow gradient sweeping across the table and a slow overall drift
        gx = np.linspace(-1, 1, 16, dtype=np.float32)[None, :]
        gy = np.linspace(-1, 1, 9, dtype=np.float32)[:, None]
        ph = self.light_phase + t * 0.15
        gain = 1.0 + 0.10 * (math.cos(ph) * gx + math.sin(ph) * gy) + 0.05 * math.sin(t * 0.23)
        gain_img = cv2.resize(gain, (w, h), interpolation=cv2.INTER_LINEAR)
        frame = cv2.multiply(frame, cv2.merge([gain_img] * 3), dtype=cv2.CV_8U)
        pos, neg = self.noise[index % len(self.noise)]
        frame = cv2.subtract(cv2.add(frame, pos), neg)
        return frame


def card_quad(o: Obj, camera: Camera) -> list[list[float]]:
    """The card's corners in image pixels (for the rendered-truth labels)."""
    a = math.radians(o.angle)
    c, s = math.cos(a), math.sin(a)
    hw, hh = CARD_W / 2, CARD_H / 2
    pts = [(-hw, -hh), (hw, -hh), (hw, hh), (-hw, hh)]
    canvas = np.array([to_canvas(o.x + x * c - y * s, o.y + x * s + y * c) for x, y in pts])
    img = cv2.perspectiveTransform(canvas.reshape(-1, 1, 2), camera.homography).reshape(-1, 2)
    return [[round(float(x), 1), round(float(y), 1)] for x, y in img]


def frame_labels(tl: Timeline, camera: Camera) -> Iterator[dict[str, Any]]:
    """One label line per scene change: the cards lying on the table from that frame on."""
    last: Any = None
    for i, step in enumerate(tl.frames):
        if id(step.scene_objs) == last:
            continue
        last = id(step.scene_objs)
        cards = [
            {"card": o.card if o.face_up else BACK, "quad": card_quad(o, camera)}
            for o in step.scene_objs
        ]
        yield {"frame": i, "hand": step.hand is not None, "cards": cards}


@dataclass(frozen=True)
class LabelDetection:
    card: str
    score: float
    quad: list[list[float]]


class LabelDetector:
    """Reads the renderer's own labels instead of pixels: the pipeline measured apart from
    the recognizer (``replay --detector labels``). Not a recognizer; a ruler for the rest."""

    def __init__(self, labels_path: Path) -> None:
        self.scenes = [
            json.loads(line)
            for line in labels_path.read_text(encoding="utf-8").splitlines()
            if line
        ]
        self.starts = [sc["frame"] for sc in self.scenes]
        self.frame = 0

    @classmethod
    def beside(cls, video: Path) -> LabelDetector:
        """The labels that ``render-match`` wrote beside ``video`` (``match.labels.jsonl``)."""
        return cls(video.with_name(video.stem + ".labels.jsonl"))

    def seek(self, frame_index: int) -> None:
        self.frame = frame_index

    def detect(self, image: Image) -> list[LabelDetection]:
        import bisect

        k = bisect.bisect_right(self.starts, self.frame) - 1
        if k < 0:
            return []
        return [LabelDetection(c["card"], 1.0, c["quad"]) for c in self.scenes[k]["cards"]]


def render_frames(
    tl: Timeline, art: CardArt, seed: int, n_seats: int, camera: Camera, fps: float = FPS
) -> Iterator[Image]:
    rng = random.Random(seed + 1)
    size = canvas_size()
    cloth = _cloth(rng, size)
    skin = rng.choice(SKIN)
    sleeves = {s: rng.choice(SLEEVE) for s in range(n_seats)}
    last_key: Any = None
    canvas = cloth
    for i, step in enumerate(tl.frames):
        key = (id(step.scene_objs), None if step.hand is None else vars(step.hand).copy())
        if key != last_key:
            canvas = cloth.copy()
            for o in step.scene_objs:
                name = o.card if o.face_up else BACK
                sprite, alpha = art.sprite(name, o.angle)
                _blend(canvas, sprite, alpha, *to_canvas(o.x, o.y))
            if step.hand is not None:
                _draw_hand(canvas, step.hand, n_seats, skin, sleeves[step.hand.seat])
            last_key = key
        yield camera.shoot(canvas, i, fps)


# --- files -----------------------------------------------------------------------------------


@dataclass
class RenderResult:
    video: Path
    truth: Path
    table: Path
    frames: int
    fps: float
    design: str
    events: int


def table_config(
    video: Path, start: dict[str, Any], hand: dict[str, Any] | None, camera: Camera, layout: Layout
) -> dict[str, Any]:
    """The ``table.toml`` content that lets ``replay`` read this video."""
    seats = list(start["seats"])
    return {
        "table": {
            "id": video.stem,
            "game": start.get("game", "tractor"),
            "profile": start["profile"],
            "seats": seats,
            "teams": start.get("teams", [[0, 2], [1, 3]]),
            "levels": start.get("levels", ["2", "2"]),
            **({"banker": hand["banker"]} if hand and hand.get("banker") is not None else {}),
            "decks": 2,
        },
        "source": {"uri": video.name, "fps": FPS},
        "model": {"path": "models/cards.onnx"},  # min_score: the model's own sure score
        "calibration": {
            "method": "aruco",
            "table_size": [TABLE, TABLE],
            "dictionary": "DICT_4X4_50",
            "marker_ids": [0, 1, 2, 3],
            "marker_size": MARKER_SIZE,
            "points": [list(p) for p in camera.table_corners_image()],
        },
        "motion": {"still_frames": 2},
        "areas": [
            {
                "name": a.name,
                "kind": a.kind,
                **({"seat": a.seat} if a.seat is not None else {}),
                "polygon": [list(p) for p in a.polygon],
            }
            for a in layout.areas
        ],
        "masks": [{"polygon": [list(p) for p in m]} for m in layout.masks],
    }


def render_match(
    events: Iterable[dict[str, Any]],
    out: Path,
    seed: int,
    split: str = "train",
    fps: float = FPS,
    image_size: tuple[int, int] = IMAGE_SIZE,
    design: str | None = None,
) -> RenderResult:
    """Render ``events`` (one hand's record) to ``out`` (.mp4) with truth and table config.

    ``design`` picks one deck design by name (e.g. ``gnome/tango_nuevo``); default: seeded.
    """
    from engine.record import dumps_event  # engine is pure; only formatting is borrowed

    evs = [dict(e) for e in events]
    start = next((e for e in evs if e["type"] == "match_start"), None)
    if start is None:
        raise ValueError("events: a match_start event is needed (seats, profile)")
    hand = next((e for e in evs if e["type"] == "hand_start"), None)
    n = len(start["seats"])
    layout = default_layout(n, TABLE, CARD_H)
    rng = random.Random(seed)
    art = load_art(split, rng, round(CARD_H * PX), design)
    tl = direct(evs, seed, layout)
    camera = Camera.random(seed, image_size)
    out.parent.mkdir(parents=True, exist_ok=True)
    writer = cv2.VideoWriter(str(out), cv2.VideoWriter.fourcc(*"mp4v"), fps, image_size)
    if not writer.isOpened():
        raise OSError(f"{out}: cannot open an mp4 writer")
    try:
        count = 0
        for frame in render_frames(tl, art, seed, n, camera, fps):
            writer.write(frame)
            count += 1
    finally:
        writer.release()
    stem = out.with_suffix("")
    truth_path = stem.with_name(stem.name + ".truth.jsonl")
    with open(truth_path, "w", encoding="utf-8") as fh:
        for seq, (frame_i, ev) in enumerate(tl.truth):
            ev = {**ev, "seq": seq, "t": round(frame_i / fps, 3)}
            fh.write(dumps_event(ev) + "\n")
    labels_path = stem.with_name(stem.name + ".labels.jsonl")
    with open(labels_path, "w", encoding="utf-8") as fh:
        for line in frame_labels(tl, camera):
            fh.write(json.dumps(line, separators=(",", ":")) + "\n")
    table_path = stem.with_name(stem.name + ".table.toml")
    from tablescan.config import dump_config

    cfg = table_config(out, start, hand, camera, layout)
    table_path.write_text(
        f"# Rendered by tablescan render-match (seed {seed}, design {art.design}, {split}).\n"
        + dump_config(cfg),
        encoding="utf-8",
    )
    log.info("rendered %s: %d frames, design %s", out, count, art.design)
    return RenderResult(out, truth_path, table_path, count, fps, art.design, len(tl.truth))


def read_truth(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def simulated_hand(profile: str, seed: int, tricks: int | None = None) -> list[dict[str, Any]]:
    """One hand from the engine's seeded simulator, as record events (first ``tricks`` only)."""
    from engine.tractor.rules import Rules
    from engine.tractor.sim import match_events, simulate_match

    match = simulate_match(Rules.load(profile), seed, max_hands=1)
    events = [e for e in match_events(match) if e["type"] != "match_end"]
    if tricks is None:
        return events
    n = len(next(e for e in events if e["type"] == "match_start")["seats"])
    out: list[dict[str, Any]] = []
    plays = 0
    for e in events:
        if e["type"] == "play":
            if plays >= tricks * n:
                continue
            plays += 1
        out.append(e)
    return out


def render_simulated(
    profile: str,
    seed: int,
    out: Path,
    split: str = "train",
    tricks: int | None = None,
    design: str | None = None,
) -> RenderResult:
    """``tablescan render-match``: simulate a hand with ``seed`` and render it to ``out``."""
    events = simulated_hand(profile, seed, tricks)
    return render_match(events, out, seed, split=split, design=design)
