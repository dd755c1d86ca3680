"""Overhead table scenes composed from deck renders, with exact labels.

Why synthetic: no downloadable weights or labelled table footage exist for jokers, backs and
duplicate cards together, so every training image is composed here and its labels come from
the composer itself (exact card, outline, index corners and how much of each is visible).

A scene: a cloth or wood table, seat-area groups of cards (singles, rows, fans, piles, pairs
and up to four copies of one face, face-down cards), hands and sleeves over them, shadows,
lighting gradients, glare, a camera perspective (sometimes a stretched square photo), blur,
noise and JPEG. Every random choice comes from one ``numpy.random.Generator``: same seed,
same scene.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.detect import ANCHOR_X, ANCHOR_Y, BACK
from vision.synth.decks import CARD_NAMES, DeckInfo, index_corners, render_card

SRC_HEIGHT = 320  # card renders are made at this height and scaled into the scene

#: Visibility bands: an index corner at least this visible is a positive; below the lower
#: band it is a negative; in between the training losses ignore it and evaluation neither
#: requires nor forbids it.
INDEX_VIS_POS, INDEX_VIS_NEG = 0.75, 0.35
BACK_VIS_POS, BACK_VIS_NEG = 0.6, 0.2


@dataclass(frozen=True, slots=True)
class SceneConfig:
    """Knobs of the composer (defaults are the training distribution)."""

    width: int = 1280
    height: int = 720
    card_height: tuple[float, float] = (60.0, 420.0)  # log-uniform, full-frame pixels
    closeup_p: float = 0.08  # scenes of 1-3 cards filling much of the frame
    square_photo_p: float = 0.25  # scene stretched into a 640×640 photo
    max_cards: int = 48
    hands_p: float = 0.45


@dataclass(slots=True)
class IndexLabel:
    """One index corner. ``visible``: the share of its index that can be read (0 when the
    design prints no index there: ``printed`` False); ``shown``: the share of that corner
    of the card in view, print or not."""

    xy: tuple[float, float]
    down: tuple[float, float]
    height: float
    visible: float
    printed: bool = True
    shown: float = -1.0  # -1: as ``visible``

    def __post_init__(self) -> None:
        if self.shown < 0:
            self.shown = self.visible


@dataclass(slots=True)
class CardLabel:
    card: str  # shared notation or "back"
    quad: list[tuple[float, float]]
    centre: tuple[float, float]
    height: float
    visible: float
    indices: list[IndexLabel] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {
            "card": self.card,
            "quad": [[round(x, 2), round(y, 2)] for x, y in self.quad],
            "centre": [round(self.centre[0], 2), round(self.centre[1], 2)],
            "height": round(self.height, 2),
            "visible": round(self.visible, 3),
            "indices": [
                {
                    "xy": [round(i.xy[0], 2), round(i.xy[1], 2)],
                    "down": [round(i.down[0], 4), round(i.down[1], 4)],
                    "height": round(i.height, 2),
                    "visible": round(i.visible, 3),
                    "printed": i.printed,
                    "shown": round(i.shown, 3),
                }
                for i in self.indices
            ],
        }


@dataclass(slots=True)
class Scene:
    image: np.ndarray  # BGR uint8
    cards: list[CardLabel]
    decks: list[str]

    def to_json(self) -> dict[str, object]:
        h, w = self.image.shape[:2]
        return {"size": [w, h], "decks": self.decks, "cards": [c.to_json() for c in self.cards]}


@dataclass(slots=True)
class _Placed:
    card: str
    src: np.ndarray  # BGRA
    m: np.ndarray  # 2×3 affine, source pixels → canvas
    face_up: bool
    printed: tuple[bool, bool] = (True, True)  # an index at the top-left, bottom-right corner


# ---------------------------------------------------------------- backgrounds and lighting


def _background(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    """A table top: felt, wood grain, plain or woven cloth (textures made at half size)."""
    fw, fh = w, h
    w, h = max(1, w // 2), max(1, h // 2)
    kind = rng.choice(["felt", "wood", "plain", "cloth"], p=[0.35, 0.25, 0.25, 0.15])
    base = rng.uniform(20, 235, size=3)
    if kind == "felt":
        base = np.array([rng.uniform(20, 90), rng.uniform(60, 160), rng.uniform(10, 70)])
        if rng.random() < 0.4:
            base = base[[0, 2, 1]] if rng.random() < 0.5 else base[[1, 0, 2]]
    img = np.empty((h, w, 3), np.float32)
    img[:] = base
    if kind == "wood":
        ys = np.arange(h, dtype=np.float32)[:, None]
        xs = np.arange(w, dtype=np.float32)[None, :]
        ang = rng.uniform(0, math.pi)
        t = xs * math.cos(ang) + ys * math.sin(ang)
        freq = rng.uniform(0.04, 0.24)
        across = xs * math.sin(ang) - ys * math.cos(ang)
        warp = 8 * np.sin(t * 0.02 + rng.uniform(0, 6)) + across * 0.02
        grain = np.sin((t + warp * 10) * freq) * 0.5 + 0.5
        wood = np.array([rng.uniform(30, 90), rng.uniform(70, 140), rng.uniform(110, 200)])
        img = (wood[None, None, :] * (0.7 + 0.4 * grain[..., None])).astype(np.float32)
    elif kind == "cloth":
        period = rng.uniform(2, 10)
        ys2, xs2 = np.mgrid[0:h, 0:w].astype(np.float32)
        weave = np.sin(xs2 / period * math.pi) * np.sin(ys2 / period * math.pi)
        img = img + (weave * rng.uniform(5, 25))[..., None]
    noise = rng.normal(0, rng.uniform(2, 10), size=(h // 2 + 1, w // 2 + 1)).astype(np.float32)
    img = img + cv2.resize(noise, (w, h), interpolation=cv2.INTER_LINEAR)[..., None]
    out = np.asarray(cv2.resize(img, (fw, fh), interpolation=cv2.INTER_LINEAR), np.float32)
    grain_n = np.empty((fh, fw, 3), np.float32)
    cv2.randn(grain_n, np.zeros(3), np.full(3, rng.uniform(0.5, 4)))
    out += grain_n
    return out


def _blur(img: np.ndarray, sigma: float) -> np.ndarray:
    """Gaussian blur; wide ones at quarter resolution (same look, a fraction of the time)."""
    if sigma <= 4:
        return cv2.GaussianBlur(img, (0, 0), sigma)
    h, w = img.shape[:2]
    small = cv2.resize(img, (max(1, w // 4), max(1, h // 4)), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), sigma / 4)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


_SOURCES: dict[tuple[str, str], np.ndarray] = {}
_PRINTED: dict[tuple[str, str], tuple[bool, bool]] = {}


def _source(deck: DeckInfo, card: str) -> np.ndarray:
    """A card render at SRC_HEIGHT, kept in memory (scenes reuse the same few hundred)."""
    key = (deck.name, card)
    img = _SOURCES.get(key)
    if img is None:
        img = _SOURCES[key] = render_card(deck, card, SRC_HEIGHT)
    return img


def add_source(deck_name: str, card: str, img: np.ndarray) -> None:
    """Serve ``card`` of design ``deck_name`` from this render (BGRA, SRC_HEIGHT tall)
    instead of rendering it: scenes can then be composed where no SVG or rsvg-convert is
    installed (a training machine fed packed renders, see models/pack_renders.py)."""
    if img.ndim != 3 or img.shape[2] != 4 or img.shape[0] != SRC_HEIGHT:
        raise ValueError(f"render {deck_name} {card}: expected BGRA {SRC_HEIGHT} px tall")
    _SOURCES[(deck_name, card)] = img
    _PRINTED.pop((deck_name, card), None)


def printed_indices(deck: DeckInfo, card: str) -> tuple[bool, bool]:
    """Whether ``card`` of ``deck`` prints an index at its top-left and bottom-right corner."""
    if card == BACK:
        return (False, False)
    key = (deck.name, card)
    got = _PRINTED.get(key)
    if got is None:
        got = _PRINTED[key] = index_corners(_source(deck, card))
    return got


def _light_field(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    cx, cy = rng.uniform(-0.3, 1.3) * w, rng.uniform(-0.3, 1.3) * h
    r = np.hypot(xs - cx, ys - cy) / max(w, h)
    field_ = rng.uniform(1.0, 1.25) - rng.uniform(0.0, 0.6) * r
    out: np.ndarray = np.clip(field_, 0.35, 1.4).astype(np.float32)
    return out


# ---------------------------------------------------------------- card placement


def _affine(
    src: np.ndarray, centre: tuple[float, float], angle: float, height: float
) -> np.ndarray:
    """Source pixels → canvas: scale to ``height``, rotate by ``angle`` (radians), centre."""
    sh, sw = src.shape[:2]
    s = height / sh
    c, si = math.cos(angle) * s, math.sin(angle) * s
    cx, cy = centre
    # p' = R S (p - src_centre) + centre; down vector of the card = R (0, 1)
    return np.array(
        [
            [c, -si, cx - (c * sw / 2 - si * sh / 2)],
            [si, c, cy - (si * sw / 2 + c * sh / 2)],
        ],
        dtype=np.float64,
    )


def _apply(m: np.ndarray, pts: np.ndarray) -> np.ndarray:
    out: np.ndarray = pts @ m[:, :2].T + m[:, 2]
    return out


def _layout(
    rng: np.random.Generator, n: int, kind: str, h: float, aspect: float
) -> list[tuple[float, float, float]]:
    """Card poses (x, y, angle) relative to a group origin, bottom card first."""
    w = h * aspect
    base = rng.uniform(-math.pi, math.pi) if rng.random() < 0.7 else rng.normal(0, 0.3)
    poses: list[tuple[float, float, float]] = []
    if kind == "single" or n == 1:
        return [(0.0, 0.0, base)]
    if kind == "row":
        gap = w * rng.uniform(1.02, 1.4)
        for i in range(n):
            poses.append((i * gap, rng.normal(0, 0.03 * h), base + rng.normal(0, 0.05)))
        return [_rot(p, base) for p in poses]
    if kind == "fan":
        spacing = w * rng.uniform(0.14, 0.45)
        dang = rng.uniform(0, 0.14) * (1 if rng.random() < 0.5 else -1)
        arc = rng.random() < 0.5
        for i in range(n):
            a = i * dang if arc else rng.normal(0, 0.02)
            poses.append((i * spacing, (abs(i - n / 2) ** 2) * 0.004 * h * arc, base + a))
        return [_rot(p, base) for p in poses]
    if kind == "pile":
        for _ in range(n):
            poses.append(
                (rng.normal(0, 0.3 * w), rng.normal(0, 0.25 * h), base + rng.normal(0, 0.5))
            )
        return poses
    # "stack": nearly aligned, the kitty or a played trick squared up
    for _ in range(n):
        poses.append((rng.normal(0, 0.04 * w), rng.normal(0, 0.04 * h), base + rng.normal(0, 0.06)))
    return poses


def _rot(p: tuple[float, float, float], base: float) -> tuple[float, float, float]:
    x, y, a = p
    c, s = math.cos(base), math.sin(base)
    return (c * x - s * y, s * x + c * y, a)


def _draw_cards(rng: np.random.Generator, n: int, pool: list[str], dup_p: float) -> list[str]:
    """Faces for one group; with ``dup_p`` pairs/triples of one face (tractors, Gouji bombs)."""
    out: list[str] = []
    while len(out) < n:
        face = pool[int(rng.integers(len(pool)))]
        k = 1
        if rng.random() < dup_p:
            k = int(rng.choice([2, 2, 2, 3, 4]))
        out.extend([face] * min(k, n - len(out)))
    if rng.random() < 0.5:
        out.sort()
    return out


# ---------------------------------------------------------------- occluders


def _hand(rng: np.random.Generator, w: int, h: int) -> tuple[np.ndarray, np.ndarray]:
    """A hand or sleeve coming in from a frame edge: (BGR float colour layer, alpha mask)."""
    mask = np.zeros((h, w), np.float32)
    edge = int(rng.integers(4))
    size = rng.uniform(0.12, 0.3) * min(w, h)
    t = rng.uniform(0.1, 0.9)
    if edge == 0:
        start, ang = (t * w, -0.2 * size), math.pi / 2
    elif edge == 1:
        start, ang = (t * w, h + 0.2 * size), -math.pi / 2
    elif edge == 2:
        start, ang = (-0.2 * size, t * h), 0.0
    else:
        start, ang = (w + 0.2 * size, t * h), math.pi
    ang += rng.normal(0, 0.35)
    reach = rng.uniform(0.5, 2.2) * size
    ex, ey = start[0] + reach * math.cos(ang), start[1] + reach * math.sin(ang)
    arm_w = int(size * rng.uniform(0.45, 0.7))
    cv2.line(mask, (int(start[0]), int(start[1])), (int(ex), int(ey)), 1.0, arm_w)
    palm = (int(ex), int(ey))
    cv2.ellipse(
        mask, palm, (int(size * 0.45), int(size * 0.35)), math.degrees(ang), 0, 360, 1.0, -1
    )
    for f in range(int(rng.integers(0, 5))):
        fa = ang + (f - 1.5) * 0.3 + rng.normal(0, 0.1)
        fl = size * rng.uniform(0.4, 0.8)
        tip = (int(ex + fl * math.cos(fa)), int(ey + fl * math.sin(fa)))
        cv2.line(mask, palm, tip, 1.0, max(2, int(size * 0.12)))
    mask = _blur(mask, max(0.8, size * 0.01))
    skin = np.array([rng.uniform(60, 200), rng.uniform(90, 210), rng.uniform(130, 250)])
    colour = np.empty((h, w, 3), np.float32)
    colour[:] = skin
    if rng.random() < 0.4:  # a sleeve over the arm part
        sleeve = np.zeros((h, w), np.float32)
        mid = (int((start[0] + ex) / 2), int((start[1] + ey) / 2))
        cv2.line(sleeve, (int(start[0]), int(start[1])), mid, 1.0, int(arm_w * 1.3))
        colour[sleeve > 0.5] = rng.uniform(0, 255, size=3)
        mask = np.maximum(mask, sleeve)
    shade = _blur(mask, size * 0.15)
    colour *= (0.75 + 0.35 * shade)[..., None]
    return colour, mask


# ---------------------------------------------------------------- the composer


def compose_scene(
    rng: np.random.Generator,
    decks: list[DeckInfo],
    usable: dict[str, list[str]],
    cfg: SceneConfig = SceneConfig(),
) -> Scene:
    """One labelled table scene. ``usable[deck.name]`` lists the cards that render well."""
    W, H = cfg.width, cfg.height
    cv2.setRNGSeed(int(rng.integers(1 << 31)))  # cv2.randn noise follows the seed too
    canvas = _background(rng, W, H)
    owner = np.full((H, W), -1, np.int32)
    n_decks = 1 if rng.random() < 0.8 or len(decks) < 2 else 2
    chosen = [decks[int(i)] for i in rng.choice(len(decks), size=n_decks, replace=False)]
    closeup = rng.random() < cfg.closeup_p
    lo, hi = cfg.card_height
    if closeup:
        card_h = rng.uniform(0.45, 0.95) * H
    else:
        card_h = math.exp(rng.uniform(math.log(lo), math.log(hi)))
    area_cards = (W * H) / (card_h * card_h * 0.7)
    budget = int(max(1, min(cfg.max_cards, area_cards * rng.uniform(0.3, 1.2))))
    if closeup:
        budget = int(rng.integers(1, 4))

    placed: list[_Placed] = []
    while len(placed) < budget:
        deck = chosen[int(rng.integers(len(chosen)))]
        faces = [c for c in usable[deck.name] if c != BACK]
        has_back = BACK in usable[deck.name]
        face_down = has_back and rng.random() < 0.18
        kind = str(
            rng.choice(["single", "row", "fan", "pile", "stack"], p=[0.2, 0.15, 0.4, 0.15, 0.1])
        )
        n = 1 if kind == "single" else min(int(rng.integers(2, 11)), budget - len(placed))
        names = [BACK] * n if face_down else _draw_cards(rng, n, faces, 0.35)
        h_grp = card_h * rng.uniform(0.92, 1.08)
        probe = _source(deck, names[0])
        aspect = probe.shape[1] / probe.shape[0]
        ox, oy = rng.uniform(-0.05, 1.05) * W, rng.uniform(-0.05, 1.05) * H
        for name, (x, y, a) in zip(names, _layout(rng, n, kind, h_grp, aspect), strict=True):
            src = _source(deck, name)
            face_up = name != BACK
            if face_up and rng.random() < 0.5:
                a += math.pi  # a card's two ends look alike; show both
            m = _affine(src, (ox + x, oy + y), a, h_grp * rng.uniform(0.98, 1.02))
            placed.append(_Placed(name, src, m, face_up, printed_indices(deck, name)))

    return _shoot(rng, canvas, owner, placed, card_h, cfg, [d.name for d in chosen])


def compose_layout(
    rng: np.random.Generator,
    deck: DeckInfo,
    cards: tuple[str, ...],
    cols: int,
    cfg: SceneConfig = SceneConfig(),
) -> Scene:
    """A deck's faces laid upright in rows of ``cols`` (``cards`` row by row) on a table, as
    the table camera captures them for enrollment: no hands, no square photo, the same
    light, perspective and camera faults as any scene. The card height is drawn from
    ``cfg.card_height``, then made smaller if the grid would not fit the frame."""
    W, H = cfg.width, cfg.height
    cv2.setRNGSeed(int(rng.integers(1 << 31)))
    canvas = _background(rng, W, H)
    owner = np.full((H, W), -1, np.int32)
    rows = math.ceil(len(cards) / cols)
    aspect = _source(deck, cards[0]).shape[1] / _source(deck, cards[0]).shape[0]
    gap = rng.uniform(1.12, 1.35)
    lo, hi = cfg.card_height
    card_h = math.exp(rng.uniform(math.log(lo), math.log(hi)))
    card_h = min(card_h, 0.92 * W / (cols * aspect * gap), 0.92 * H / (rows * gap))
    pitch_x, pitch_y = card_h * aspect * gap, card_h * gap
    x0 = (W - (cols - 1) * pitch_x) / 2 + rng.uniform(-0.3, 0.3) * (W - cols * pitch_x) / 2
    y0 = (H - (rows - 1) * pitch_y) / 2 + rng.uniform(-0.3, 0.3) * (H - rows * pitch_y) / 2
    base = rng.normal(0, 0.03)
    placed: list[_Placed] = []
    for k, name in enumerate(cards):
        r, c = divmod(k, cols)
        x = x0 + c * pitch_x + rng.normal(0, 0.03 * card_h)
        y = y0 + r * pitch_y + rng.normal(0, 0.03 * card_h)
        src = _source(deck, name)
        m = _affine(src, (x, y), base + rng.normal(0, 0.04), card_h * rng.uniform(0.99, 1.01))
        placed.append(_Placed(name, src, m, name != BACK, printed_indices(deck, name)))
    return _shoot(rng, canvas, owner, placed, card_h, cfg, [deck.name], hands=False)


def _shoot(
    rng: np.random.Generator,
    canvas: np.ndarray,
    owner: np.ndarray,
    placed: list[_Placed],
    card_h: float,
    cfg: SceneConfig,
    decks: list[str],
    hands: bool = True,
) -> Scene:
    """The placed cards pasted, then hands (when ``hands``), light, camera and its faults:
    a scene's photograph and its labels. Without ``hands`` there is no square photo either
    (a table camera's own capture)."""
    H, W = owner.shape
    shadow_dx, shadow_dy = rng.normal(0, 0.02 * card_h, size=2)
    shadow_k = rng.uniform(0.0, 0.45)
    for k, p in enumerate(placed):
        _paste(canvas, owner, p, k, shadow_k, (shadow_dx, shadow_dy), card_h, rng)

    n_hands = 0
    if hands:
        n_hands = int(rng.random() < cfg.hands_p) + int(rng.random() < cfg.hands_p * 0.3)
    for _ in range(n_hands):
        colour, mask = _hand(rng, W, H)
        canvas = canvas * (1 - mask[..., None]) + colour * mask[..., None]
        owner[mask > 0.5] = -2

    labels = [_label(p, k, owner) for k, p in enumerate(placed)]

    # lighting: gradient, cast shadow, glare, colour temperature
    canvas *= _light_field(rng, W, H)[..., None]
    if rng.random() < 0.3:
        sh = np.zeros((H, W), np.float32)
        pts = rng.uniform([0, 0], [W, H], size=(int(rng.integers(3, 6)), 2)).astype(np.int32)
        cv2.fillPoly(sh, [cv2.convexHull(pts)], 1.0)
        sh = _blur(sh, rng.uniform(5, 40))
        canvas *= (1 - rng.uniform(0.2, 0.5) * sh)[..., None]
    for _ in range(int(rng.integers(0, 3))):
        glare = np.zeros((H, W), np.float32)
        c = (int(rng.uniform(0, W)), int(rng.uniform(0, H)))
        ax = (int(rng.uniform(0.03, 0.25) * W), int(rng.uniform(0.03, 0.2) * H))
        cv2.ellipse(glare, c, ax, rng.uniform(0, 180), 0, 360, 1.0, -1)
        glare = _blur(glare, max(ax) * 0.3 + 1)
        canvas += rng.uniform(60, 220) * glare[..., None]
    canvas *= rng.uniform(0.85, 1.15, size=3).astype(np.float32)
    canvas = canvas * rng.uniform(0.6, 1.3) + rng.uniform(-30, 30)

    # camera: perspective tilt, and sometimes a stretched square photo
    hom = _perspective(rng, W, H)
    out_w, out_h = W, H
    if hands and rng.random() < cfg.square_photo_p:
        out_w = out_h = 640
        hom = np.diag([out_w / W, out_h / H, 1.0]) @ hom
    img = cv2.warpPerspective(
        np.clip(canvas, 0, 255).astype(np.uint8),
        hom,
        (out_w, out_h),
        flags=cv2.INTER_AREA if out_w < W else cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REFLECT,
    )
    labels = [_warp_label(c, hom) for c in labels]
    img = _degrade(rng, img)
    return Scene(img, labels, decks)


def _paste(
    canvas: np.ndarray,
    owner: np.ndarray,
    p: _Placed,
    k: int,
    shadow_k: float,
    shadow_off: tuple[float, float],
    card_h: float,
    rng: np.random.Generator,
) -> None:
    H, W = owner.shape
    sh, sw = p.src.shape[:2]
    corners = _apply(p.m, np.array([[0, 0], [sw, 0], [sw, sh], [0, sh]], np.float64))
    pad = int(abs(shadow_off[0]) + abs(shadow_off[1]) + 0.05 * card_h + 2)
    x0, y0 = np.floor(corners.min(0)).astype(int) - pad
    x1, y1 = np.ceil(corners.max(0)).astype(int) + pad
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
    if x1 <= x0 or y1 <= y0:
        return
    m = p.m.copy()
    m[:, 2] -= (x0, y0)
    roi = (x1 - x0, y1 - y0)
    warped = cv2.warpAffine(p.src, m, roi, flags=cv2.INTER_AREA, borderValue=(0, 0, 0, 0))
    alpha = warped[..., 3].astype(np.float32) / 255.0
    region = canvas[y0:y1, x0:x1]
    if shadow_k > 0:
        ms = m.copy()
        ms[:, 2] += shadow_off
        sa = cv2.warpAffine(p.src[..., 3], ms, roi, flags=cv2.INTER_LINEAR).astype(np.float32)
        sa = _blur(sa / 255.0, 0.02 * card_h + 0.5)
        region *= (1 - shadow_k * sa)[..., None]
    rgb = warped[..., :3].astype(np.float32)
    if p.face_up and rng.random() < 0.3:  # paper tint / dirt
        rgb *= rng.uniform(0.85, 1.0, size=3).astype(np.float32)
    region[:] = region * (1 - alpha[..., None]) + rgb * alpha[..., None]
    owner[y0:y1, x0:x1][alpha > 0.5] = k


def _visible(owner: np.ndarray, pts: np.ndarray, k: int) -> float:
    H, W = owner.shape
    xi, yi = np.round(pts[:, 0]).astype(int), np.round(pts[:, 1]).astype(int)
    inside = (xi >= 0) & (xi < W) & (yi >= 0) & (yi < H)
    hit = np.zeros(len(pts), bool)
    hit[inside] = owner[yi[inside], xi[inside]] == k
    return float(hit.mean())


def _grid(x0: float, x1: float, y0: float, y1: float, n: int) -> np.ndarray:
    xs, ys = np.meshgrid(np.linspace(x0, x1, n), np.linspace(y0, y1, n))
    return np.stack([xs.ravel(), ys.ravel()], 1)


def _label(p: _Placed, k: int, owner: np.ndarray) -> CardLabel:
    sh, sw = p.src.shape[:2]
    quad_src = np.array([[0, 0], [sw, 0], [sw, sh], [0, sh]], np.float64)
    quad = _apply(p.m, quad_src)
    centre = _apply(p.m, np.array([[sw / 2, sh / 2]]))[0]
    height = float(np.hypot(*(p.m[:, :2] @ np.array([0.0, sh]))))
    vis = _visible(owner, _apply(p.m, _grid(0.03 * sw, 0.97 * sw, 0.03 * sh, 0.97 * sh, 9)), k)
    lab = CardLabel(
        p.card,
        [(float(q[0]), float(q[1])) for q in quad],
        (float(centre[0]), float(centre[1])),
        height,
        vis,
    )
    if not p.face_up:
        return lab
    down = p.m[:, :2] @ np.array([0.0, 1.0])
    down = down / np.hypot(*down)
    for flip, printed in zip((False, True), p.printed, strict=True):
        ax, ay = ANCHOR_X * sh, ANCHOR_Y * sh
        region = _grid(0.02 * sh, 0.19 * sh, 0.03 * sh, 0.29 * sh, 5)
        anchor = np.array([[ax, ay]])
        if flip:  # the 180°-rotated index at the bottom-right corner
            region = np.array([sw, sh]) - region
            anchor = np.array([sw, sh]) - anchor
        a = _apply(p.m, anchor)[0]
        d = -down if flip else down
        v = _visible(owner, _apply(p.m, region), k)
        xy, dn = (float(a[0]), float(a[1])), (float(d[0]), float(d[1]))
        lab.indices.append(IndexLabel(xy, dn, height, v if printed else 0.0, printed, v))
    return lab


def _perspective(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    j = rng.uniform(0, 0.07)
    dst = src + rng.uniform(-j, j, size=(4, 2)).astype(np.float32) * np.array([w, h], np.float32)
    return cv2.getPerspectiveTransform(src, dst).astype(np.float64)


def _hpt(hom: np.ndarray, x: float, y: float) -> tuple[float, float]:
    v = hom @ np.array([x, y, 1.0])
    return float(v[0] / v[2]), float(v[1] / v[2])


def _warp_label(c: CardLabel, hom: np.ndarray) -> CardLabel:
    """Carry a label through the camera homography (heights measured locally)."""

    def local_h(x: float, y: float, dx: float, dy: float, h: float) -> float:
        a = _hpt(hom, x - dx * h / 2, y - dy * h / 2)
        b = _hpt(hom, x + dx * h / 2, y + dy * h / 2)
        return math.dist(a, b)

    quad = [_hpt(hom, x, y) for x, y in c.quad]
    (x0, y0), (x3, y3) = c.quad[0], c.quad[3]
    dn = ((x3 - x0) / c.height, (y3 - y0) / c.height)
    centre = _hpt(hom, *c.centre)
    out = CardLabel(c.card, quad, centre, local_h(*c.centre, *dn, c.height), c.visible, [])
    for i in c.indices:
        xy = _hpt(hom, *i.xy)
        tip = _hpt(hom, i.xy[0] + i.down[0] * 10, i.xy[1] + i.down[1] * 10)
        d = (tip[0] - xy[0], tip[1] - xy[1])
        n = math.hypot(*d) or 1.0
        hh = local_h(*i.xy, *i.down, i.height)
        out.indices.append(IndexLabel(xy, (d[0] / n, d[1] / n), hh, i.visible, i.printed, i.shown))
    return out


def _degrade(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """Camera faults: blur, motion blur, noise, salt and pepper, grey, JPEG."""
    if rng.random() < 0.5:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.6))
    if rng.random() < 0.15:
        k = int(rng.integers(3, 9))
        ker = np.zeros((k, k), np.float32)
        ker[k // 2, :] = 1.0 / k
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1.0)
        ker = np.asarray(cv2.warpAffine(ker, rot, (k, k)), np.float32)
        img = cv2.filter2D(img, -1, ker / max(float(ker.sum()), 1e-6))
    noise = np.empty(img.shape, np.int16)
    cv2.setRNGSeed(int(rng.integers(1 << 31)))
    cv2.randn(noise, np.zeros(3), np.full(3, rng.uniform(0, 9)))
    img = np.clip(img.astype(np.int16) + noise, 0, 255).astype(np.uint8)
    if rng.random() < 0.15:
        sp = rng.random(img.shape[:2])
        img[sp < 0.003] = 0
        img[sp > 0.997] = 255
    if rng.random() < 0.12:
        img = cv2.cvtColor(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    q = int(rng.integers(35, 96))
    ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, q])
    dec = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
    if dec is not None:
        img = dec
    return img


__all__ = [
    "CARD_NAMES",
    "CardLabel",
    "IndexLabel",
    "Scene",
    "SceneConfig",
    "add_source",
    "compose_layout",
    "compose_scene",
    "printed_indices",
]
