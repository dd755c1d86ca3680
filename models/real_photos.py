"""Real photographs to learn from (issue 26, item 2): index-corner crops of a labelled photo
set, cut where the runtime would cut them, for ``models.train --real-bank``.

    PYTHONPATH=$PWD .venv/bin/python -m models.real_photos --root DATASET --out data/real/poker4.npz

The set: Roboflow "poker cards" v4 (workspace roboflow-jvuqo, project poker-cards-fmjio,
CC BY 4.0; "poker cards, Roboflow user, https://universe.roboflow.com/roboflow-jvuqo/
poker-cards-fmjio, CC BY 4.0"), as kept in GitHub farukalamai/realtime-poker-card-detection-jetson
at commit b4f4f13 (``datasets/poker-cards-4``; deleted at its HEAD). 354 source phone photos
of one deck on tables (train: each photo 1-3 times, randomly flipped; valid, test: 44 each),
stretched to 640×640, labelled with **whole-card** boxes of 52 faces (no jokers, no backs).
It is not ``shared/eval``'s CardCounterML set (another Roboflow project, other photos).

Whole-card boxes do not say where an index corner is, so the corners come from the shipped
localiser, as at run time: each of its peaks (heat ≥ ``PEAK_HEAT``) is given the face of the
labelled box that holds both the peak (within ``EDGE`` card heights of the box's edge:
an index is printed at the card's edge, pips and pictures are not) and the card centre the
peak predicts (the nearest box centre when several do); a peak no box holds, or two
boxes hold equally, is left out
(no "none" labels: cards in the background are not labelled in this set). Each kept peak
gives crops at the runtime's three TTA heights. The train split's flipped copies would
teach mirrored indices, so each source photo is used once, turned back: of its first copy's
four flips (none, H, V, both) the one whose labelled peaks v2 reads best is kept.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

import vision.detect as D

PEAK_HEAT = 0.3  # the runtime's own threshold: weaker peaks here sit mostly on pips
EDGE = 0.2  # an index lies within this many card heights of its card's box edge
SUIT_WORD = {"clubs": "C", "diamonds": "D", "hearts": "H", "spades": "S"}
RANK_WORD = {"ace": "A", "jack": "J", "queen": "Q", "king": "K"}


def card_of(name: str) -> str:
    """``'10 of clubs'`` → ``'10C'``, ``'jack  of clubs'`` → ``'JC'``."""
    m = re.fullmatch(r"\s*(\w+)\s+of\s+(\w+)\s*", name.lower())
    if m is None or m.group(2) not in SUIT_WORD:
        raise ValueError(f"class name {name!r}: not '<rank> of <suit>'")
    rank = RANK_WORD.get(m.group(1), m.group(1))
    card = rank + SUIT_WORD[m.group(2)]
    if card not in D.CLASSES:
        raise ValueError(f"class name {name!r}: {card} is not a face")
    return card


def read_names(data_yaml: Path) -> list[str]:
    """The ``names: [...]`` list of a Roboflow/YOLO ``data.yaml`` (no YAML parser needed)."""
    text = data_yaml.read_text()
    m = re.search(r"^names:\s*\[(.*)\]\s*$", text, re.M)
    if m is None:
        raise ValueError(f"{data_yaml}: no one-line names: [...] list")
    return [card_of(n.strip().strip("'\"")) for n in m.group(1).split(",")]


Box = tuple[float, float, float, float, int]  # x0, y0, x1, y1 (pixels), class id


def read_boxes(label: Path, names: list[str], w: int, h: int) -> list[Box]:
    out: list[Box] = []
    for line in label.read_text().split("\n"):
        parts = line.split()
        if len(parts) != 5:
            continue
        c, cx, cy, bw, bh = int(parts[0]), *(float(v) for v in parts[1:])
        out.append(
            (
                (cx - bw / 2) * w,
                (cy - bh / 2) * h,
                (cx + bw / 2) * w,
                (cy + bh / 2) * h,
                D.CLASSES.index(names[c]),
            )
        )
    return out


def flip_boxes(boxes: list[Box], w: int, h: int, fx: bool, fy: bool) -> list[Box]:
    out: list[Box] = []
    for x0, y0, x1, y1, c in boxes:
        if fx:
            x0, x1 = w - x1, w - x0
        if fy:
            y0, y1 = h - y1, h - y0
        out.append((x0, y0, x1, y1, c))
    return out


def _inside(b: Box, x: float, y: float, pad: float) -> bool:
    x0, y0, x1, y1, _ = b
    px, py = pad * (x1 - x0), pad * (y1 - y0)
    return x0 - px <= x <= x1 + px and y0 - py <= y <= y1 + py


def labelled_peaks(
    img: np.ndarray, boxes: list[Box], det: D.CardDetector
) -> list[tuple[D.IndexPeak, int]]:
    """The localiser's peaks of a photo with the face of the box that holds each."""
    t = replace(det.thresholds, index_heat=PEAK_HEAT)
    peaks, _ = det.find(img, t)
    out: list[tuple[D.IndexPeak, int]] = []
    for pk in peaks:
        cand = [
            b
            for b in boxes
            if _inside(b, pk.x, pk.y, 0.05)
            and _inside(b, *pk.centre, 0.15)
            and min(pk.x - b[0], b[2] - pk.x, pk.y - b[1], b[3] - pk.y) < EDGE * pk.height
        ]
        if not cand:
            continue
        dist = sorted(
            (math.dist(pk.centre, ((b[0] + b[2]) / 2, (b[1] + b[3]) / 2)), b[4]) for b in cand
        )
        if len(dist) > 1 and dist[1][0] < 1.5 * dist[0][0] and dist[1][1] != dist[0][1]:
            continue  # two boxes hold it about equally: ambiguous
        out.append((pk, dist[0][1]))
    return out


def _score(img: np.ndarray, boxes: list[Box], det: D.CardDetector) -> float:
    lp = labelled_peaks(img, boxes, det)
    if not lp:
        return 0.0
    probs = det.classify(img, [p for p, _ in lp])
    return float(sum(probs[i, c] for i, (_, c) in enumerate(lp)))


def photo_crops(
    img: np.ndarray, boxes: list[Box], det: D.CardDetector
) -> tuple[list[np.ndarray], list[int]]:
    """Crops at each labelled peak at the runtime's three heights."""
    xs: list[np.ndarray] = []
    ys: list[int] = []
    pyr: list[np.ndarray] = []
    for pk, c in labelled_peaks(img, boxes, det):
        for k in D.TTA_SCALES:
            xs.append(D.crop_index(img, replace(pk, height=pk.height * k), pyr))
            ys.append(c)
    return xs, ys


def build(
    root: Path, model: Path = D.DEFAULT_MODEL
) -> tuple[np.ndarray, np.ndarray, dict[str, int]]:
    """Every split of a YOLO-format set under ``root`` → (crops, labels, counts)."""
    names = read_names(root / "data.yaml")
    det = D.CardDetector(model, threads=1)
    xs: list[np.ndarray] = []
    ys: list[int] = []
    counts: dict[str, int] = {}
    seen: set[str] = set()
    for split in ("train", "valid", "test"):
        for p in sorted((root / split / "images").glob("*.jpg")):
            source = p.name.split("_jpg.rf.")[0]
            if source in seen:
                continue  # one copy of each source photo
            seen.add(source)
            read = cv2.imread(str(p), cv2.IMREAD_COLOR)
            label = root / split / "labels" / (p.stem + ".txt")
            if read is None or not label.is_file():
                continue
            img: np.ndarray = read
            h, w = img.shape[:2]
            boxes = read_boxes(label, names, w, h)
            if split == "train":  # turned back: the flip v2 reads best
                best = max(
                    ((fx, fy) for fx in (False, True) for fy in (False, True)),
                    key=lambda f: _score(_flip(img, *f), flip_boxes(boxes, w, h, *f), det),
                )
                img, boxes = _flip(img, *best), flip_boxes(boxes, w, h, *best)
                counts[f"flip {best}"] = counts.get(f"flip {best}", 0) + 1
            cx, cy = photo_crops(img, boxes, det)
            xs.extend(cx)
            ys.extend(cy)
            counts[split] = counts.get(split, 0) + 1
    counts["crops"] = len(ys)
    return np.stack(xs), np.asarray(ys, np.int64), counts


def _flip(img: np.ndarray, fx: bool, fy: bool) -> np.ndarray:
    if fx and fy:
        return np.ascontiguousarray(img[::-1, ::-1])
    if fx:
        return np.ascontiguousarray(img[:, ::-1])
    if fy:
        return np.ascontiguousarray(img[::-1])
    return img


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m models.real_photos", description=__doc__)
    ap.add_argument("--root", type=Path, required=True, help="folder with data.yaml")
    ap.add_argument("--out", type=Path, default=Path("data/real/poker4.npz"))
    ap.add_argument("--model", type=Path, default=D.DEFAULT_MODEL)
    args = ap.parse_args(argv)
    x, y, counts = build(args.root, args.model)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(args.out, x=x, y=y)
    print(f"wrote {args.out}: {len(y)} crops of {len(set(y.tolist()))} faces; {counts}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
