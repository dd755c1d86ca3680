"""Match videos drawn: a hand's record events as an overhead camera would film them.

The pictures only: the spine (``tablescan.render``) simulates the hand, asks its referee who
takes each trick, and writes the true record and the table config beside the video. The
drawing is deliberately unkind in the ways a real table is: cards arrive one at a time under
a moving hand, pairs and fans overlap, the winner sweeps the trick away, the bottom is buried
face down and turned up at the end, the light drifts, the sensor is noisy and the camera is
not square to the table.

``draw_match`` writes ``match.mp4`` and, beside it, ``match.labels.jsonl`` (every card's quad
per scene change, which ``vision.synth.labels.LabelDetector`` reads back).
"""

from __future__ import annotations

import json
import logging
import math
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.calibration import Layout, default_layout, draw_marker, seat_angle
from vision.synth.timeline import BACK, CARD_H, CARD_W, TABLE, Hand, Obj, Timeline, direct

log = logging.getLogger(__name__)

Image = NDArray[Any]
MARGIN = 95.0  # canvas border around the table plane (markers, players' edges)
PX = 0.8  # canvas pixels per table unit
MARKER_SIZE = 70.0
IMAGE_SIZE = (1280, 720)
FPS = 20.0


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


# --- the video file --------------------------------------------------------------------------


def write_video(
    out: Path,
    tl: Timeline,
    art: CardArt,
    seed: int,
    n_seats: int,
    camera: Camera,
    fps: float,
    image_size: tuple[int, int],
) -> int:
    """Render ``tl`` into ``out`` (.mp4) and return the frame count. A render takes minutes,
    so it shows progress (a bar on a terminal, a plain line every few seconds otherwise)."""
    from vision.progress import Progress

    out.parent.mkdir(parents=True, exist_ok=True)
    writer = cv2.VideoWriter(str(out), cv2.VideoWriter.fourcc(*"mp4v"), fps, image_size)
    if not writer.isOpened():
        raise OSError(f"{out}: cannot open an mp4 writer")
    count = 0
    try:
        with Progress(len(tl.frames), f"rendering {out.name} (frames)") as bar:
            for frame in render_frames(tl, art, seed, n_seats, camera, fps):
                writer.write(frame)
                count += 1
                bar.update()
    finally:
        writer.release()
    return count


@dataclass
class DrawnMatch:
    """A match video written, with what the spine needs to write its truth and table config."""

    video: Path
    labels: Path
    frames: int
    design: str
    timeline: Timeline
    camera: Camera
    layout: Layout


def draw_match(
    events: list[dict[str, Any]],
    out: Path,
    seed: int,
    split: str = "train",
    fps: float = FPS,
    image_size: tuple[int, int] = IMAGE_SIZE,
    design: str | None = None,
    winners: dict[int, int] | None = None,
) -> DrawnMatch:
    """Draw ``events`` (one hand's record, a ``match_start`` first) to ``out`` (.mp4), with
    ``NAME.labels.jsonl`` beside it: every card's quad per scene change.

    ``design`` picks one deck design by name (e.g. ``gnome/tango_nuevo``); default: seeded.
    """
    start = next((e for e in events if e["type"] == "match_start"), None)
    if start is None:
        raise ValueError("events: a match_start event is needed (seats, profile)")
    n = len(start["seats"])
    layout = default_layout(n, TABLE, CARD_H)
    tl = direct(events, seed, layout, winners)
    return film(out, tl, layout, n, seed, split, design, fps, image_size)


def film(
    out: Path,
    tl: Timeline,
    layout: Layout,
    n_seats: int,
    seed: int,
    split: str,
    design: str | None,
    fps: float,
    image_size: tuple[int, int],
) -> DrawnMatch:
    """The video of a planned match and its ``NAME.labels.jsonl`` beside it (either game):
    the deck art of ``split`` (or ``design``), a seeded camera, every frame drawn."""
    art = load_art(split, random.Random(seed), round(CARD_H * PX), design)
    camera = Camera.random(seed, image_size)
    count = write_video(out, tl, art, seed, n_seats, camera, fps, image_size)
    stem = out.with_suffix("")
    labels_path = stem.with_name(stem.name + ".labels.jsonl")
    with open(labels_path, "w", encoding="utf-8") as fh:
        for line in frame_labels(tl, camera):
            fh.write(json.dumps(line, separators=(",", ":")) + "\n")
    return DrawnMatch(out, labels_path, count, art.design, tl, camera, layout)
