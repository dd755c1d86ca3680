"""The tournament's own deck: cut its 54 faces (and a back) from one photo of them laid out
in a grid, or from its scans, into renders the scene composer can use.

Why: a tournament plays every table with one deck, and a reader tuned on that deck's own
faces reads it far better than one that has only seen other designs. The organiser lays
the faces in ``LAYOUT_ORDER`` (``tablescan deck order`` prints it) on a plain cloth that
contrasts with the cards, in ``LAYOUT_ROWS`` rows, and photographs them from above; each
card is found as a bright quadrilateral, the quads are sorted into rows and columns, and
each is warped upright to ``SRC_HEIGHT`` pixels. A scan folder holds one image per face
named by it (``7C.png``, ``BJ.jpg``, ``back.png``).

The enrolled deck is written like a render pack (``models/pack_renders.py``, split
``enrolled``), so training composes scenes from it as from any design.
"""

from __future__ import annotations

import io
import json
import math
import tarfile
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.synth.decks import BACK, CARD_NAMES, index_corners
from vision.synth.scene import SRC_HEIGHT

#: The order the faces are laid out, row by row (9 a row): suit by suit, jokers, the back.
LAYOUT_ORDER: tuple[str, ...] = (*CARD_NAMES, BACK)
LAYOUT_COLS = 9
LAYOUT_ROWS = math.ceil(len(LAYOUT_ORDER) / LAYOUT_COLS)  # 7 rows; the last holds 1
CARD_ASPECT = 0.7


class EnrollError(ValueError):
    """The layout photo or the scans do not give the deck's faces."""


@dataclass(frozen=True, slots=True)
class Cut:
    card: str
    image: np.ndarray  # BGRA, SRC_HEIGHT tall, upright
    printed: tuple[bool, bool]  # an index at the top-left / bottom-right corner


def _order_quad(pts: np.ndarray) -> np.ndarray:
    """Corners as top-left, top-right, bottom-right, bottom-left of an upright card (the
    longer sides vertical)."""
    c = pts.mean(0)
    ang = np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0])
    p = pts[np.argsort(ang)]  # clockwise in image coordinates, from the left
    start = int(np.argmin(p.sum(1)))  # nearest the top-left
    p = np.roll(p, -start, axis=0)
    if np.linalg.norm(p[1] - p[0]) > np.linalg.norm(p[3] - p[0]):  # lying: turn a quarter
        p = np.roll(p, -1, axis=0)
    return p.astype(np.float32)


def find_cards(bgr: np.ndarray, expect: int) -> list[np.ndarray]:
    """The ``expect`` largest bright card-shaped quadrilaterals of a layout photo."""
    grey = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY)
    grey = cv2.GaussianBlur(grey, (5, 5), 0)
    _, mask = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    quads: list[tuple[float, np.ndarray]] = []
    for c in contours:
        area = cv2.contourArea(c)
        if area < 0.2 * bgr.shape[0] * bgr.shape[1] / (expect * 8):
            continue
        (_, _), (w, h), _ = cv2.minAreaRect(c)
        if min(w, h) == 0 or not 0.55 <= min(w, h) / max(w, h) <= 0.85:
            continue
        if area / (w * h) < 0.85:  # not a filled rectangle (two cards touching, a hand)
            continue
        quads.append((area, cv2.boxPoints(cv2.minAreaRect(c))))
    quads.sort(key=lambda q: -q[0])
    if len(quads) < expect:
        raise EnrollError(
            f"layout: found {len(quads)} separate cards, expected {expect} "
            "(lay them apart on a plain cloth darker than the cards)"
        )
    big = [q for _, q in quads[:expect]]
    sizes = [q[0] for q in quads[:expect]]
    if min(sizes) < 0.5 * float(np.median(sizes)):
        raise EnrollError("layout: the cards found differ in size by more than 2x")
    return [_order_quad(q) for q in big]


def grid_order(quads: list[np.ndarray], cols: int) -> list[np.ndarray]:
    """Quads sorted into rows (top to bottom) of ``cols``, each row left to right."""
    centres = np.array([q.mean(0) for q in quads])
    by_y = np.argsort(centres[:, 1])
    out: list[np.ndarray] = []
    for r in range(0, len(quads), cols):
        row = sorted(by_y[r : r + cols], key=lambda i: centres[i, 0])
        out.extend(quads[i] for i in row)
    return out


def rectify(bgr: np.ndarray, quad: np.ndarray, height: int = SRC_HEIGHT) -> np.ndarray:
    """One card warped upright to ``height`` pixels (BGRA, opaque)."""
    w = round(height * CARD_ASPECT)
    dst = np.array([[0, 0], [w - 1, 0], [w - 1, height - 1], [0, height - 1]], np.float32)
    m = cv2.getPerspectiveTransform(quad, dst)
    face = cv2.warpPerspective(bgr, m, (w, height), flags=cv2.INTER_AREA)
    return cv2.cvtColor(face, cv2.COLOR_BGR2BGRA)


def cut_layout(bgr: np.ndarray, order: tuple[str, ...] = LAYOUT_ORDER) -> list[Cut]:
    """Every face of a layout photo, named by its place in ``order``."""
    quads = grid_order(find_cards(bgr, len(order)), LAYOUT_COLS)
    cuts = []
    for card, q in zip(order, quads, strict=True):
        img = rectify(bgr, q)
        cuts.append(Cut(card, img, index_corners(img) if card != BACK else (False, False)))
    return cuts


def cut_scans(folder: Path) -> list[Cut]:
    """One scan per face, named by it (any of .png .jpg .jpeg), resized to SRC_HEIGHT."""
    cuts = []
    for card in LAYOUT_ORDER:
        found = [p for ext in (".png", ".jpg", ".jpeg") if (p := folder / f"{card}{ext}").exists()]
        if not found:
            continue
        img = cv2.imread(str(found[0]), cv2.IMREAD_UNCHANGED)
        if img is None:
            raise EnrollError(f"scan {found[0]}: cannot be read as an image")
        if img.ndim == 2:
            img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGRA)
        elif img.shape[2] == 3:
            img = cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)
        if img.shape[1] > img.shape[0]:
            img = cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE)
        w = round(img.shape[1] * SRC_HEIGHT / img.shape[0])
        img = cv2.resize(img, (w, SRC_HEIGHT), interpolation=cv2.INTER_AREA)
        cuts.append(Cut(card, img, index_corners(img) if card != BACK else (False, False)))
    faces = sum(c.card != BACK for c in cuts)
    if faces < 20:
        raise EnrollError(f"scans in {folder}: {faces} faces named like 7C.png, need 20 or more")
    return cuts


def write_enrolled(cuts: list[Cut], name: str, out: Path) -> Path:
    """The enrolled deck as a render pack (split ``enrolled``), plus each face as a PNG
    beside it for the organiser to check."""
    out.mkdir(parents=True, exist_ok=True)
    tar_path = out / "renders-enrolled.tar"
    folder = "enrolled_" + "".join(ch if ch.isalnum() else "_" for ch in name)
    entry = {
        "name": f"enrolled/{name}",
        "package": "enrolled",
        "scheme": "enrolled",
        "folder": folder,
        "cards": sorted(c.card for c in cuts),
        "printed": {c.card: list(c.printed) for c in cuts},
    }
    manifest = {"split": "enrolled", "height": SRC_HEIGHT, "decks": [entry]}
    with tarfile.open(tar_path, "w") as tar:
        for c in cuts:
            ok, buf = cv2.imencode(".png", c.image)
            if not ok:
                raise EnrollError(f"face {c.card}: PNG encoding failed")
            data = buf.tobytes()
            info = tarfile.TarInfo(f"{folder}/{c.card}.png")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
            cv2.imwrite(str(out / f"{c.card}.png"), c.image)
        blob = json.dumps(manifest, indent=1).encode()
        info = tarfile.TarInfo("manifest.json")
        info.size = len(blob)
        tar.addfile(info, io.BytesIO(blob))
    return tar_path
