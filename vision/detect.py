"""Card detector: one ONNX model, run with onnxruntime alone (no torch at run time).

Why two stages: the rank and suit printed in a card's index corner are what survive
overlap (fans, piles, a hand over the card), and they are tiny in a whole 1280×720 table
frame. So a light fully-convolutional *localiser* looks at the whole frame, downscaled, and
finds every index corner (with the card's orientation, size and a vector to the card centre)
and every face-down card; then a small *classifier* reads each index from a rectified crop
taken from the full-resolution frame. Index corners that point at the same card centre from
opposite sides are one physical card, so two copies of a card count as two.

Both networks live in one ONNX graph with two inputs: ``image`` (1×3×H×W, BGR 0..255) →
``loc`` (1×14×H/4×W/4) and ``crops`` (N×3×40×28) → ``cls`` (N×55 probabilities).

CLI (a stable contract): ``python -m vision.detect --json IMAGE [IMAGE ...]``.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import sys
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

import cv2
import numpy as np

from engine.cards import RANKS, SUITS

log = logging.getLogger(__name__)

DEFAULT_MODEL = Path(__file__).resolve().parent.parent / "models" / "cards.onnx"

#: Classifier classes: the 54 faces in the shared notation, then "none" (not an index).
FACES: tuple[str, ...] = (*(r + s for s in SUITS for r in RANKS), "BJ", "SJ")
NONE = "none"
CLASSES: tuple[str, ...] = (*FACES, NONE)
BACK = "back"

# Geometry, in units of the card height h, in an index corner's own upright frame
# (x to the right, y down, origin at the card's corner):
# the crop window the classifier reads: room for the largest index of the training designs
# and for indices that other designs print bigger or further in
CROP_X0, CROP_X1 = -0.03, 0.27
CROP_Y0, CROP_Y1 = -0.03, 0.40
ANCHOR_X, ANCHOR_Y = 0.10, 0.15  # where the localiser puts the index's heat peak
CROP_W, CROP_H = 28, 40  # classifier input size in pixels
# each index is read at these multiples of the estimated card height, and the reads combined
# (chosen on validation scenes of training designs: fewer misreads, no fewer reads)
TTA_SCALES = (1.0, 0.88, 1.14)
CARD_ASPECT = 0.7  # width / height assumed when drawing a card's quad

LOC_LONG = 512  # the localiser sees the frame with its long side this many pixels
LOC_STRIDE = 4  # one localiser output cell per 4×4 input pixels
LOC_PAD = 32  # localiser input sides are multiples of this
H_REF = 64.0  # log-size channels predict log(card height in localiser pixels / H_REF)
DEFAULT_TILES = 1  # CardDetector's tiles unless asked (see bench/bench_vision.py, vision.eval)
TILE_MAX_H = 40.0  # tiles answer for cards below this height in the whole view's input pixels
TILE_OVERLAP = 0.12  # share of the frame's side that neighbouring tiles share

Box = tuple[int, int, int, int]  # x0, y0, x1, y1 in frame pixels
_FAR = 1 << 30  # an outer tile answers for everything beyond the frame's edge too

# Localiser channels.
CH_IDX_HEAT, CH_IDX_OFF, CH_IDX_DOWN, CH_IDX_LOGH, CH_IDX_CTR = 0, 1, 3, 5, 6
CH_BACK_HEAT, CH_BACK_OFF, CH_BACK_ANG2, CH_BACK_LOGH = 8, 9, 11, 13
LOC_CHANNELS = 14


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Decision thresholds, fixed on held-out *synthetic* scenes (never on real photos)."""

    index_heat: float = 0.35
    back_heat: float = 0.4
    card_score: float = 0.5
    max_peaks: int = 200
    pair_radius: float = 0.4  # opposite corners of one card: centres closer than this × h
    dup_radius: float = 0.07  # same-way peaks closer than this × h are one corner seen twice
    # a card read at or above this score is sure; below it the live pipeline asks a referee
    sure_score: float = 0.6


@dataclass(frozen=True, slots=True)
class Detection:
    """One physical card: its face (shared notation) or ``"back"``, a confidence in 0..1
    and its outline as four image-pixel corners (top-left, top-right, bottom-right,
    bottom-left of the card as its index reads upright)."""

    card: str
    score: float
    quad: tuple[tuple[float, float], ...] = field(default_factory=tuple)

    def to_json(self) -> dict[str, object]:
        return {
            "card": self.card,
            "score": round(self.score, 4),
            "quad": [[round(x, 1), round(y, 1)] for x, y in self.quad],
        }


@dataclass(frozen=True, slots=True)
class Tile:
    """One part of a frame the localiser sees on its own, and the part it answers for."""

    box: Box
    core: Box

    def owns(self, x: float, y: float) -> bool:
        x0, y0, x1, y1 = self.core
        return x0 <= x < x1 and y0 <= y < y1


@dataclass(frozen=True, slots=True)
class IndexPeak:
    """One index corner found by the localiser, in full-frame pixels."""

    x: float
    y: float
    down: tuple[float, float]  # unit vector: the index's "down" direction in the image
    height: float  # card height in pixels
    centre: tuple[float, float]  # predicted card centre
    heat: float


def index_crop_matrix(peak: IndexPeak, size: tuple[int, int] | None = None) -> np.ndarray:
    """2×3 affine map from full-frame pixels to the classifier's window (``size`` = (w, h),
    by default CROP_W×CROP_H)."""
    crop_w, crop_h = size or (CROP_W, CROP_H)
    dx, dy = peak.down
    rx, ry = dy, -dx  # the index's "right": (0, 1) down → (1, 0) right
    h = peak.height
    # corner of the card = anchor - (ANCHOR_X * r + ANCHOR_Y * d) * h
    ox = peak.x - (ANCHOR_X * rx + ANCHOR_Y * dx) * h
    oy = peak.y - (ANCHOR_X * ry + ANCHOR_Y * dy) * h
    sx = crop_w / ((CROP_X1 - CROP_X0) * h)
    sy = crop_h / ((CROP_Y1 - CROP_Y0) * h)
    # crop (u, v) = (s_x * (r·(p - o) - X0 h), s_y * (d·(p - o) - Y0 h))
    return np.array(
        [
            [sx * rx, sx * ry, -sx * (rx * ox + ry * oy) - sx * CROP_X0 * h],
            [sy * dx, sy * dy, -sy * (dx * ox + dy * oy) - sy * CROP_Y0 * h],
        ],
        dtype=np.float64,
    )


def crop_index(
    bgr: np.ndarray,
    peak: IndexPeak,
    pyramid: list[np.ndarray] | None = None,
    size: tuple[int, int] | None = None,
) -> np.ndarray:
    """The classifier's upright view of one index corner, ``size`` = (w, h) pixels (by
    default CROP_W×CROP_H, read when called: a training run for a larger classifier sets
    them); training uses it too.

    Big cards are read from a half-resolution copy (kept in ``pyramid`` across calls) so
    the warp does not alias."""
    size = size or (CROP_W, CROP_H)
    levels = pyramid if pyramid is not None else []
    if not levels:
        levels.append(bgr)
    p, lvl = peak, 0
    while p.height > 2.5 * size[1] / (CROP_Y1 - CROP_Y0) and min(levels[lvl].shape[:2]) > 64:
        if len(levels) <= lvl + 1:
            levels.append(cv2.pyrDown(levels[lvl]))
        lvl += 1
        p = IndexPeak(p.x / 2, p.y / 2, p.down, p.height / 2, p.centre, p.heat)
    out: np.ndarray = cv2.warpAffine(
        levels[lvl],
        index_crop_matrix(p, size),
        size,
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    )
    return out


def card_quad(
    centre: tuple[float, float], down: tuple[float, float], height: float
) -> tuple[tuple[float, float], ...]:
    """The card outline from its centre, its upright "down" vector and its height."""
    cx, cy = centre
    dx, dy = down
    rx, ry = dy, -dx
    hw, hh = CARD_ASPECT * height / 2, height / 2
    return tuple(
        (cx + sr * hw * rx + sd * hh * dx, cy + sr * hw * ry + sd * hh * dy)
        for sr, sd in ((-1, -1), (1, -1), (1, 1), (-1, 1))
    )


def loc_input(bgr: np.ndarray) -> tuple[np.ndarray, float]:
    """The localiser's input tensor for a frame, and the frame→input scale."""
    h, w = bgr.shape[:2]
    s = LOC_LONG / max(h, w)
    nw, nh = max(1, round(w * s)), max(1, round(h * s))
    small = cv2.resize(bgr, (nw, nh), interpolation=cv2.INTER_AREA)
    ph, pw = -nh % LOC_PAD, -nw % LOC_PAD
    if ph or pw:
        small = cv2.copyMakeBorder(small, 0, ph, 0, pw, cv2.BORDER_CONSTANT, value=(0, 0, 0))
    return np.ascontiguousarray(small.transpose(2, 0, 1)[None], dtype=np.float32), s


def _peaks(heat: np.ndarray, thr: float, limit: int) -> list[tuple[int, int, float]]:
    """Local maxima (3×3) of a heat map above ``thr``, strongest first."""
    dil = cv2.dilate(heat, np.ones((3, 3), np.uint8))
    ys, xs = np.nonzero((heat >= dil) & (heat >= thr))
    vals = heat[ys, xs]
    order = np.argsort(-vals)[:limit]
    return [(int(ys[i]), int(xs[i]), float(vals[i])) for i in order]


def _unit(x: float, y: float) -> tuple[float, float]:
    n = math.hypot(x, y) or 1.0
    return x / n, y / n


def decode_indices(loc: np.ndarray, scale: float, t: Thresholds) -> list[IndexPeak]:
    """Index-corner peaks of the localiser output, mapped to full-frame pixels."""
    out: list[IndexPeak] = []
    k = LOC_STRIDE / scale
    for gy, gx, v in _peaks(loc[CH_IDX_HEAT], t.index_heat, t.max_peaks):
        ox, oy = loc[CH_IDX_OFF : CH_IDX_OFF + 2, gy, gx]
        x, y = (gx + 0.5 + float(ox)) * k, (gy + 0.5 + float(oy)) * k
        down = _unit(*(float(c) for c in loc[CH_IDX_DOWN : CH_IDX_DOWN + 2, gy, gx]))
        h = H_REF * math.exp(float(np.clip(loc[CH_IDX_LOGH, gy, gx], -4, 4))) / scale
        cx, cy = (float(c) for c in loc[CH_IDX_CTR : CH_IDX_CTR + 2, gy, gx])
        out.append(IndexPeak(x, y, down, h, (x + cx * h, y + cy * h), v))
    return out


def suppress_duplicates(peaks: list[IndexPeak], radius: float = 0.07) -> list[IndexPeak]:
    """One peak per index corner: a weaker peak within ``radius`` card heights of a stronger
    one that faces the same way is the same corner seen twice (copies of a card in a fan
    sit further apart than that)."""
    kept: list[IndexPeak] = []
    for p in sorted(peaks, key=lambda q: -q.heat):
        if not any(
            math.dist((p.x, p.y), (k.x, k.y)) < radius * min(p.height, k.height)
            and p.down[0] * k.down[0] + p.down[1] * k.down[1] > 0.7
            for k in kept
        ):
            kept.append(p)
    return kept


def tile_boxes(w: int, h: int, grid: int, overlap: float = TILE_OVERLAP) -> list[Tile]:
    """``grid``×``grid`` tiles covering a w×h frame, neighbours sharing ``overlap`` of the
    frame's side (a small card cut by one tile is whole in the next). Each tile comes with
    its *core*: the part it answers for, up to the middle of each overlap, so the cores
    partition the frame and no corner is counted by two tiles."""

    def spans(n: int) -> list[tuple[int, int, int, int]]:
        if grid <= 1:
            return [(0, n, -_FAR, _FAR)]
        size = n * (1 + (grid - 1) * overlap) / grid
        step = (n - size) / (grid - 1)
        lo = [round(i * step) for i in range(grid)]
        hi = [min(n, round(i * step + size)) for i in range(grid)]
        cuts = [-_FAR, *((hi[i] + lo[i + 1]) // 2 for i in range(grid - 1)), _FAR]
        return [(lo[i], hi[i], cuts[i], cuts[i + 1]) for i in range(grid)]

    return [
        Tile((x0, y0, x1, y1), (cx0, cy0, cx1, cy1))
        for y0, y1, cy0, cy1 in spans(h)
        for x0, x1, cx0, cx1 in spans(w)
    ]


def decode_backs(loc: np.ndarray, scale: float, t: Thresholds) -> list[Detection]:
    """Face-down cards: centre peaks with a 180°-symmetric angle and a size."""
    out: list[Detection] = []
    k = LOC_STRIDE / scale
    for gy, gx, v in _peaks(loc[CH_BACK_HEAT], t.back_heat, t.max_peaks):
        ox, oy = loc[CH_BACK_OFF : CH_BACK_OFF + 2, gy, gx]
        x, y = (gx + 0.5 + float(ox)) * k, (gy + 0.5 + float(oy)) * k
        c2, s2 = (float(c) for c in loc[CH_BACK_ANG2 : CH_BACK_ANG2 + 2, gy, gx])
        ang = math.atan2(s2, c2) / 2  # angle of the card's down vector from +y, mod 180°
        down = (-math.sin(ang), math.cos(ang))
        h = H_REF * math.exp(float(np.clip(loc[CH_BACK_LOGH, gy, gx], -4, 4))) / scale
        out.append(Detection(BACK, v, card_quad((x, y), down, h)))
    return merge_backs(out)


def merge_backs(backs: list[Detection]) -> list[Detection]:
    """One detection per face-down card: a weaker centre within 0.3 card heights of a
    stronger one is the same card seen twice (by one view or by two)."""
    out: list[Detection] = []
    for d in sorted(backs, key=lambda b: -b.score):
        c, h = _centre(d.quad), _height(d.quad)
        if not any(math.dist(c, _centre(k.quad)) < 0.3 * min(h, _height(k.quad)) for k in out):
            out.append(d)
    return out


def _centre(quad: tuple[tuple[float, float], ...]) -> tuple[float, float]:
    return sum(x for x, _ in quad) / 4, sum(y for _, y in quad) / 4


def _height(quad: tuple[tuple[float, float], ...]) -> float:
    return math.dist(quad[0], quad[3])


def geo_centre(p: IndexPeak) -> tuple[float, float]:
    """The centre of a card of the standard shape whose index anchor is at ``p``."""
    dx, dy = p.down
    rx, ry = dy, -dx
    a, b = (CARD_ASPECT / 2 - ANCHOR_X) * p.height, (0.5 - ANCHOR_Y) * p.height
    return p.x + a * rx + b * dx, p.y + a * ry + b * dy


def group_cards(
    peaks: list[IndexPeak], labels: list[str], scores: list[float], t: Thresholds
) -> list[Detection]:
    """Index corners → physical cards.

    Two corners are one card only when they read the same face, sit at opposite ends of it
    (their "down" vectors point against each other) and put the card's centre at nearly the
    same place: by the centre they regress, or by where a card of the standard shape would
    have it (the surer of the two on small cards); two same-side corners of one face are
    always two copies (a fan of a pair)."""
    items = [
        (p, lab, sc)
        for p, lab, sc in zip(peaks, labels, scores, strict=True)
        if lab != NONE and sc >= t.card_score
    ]
    used = [False] * len(items)
    pairs: list[tuple[float, int, int]] = []
    for i, (p, lab, _) in enumerate(items):
        for j in range(i + 1, len(items)):
            q, lab2, _ = items[j]
            if lab2 != lab or p.down[0] * q.down[0] + p.down[1] * q.down[1] > -0.5:
                continue
            d = min(math.dist(p.centre, q.centre), math.dist(geo_centre(p), geo_centre(q)))
            if d < t.pair_radius * min(p.height, q.height):
                pairs.append((d, i, j))
    out: list[Detection] = []
    for _, i, j in sorted(pairs):
        if used[i] or used[j]:
            continue
        used[i] = used[j] = True
        (p, lab, s1), (q, _, s2) = items[i], items[j]
        centre = ((p.centre[0] + q.centre[0]) / 2, (p.centre[1] + q.centre[1]) / 2)
        down = _unit(p.down[0] - q.down[0], p.down[1] - q.down[1])
        out.append(Detection(lab, max(s1, s2), card_quad(centre, down, (p.height + q.height) / 2)))
    for i, (p, lab, sc) in enumerate(items):
        if not used[i]:
            out.append(Detection(lab, sc, card_quad(p.centre, p.down, p.height)))
    return out


def read_corners(peaks: list[IndexPeak], probs: np.ndarray, t: Thresholds) -> list[Detection]:
    """Classified index corners (their probabilities) → the faces they show, as cards."""
    best = probs.argmax(axis=1) if len(peaks) else np.zeros(0, np.int64)
    labels = [CLASSES[int(i)] for i in best]
    scores = [float(probs[k, int(i)]) for k, i in enumerate(best)]
    return group_cards(peaks, labels, scores, t)


def _thresholds_of(session: object) -> Thresholds:
    """Thresholds stored in the model's metadata by ``models.calibrate`` (else defaults)."""
    meta = session.get_modelmeta().custom_metadata_map  # type: ignore[attr-defined]
    base = Thresholds()
    vals: dict[str, float | int] = {}
    for name in (f.name for f in fields(Thresholds) if f.name != "max_peaks"):
        if name in meta:
            try:
                vals[name] = float(meta[name])
            except ValueError:
                log.error("model metadata %s=%r is not a number; default kept", name, meta[name])
    return replace(base, **vals)  # type: ignore[arg-type]


def _crop_size_of(session: object) -> tuple[int, int]:
    """The classifier input (w, h) the model was exported with (40×28 up to v2)."""
    crops = next(i for i in session.get_inputs() if i.name == "crops")  # type: ignore[attr-defined]
    h, w = crops.shape[2:4]
    if isinstance(h, int) and isinstance(w, int):
        return w, h
    return CROP_W, CROP_H


class ModelError(RuntimeError):
    """The ONNX model file is missing or is not a card model."""


class CardDetector:
    """``CardDetector(model_path).detect(bgr) -> list[Detection]``: one per physical card."""

    def __init__(
        self,
        model_path: str | Path = DEFAULT_MODEL,
        thresholds: Thresholds | None = None,
        *,
        tiles: int = DEFAULT_TILES,
        tile_max_h: float = TILE_MAX_H,
        tile_gate: bool = True,
        tile_backs: bool = False,
        threads: int | None = None,
    ) -> None:
        """``tiles``: the localiser also sees the frame as ``tiles``×``tiles`` overlapping
        tiles, each at its full input size (small cards seen at that many times the
        scale; 1: the whole frame only), for cards under ``tile_max_h`` pixels tall in the
        whole frame's localiser input, and (``tile_gate``) only on frames where the whole
        view sees such a card; ``tile_backs``: face-down cards from tiles too.
        ``threads``: onnxruntime's threads (None: its default, every core)."""
        import onnxruntime as ort

        path = Path(model_path)
        if not path.is_file():
            raise ModelError(f"model {path}: no such file (train with models/train.py)")
        if not 1 <= tiles <= 4:
            raise ValueError(f"tiles {tiles}: expected 1..4")
        self.tiles, self.tile_max_h = tiles, tile_max_h
        self.tile_gate, self.tile_backs = tile_gate, tile_backs
        opts = ort.SessionOptions()
        opts.log_severity_level = 3
        if threads is not None:
            opts.intra_op_num_threads = threads
            opts.inter_op_num_threads = 1
        try:
            self._session = ort.InferenceSession(
                str(path), sess_options=opts, providers=["CPUExecutionProvider"]
            )
        except Exception as e:  # onnxruntime raises its own exception types
            raise ModelError(f"model {path}: cannot be loaded by onnxruntime: {e}") from None
        names = {i.name for i in self._session.get_inputs()}
        if names != {"image", "crops"}:
            raise ModelError(f"model {path}: inputs {sorted(names)}, expected image and crops")
        self.thresholds = thresholds or _thresholds_of(self._session)
        self.crop_size = _crop_size_of(self._session)
        self._dummy_image = np.zeros((1, 3, LOC_PAD, LOC_PAD), np.float32)
        self._dummy_crops = np.zeros((1, 3, self.crop_size[1], self.crop_size[0]), np.float32)

    def localise(self, bgr: np.ndarray) -> tuple[np.ndarray, float]:
        """Raw localiser output (14×h×w) for a frame and the frame→input scale."""
        x, s = loc_input(bgr)
        (loc,) = self._session.run(["loc"], {"image": x, "crops": self._dummy_crops})
        return loc[0], s

    def classify(self, bgr: np.ndarray, peaks: list[IndexPeak]) -> np.ndarray:
        """Class probabilities (N×55) of the index crops at ``peaks``: the geometric mean
        over crops at ``TTA_SCALES`` of the localiser's card height, which is only an
        estimate (one batch through the classifier)."""
        if not peaks:
            return np.zeros((0, len(CLASSES)), np.float32)
        pyramid: list[np.ndarray] = []
        crops = np.stack(
            [
                crop_index(bgr, replace(p, height=p.height * k), pyramid, self.crop_size)
                for k in TTA_SCALES
                for p in peaks
            ]
        )
        x = np.ascontiguousarray(crops.transpose(0, 3, 1, 2), dtype=np.float32)
        (probs,) = self._session.run(["cls"], {"image": self._dummy_image, "crops": x})
        logp = np.log(np.asarray(probs, np.float64) + 1e-6).reshape(len(TTA_SCALES), len(peaks), -1)
        p = np.exp(logp.mean(0))
        return np.asarray(p / p.sum(1, keepdims=True), np.float32)

    def detect_region(
        self, bgr: np.ndarray, box: tuple[int, int, int, int], card_score: float | None = None
    ) -> list[Detection]:
        """The cards in one part ``(x0, y0, x1, y1)`` of a frame, in frame pixels. The
        localiser sees a small region at a larger scale than the whole frame, so small
        cards (a table seen from above) are found more surely; the classifier reads the
        frame's own pixels either way. ``card_score``: as in ``detect``."""
        x0, y0, x1, y1 = box
        h, w = bgr.shape[:2]
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
        if x1 - x0 < 8 or y1 - y0 < 8:
            return []
        found = self.detect(np.ascontiguousarray(bgr[y0:y1, x0:x1]), card_score)
        return [replace(d, quad=tuple((x + x0, y + y0) for x, y in d.quad)) for d in found]

    def detect(self, bgr: np.ndarray, card_score: float | None = None) -> list[Detection]:
        """Every card in a BGR uint8 frame (any size; the whole frame is analysed).

        ``card_score`` replaces the model's floor under which a read face is dropped: the
        live pipeline lowers it to name a card it saw land but could not read surely (the
        weak read goes to a referee, never into the record as a fact)."""
        if not isinstance(bgr, np.ndarray) or bgr.ndim != 3 or bgr.shape[2] != 3:
            shape = getattr(bgr, "shape", None)
            raise ValueError(f"frame: expected a BGR image (H×W×3 uint8), got shape {shape}")
        if bgr.dtype != np.uint8:
            raise ValueError(f"frame: expected dtype uint8, got {bgr.dtype}")
        t = (
            self.thresholds
            if card_score is None
            else replace(self.thresholds, card_score=card_score)
        )
        peaks, backs = self.find(bgr, t)
        return read_corners(peaks, self.classify(bgr, peaks), t) + backs

    def find(self, bgr: np.ndarray, t: Thresholds) -> tuple[list[IndexPeak], list[Detection]]:
        """Index-corner peaks (one per corner) and face-down cards of a frame: from the whole
        frame, and with ``tiles`` > 1 from each tile too, each tile answering for its core
        only; a corner or back seen by two views is kept once (the stronger)."""
        loc, s = self.localise(bgr)
        peaks, backs = decode_indices(loc, s, t), decode_backs(loc, s, t)
        # tiles answer for the cards the whole view sees too small; bigger ones come out of
        # a tile larger than the localiser was trained on (sizes and peaks astray). They
        # run only where the whole view sees small cards at all (a close-up never pays)
        small = self.tile_max_h / s
        if self.tiles > 1 and (not self.tile_gate or _sees_small(loc, s, t, small)):
            h, w = bgr.shape[:2]
            for tile in tile_boxes(w, h, self.tiles):
                x0, y0, x1, y1 = tile.box
                loc, ts = self.localise(np.ascontiguousarray(bgr[y0:y1, x0:x1]))
                for p in decode_indices(loc, ts, t):
                    q = _shift_peak(p, x0, y0)
                    if q.height < small and tile.owns(q.x, q.y):
                        peaks.append(q)
                for d in decode_backs(loc, ts, t) if self.tile_backs else ():
                    quad = tuple((x + x0, y + y0) for x, y in d.quad)
                    if _height(quad) < small and tile.owns(*_centre(quad)):
                        backs.append(replace(d, quad=quad))
            backs = merge_backs(backs)
        return suppress_duplicates(peaks, t.dup_radius), backs


def _sees_small(loc: np.ndarray, scale: float, t: Thresholds, small: float) -> bool:
    """Whether the whole view holds an index corner (at half the heat threshold) of a card
    under ``small`` pixels tall: the sign that tiles are worth their time."""
    weak = replace(t, index_heat=t.index_heat / 2, max_peaks=64)
    return any(p.height < small for p in decode_indices(loc, scale, weak))


def _shift_peak(p: IndexPeak, dx: float, dy: float) -> IndexPeak:
    c = (p.centre[0] + dx, p.centre[1] + dy)
    return IndexPeak(p.x + dx, p.y + dy, p.down, p.height, c, p.heat)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m vision.detect", description="Detect playing cards in images."
    )
    ap.add_argument("images", nargs="+", metavar="IMAGE")
    ap.add_argument("--json", action="store_true", help="print one JSON list (the only format)")
    ap.add_argument("--model", default=str(DEFAULT_MODEL), help="ONNX model path")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        det = CardDetector(args.model)
    except ModelError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    results: list[dict[str, object]] = []
    failed = 0
    for path in args.images:
        img = cv2.imread(path, cv2.IMREAD_COLOR)
        if img is None:
            failed += 1
            msg = f"image {path}: cannot be read as an image"
            log.error(msg)
            results.append({"image": path, "error": msg, "cards": []})
            continue
        results.append({"image": path, "cards": [d.to_json() for d in det.detect(img)]})
    print(json.dumps(results))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
