"""The tournament's own deck enrolled through the table camera (issue 26, item 5).

Why: enrolling from phone photos of another deck made the reader worse, and a deck's own
scans show it as no table camera does. So the organiser lays the 54 faces on the table in
``CAPTURE_LAYOUTS`` (three layouts of 18, rows of ``CAPTURE_COLS``, the first row at the
top of the camera's picture; ``tablescan deck order --captures`` prints them) and saves one
or more frames of each from the table's own camera (a file per frame, its name starting
with the layout's number: ``1.png``, ``1-lamp.jpg``, ``2.png``, ...).

Each capture is read with the *shipped localiser*: its index peaks are grouped into cards
by the centres they regress, the cards sorted into the layout's grid, and every peak at one
of a card's two index corners is labelled with the card that lies there (a peak elsewhere
on a card is left out; one far from every card is a hard negative). That gives

- a bank of crops cut at the localiser's own peak geometry (jittered as
  ``models.runtime_train`` jitters them), labelled by the layout: what the runtime will see
  of this deck through this camera;
- each face cut upright from the capture where it is largest, written as a render pack
  (split ``enrolled``) from which ``models.runtime_train`` composes scenes of this deck.

``tablescan deck enroll --captures DIR --finetune-minutes M`` then tunes the classifier on
both (``models.runtime_train --pack ... --capture-bank ...``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from pathlib import Path
from statistics import median

import cv2
import numpy as np

import vision.detect as D
from models.enroll import Cut, EnrollError, rectify
from vision.synth.decks import CARD_NAMES, index_corners

CAPTURE_COLS = 6
CAPTURE_SIZE = 18
CAPTURE_LAYOUTS: tuple[tuple[str, ...], ...] = tuple(
    tuple(CARD_NAMES[i : i + CAPTURE_SIZE]) for i in range(0, len(CARD_NAMES), CAPTURE_SIZE)
)
JITTERS = 6  # crops per labelled peak, each jittered anew
SLOT_R = 0.35  # peaks whose regressed centres lie this many card heights apart: one card
INDEX_R = 0.15  # a peak this close (card heights) to a card's index anchor is that index
GRID_R = 0.4  # a card's centre this many card heights from its row / column: in it
NEG_R = 1.0  # a peak further than this from every card centre is on the table: a negative
MIN_DISAGREE = 3  # sure reads against the layout before a capture can be refused for them
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")


class CaptureError(EnrollError):
    """A capture does not show its layout as laid out."""


@dataclass(frozen=True, slots=True)
class Slot:
    """One card of a capture as the localiser sees it."""

    card: str
    centre: tuple[float, float]
    down: tuple[float, float]
    height: float
    corners: int = 0  # index corners named on it, each facing its own way (0 to 2)


@dataclass(frozen=True, slots=True)
class CaptureRead:
    """What one capture gave: its layout, the median card height in frame pixels, the
    labelled and negative crops it adds, and its slots (for the upright faces)."""

    path: str
    layout: int
    card_px: float
    faces: int
    negatives: int
    slots: tuple[Slot, ...]
    agree: int = 0  # the model's sure reads of named corners that say what the layout says
    disagree: int = 0  # ... and those that read another face there


def layout_number(path: Path) -> int:
    """The layout a capture shows, from the number its file name starts with."""
    m = re.match(r"(\d+)", path.name)
    if m is None or not 1 <= int(m.group(1)) <= len(CAPTURE_LAYOUTS):
        raise CaptureError(
            f"capture {path}: its name must start with the layout's number "
            f"(1 to {len(CAPTURE_LAYOUTS)}, e.g. 1.png or 2-lamp.jpg)"
        )
    return int(m.group(1))


def capture_files(folder: Path) -> list[Path]:
    """The captures of a folder, in name order; every layout must have one."""
    if not folder.is_dir():
        raise CaptureError(f"captures {folder}: no such folder")
    files = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    have = {layout_number(p) for p in files}
    missing = [n for n in range(1, len(CAPTURE_LAYOUTS) + 1) if n not in have]
    if missing:
        raise CaptureError(
            f"captures {folder}: no capture of layout {', '.join(map(str, missing))} "
            "(tablescan deck order --captures shows the layouts)"
        )
    return files


def _anchors(s: Slot) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """The two index anchors of a card of the standard shape and their "down" vectors."""
    dx, dy = s.down
    rx, ry = dy, -dx
    a = (D.CARD_ASPECT / 2 - D.ANCHOR_X) * s.height
    b = (0.5 - D.ANCHOR_Y) * s.height
    cx, cy = s.centre
    tl = (cx - a * rx - b * dx, cy - a * ry - b * dy)
    br = (cx + a * rx + b * dx, cy + a * ry + b * dy)
    return [(tl, (dx, dy)), (br, (-dx, -dy))]


def _bands(values: list[float], want: int, spread: float) -> list[float]:
    """Centres of ``want`` 1-D clusters of ``values`` (Lloyd's iterations from evenly
    spaced quantiles), dropping values further than ``spread`` from every centre (a stray
    peak); empty when the clusters overlap or one is empty."""
    vs = np.sort(np.asarray(values, np.float64))
    if len(vs) < want:
        return []
    c = np.quantile(vs, (np.arange(want) + 0.5) / want)
    for _ in range(30):
        near = np.abs(vs[:, None] - c[None, :])
        k = near.argmin(1)
        keep = near.min(1) < 2 * spread
        if any(not np.any((k == j) & keep) for j in range(want)):
            return []
        c = np.array([np.median(vs[(k == j) & keep]) for j in range(want)])
    if want > 1 and float(np.diff(c).min()) < 2 * spread:
        return []
    return [float(x) for x in c]


def find_slots(
    peaks: list[D.IndexPeak],
    layout: tuple[str, ...],
    cols: int,
    where: str,
    weak: tuple[D.IndexPeak, ...] = (),
) -> list[Slot]:
    """The layout's cards from a capture's confident peaks. The peaks' regressed card
    centres are grouped into cards; the cards' centres, seen along the cards' own "down"
    and "right" axes, fall into the layout's rows and columns, and each grid place is named
    by the layout (row by row, the first at the top of the picture, each left to right).
    A place with no sure peak holds a card when a ``weak`` one (under the sure threshold)
    regresses its centre there. Anything but the layout's rows and columns, each place
    holding a card, is refused."""
    if not peaks:
        raise CaptureError(f"{where}: no card corner found (is the deck in view?)")
    ref = max(peaks, key=lambda q: q.heat).down
    dx = dy = 0.0
    for q in peaks:  # one "down" for the layout: the cards lie upright, +y in the picture
        sgn = 1.0 if q.down[0] * ref[0] + q.down[1] * ref[1] > 0 else -1.0
        dx, dy = dx + sgn * q.down[0], dy + sgn * q.down[1]
    n = math.hypot(dx, dy) or 1.0
    down = (dx / n, dy / n) if dy >= 0 else (-dx / n, -dy / n)
    right = (down[1], -down[0])
    h = float(median(q.height for q in peaks))
    groups: list[list[tuple[float, float]]] = []
    for q in sorted(peaks, key=lambda q: -q.heat):
        for g in groups:
            if math.dist(q.centre, np.mean(g, axis=0)) < SLOT_R * h:
                g.append(q.centre)
                break
        else:
            groups.append([q.centre])
    centres = [tuple(np.mean(g, axis=0).tolist()) for g in groups]
    along = [(c[0] * right[0] + c[1] * right[1], c[0] * down[0] + c[1] * down[1]) for c in centres]
    rows_n = math.ceil(len(layout) / cols)
    rows = _bands([v for _, v in along], rows_n, GRID_R * h)
    cols_at = _bands([u for u, _ in along], cols, GRID_R * D.CARD_ASPECT * h)
    if not rows or not cols_at:
        raise CaptureError(
            f"{where}: the {len(groups)} cards seen do not lie in {rows_n} rows of {cols} "
            "(lay them apart, face up, upright, every card whole in view, the first row at "
            "the top of the picture)"
        )
    place: dict[tuple[int, int], list[tuple[float, float]]] = {}
    for c, (u, v) in zip(centres, along, strict=True):
        r = min(range(rows_n), key=lambda k: abs(rows[k] - v))
        k = min(range(cols), key=lambda k: abs(cols_at[k] - u))
        if abs(rows[r] - v) < GRID_R * h and abs(cols_at[k] - u) < GRID_R * h:
            place.setdefault((r, k), []).append(c)
    for r, k in [(r, k) for r in range(rows_n) for k in range(cols) if (r, k) not in place]:
        u, v = cols_at[k], rows[r]
        at = (u * right[0] + v * down[0], u * right[1] + v * down[1])
        near = [q.centre for q in weak if math.dist(q.centre, at) < SLOT_R * h]
        if near:
            place[(r, k)] = near
    empty = [layout[r * cols + k] for r in range(rows_n) for k in range(cols)
             if r * cols + k < len(layout) and (r, k) not in place]  # fmt: skip
    if empty:
        raise CaptureError(
            f"{where}: no card seen where the layout has {' '.join(empty)} (every card of "
            "the layout in its place, face up and whole in view)"
        )
    slots = []
    for i, card in enumerate(layout):
        cx, cy = np.mean(place[divmod(i, cols)], axis=0).tolist()
        slots.append(Slot(card, (float(cx), float(cy)), down, h))
    return slots


def label_peaks(peaks: list[D.IndexPeak], slots: list[Slot]) -> list[int | None]:
    """Each peak's class: the card whose index anchor it sits on (facing that index's way),
    ``none`` far from every card, ``None`` (left out) anywhere else."""
    none = D.CLASSES.index(D.NONE)
    out: list[int | None] = []
    for p in peaks:
        label: int | None = None
        near = min(math.dist((p.x, p.y), s.centre) / s.height for s in slots)
        if near > NEG_R:
            label = none
        for s in slots:
            for xy, (dx, dy) in _anchors(s):
                if (
                    math.dist((p.x, p.y), xy) < INDEX_R * s.height
                    and p.down[0] * dx + p.down[1] * dy > 0.8
                ):
                    label = D.CLASSES.index(s.card)
        out.append(label)
    return out


def refine(slot: Slot, peaks: list[D.IndexPeak]) -> Slot:
    """A card's place from the index corners named on it: the localiser's peak positions
    are surer than the centres it regresses (a face is cut only from a card whose two
    corners were both named)."""
    if not peaks:
        return slot
    h = float(median(p.height for p in peaks))
    centres = [D.geo_centre(replace(p, height=h)) for p in peaks]
    ways = {p.down[0] * slot.down[0] + p.down[1] * slot.down[1] > 0 for p in peaks}
    cx, cy = np.mean(centres, axis=0).tolist()
    return Slot(slot.card, (float(cx), float(cy)), slot.down, h, len(ways))


def check_reads(
    img: np.ndarray,
    peaks: list[D.IndexPeak],
    named: list[int],
    det: D.CardDetector,
    where: str,
    layout_no: int,
) -> tuple[int, int]:
    """The model's sure reads of the named corners against the layout's names: (agree,
    disagree). Where most sure reads name other faces, the table holds another layout (or
    the cards in another order) and the capture is refused: the grid alone cannot tell."""
    if not peaks:
        return 0, 0
    probs = det.classify(img, peaks)
    best = probs.argmax(1)
    sure = probs[np.arange(len(peaks)), best] >= det.thresholds.sure_score
    agree = int(np.sum(sure & (best == np.asarray(named))))
    wrong = [
        (D.CLASSES[int(b)], D.CLASSES[n])
        for b, n, ok in zip(best, named, sure, strict=True)
        if ok and b != n
    ]
    if len(wrong) >= MIN_DISAGREE and len(wrong) > agree:
        seen = ", ".join(f"{r} where {n} belongs" for r, n in wrong[:4])
        raise CaptureError(
            f"{where}: the cards do not read as layout {layout_no} ({seen}; {agree} sure reads "
            "agree): lay that layout in its order"
        )
    return agree, len(wrong)


def read_capture(
    img: np.ndarray,
    layout_no: int,
    det: D.CardDetector,
    rng: np.random.Generator,
    where: str,
    jitters: int = JITTERS,
    neg_ratio: float = 0.3,
) -> tuple[list[np.ndarray], list[int], CaptureRead]:
    """One capture's labelled crops at the localiser's peaks (``jitters`` each) and what
    it gave."""
    from models.runtime_train import PEAK_HEAT, jittered_crop

    layout = CAPTURE_LAYOUTS[layout_no - 1]
    sure, _ = det.find(img, det.thresholds)
    t_low = replace(det.thresholds, index_heat=min(PEAK_HEAT, det.thresholds.index_heat))
    low, _ = det.find(img, t_low)
    slots = find_slots(sure, layout, CAPTURE_COLS, where, tuple(low))
    labels = label_peaks(low, slots)
    slots = [
        refine(s, [p for p, y in zip(low, labels, strict=True) if y == D.CLASSES.index(s.card)])
        for s in slots
    ]
    none = D.CLASSES.index(D.NONE)
    named = {i: y for i, y in enumerate(labels) if y is not None}
    faces = [i for i, y in named.items() if y != none]
    agree, disagree = check_reads(
        img, [low[i] for i in faces], [named[i] for i in faces], det, where, layout_no
    )
    negs = [i for i, y in named.items() if y == none]
    negs = [negs[int(i)] for i in rng.permutation(len(negs))[: round(len(faces) * neg_ratio) + 2]]
    xs: list[np.ndarray] = []
    ys: list[int] = []
    pyr: list[np.ndarray] = []
    for i in faces + negs:
        for _ in range(jitters):
            xs.append(jittered_crop(img, low[i], rng, pyr))
            ys.append(named[i])
    info = CaptureRead(
        where, layout_no, float(median(s.height for s in slots)), len(faces), len(negs),
        tuple(slots), agree, disagree,
    )  # fmt: skip
    return xs, ys, info


def upright_faces(captures: list[tuple[np.ndarray, CaptureRead]]) -> list[Cut]:
    """Each card cut upright at 320 px from the capture that shows it largest with both
    index corners named."""
    best: dict[str, tuple[float, np.ndarray, Slot]] = {}
    for img, info in captures:
        for s in info.slots:
            if s.corners == 2 and (s.card not in best or s.height > best[s.card][0]):
                best[s.card] = (s.height, img, s)
    cuts = []
    for card in CARD_NAMES:
        if card not in best:
            continue
        _, img, s = best[card]
        quad = np.array(D.card_quad(s.centre, s.down, s.height), np.float32)
        face = rectify(img, quad)
        cuts.append(Cut(card, face, index_corners(face)))
    return cuts


def enroll_captures(
    folder: Path, det: D.CardDetector, seed: int = 0, jitters: int = JITTERS
) -> tuple[np.ndarray, np.ndarray, list[Cut], list[CaptureRead], list[str]]:
    """Every capture of ``folder``: the crop bank (uint8 N×H×W×3, labels N), the upright
    faces, what each usable capture gave and why each other one was refused. A refused
    capture costs nothing but itself; a layout with no usable capture refuses the lot."""
    rng = np.random.default_rng(seed)
    xs: list[np.ndarray] = []
    ys: list[int] = []
    shots: list[tuple[np.ndarray, CaptureRead]] = []
    refused: list[str] = []
    for path in capture_files(folder):
        img = cv2.imread(str(path), cv2.IMREAD_COLOR)
        try:
            if img is None:
                raise CaptureError(f"capture {path}: cannot be read as an image")
            x, y, info = read_capture(
                img, layout_number(path), det, rng, f"capture {path}", jitters
            )
        except CaptureError as e:
            refused.append(str(e))
            continue
        xs.extend(x)
        ys.extend(y)
        shots.append((img, info))
    missing = sorted(set(range(1, len(CAPTURE_LAYOUTS) + 1)) - {i.layout for _, i in shots})
    if missing:
        raise CaptureError(
            "; ".join(refused)
            + f"; no usable capture of layout {', '.join(map(str, missing))}: take it again"
        )
    bank_x = np.stack(xs) if xs else np.zeros((0, D.CROP_H, D.CROP_W, 3), np.uint8)
    infos = [i for _, i in shots]
    return bank_x, np.asarray(ys, np.int64), upright_faces(shots), infos, refused
