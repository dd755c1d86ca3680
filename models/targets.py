"""Training targets from composer labels: localiser maps and classifier crops.

Both read the JSON written by ``vision.synth.dataset`` and use the geometry constants of
``vision.detect``, so what the model learns is exactly what the runtime decodes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from vision.detect import (
    CH_BACK_ANG2,
    CH_BACK_LOGH,
    CH_BACK_OFF,
    CH_IDX_CTR,
    CH_IDX_DOWN,
    CH_IDX_LOGH,
    CH_IDX_OFF,
    CLASSES,
    H_REF,
    LOC_CHANNELS,
    LOC_STRIDE,
    NONE,
    IndexPeak,
    crop_index,
)
from vision.synth.scene import BACK_VIS_NEG, BACK_VIS_POS, INDEX_VIS_NEG, INDEX_VIS_POS

CLASS_ID = {c: i for i, c in enumerate(CLASSES)}


@dataclass(slots=True)
class LocTarget:
    """Per-cell targets on the stride-4 grid: heat (2), ignore mask (2), regression values
    and a regression mask for the index and back channel groups."""

    heat: np.ndarray  # 2×h×w (index, back)
    weight: np.ndarray  # 2×h×w: 0 where the heat loss ignores a cell
    reg: np.ndarray  # 14×h×w (only regression channels used)
    reg_mask: np.ndarray  # 2×h×w (index, back)


def _splat(heat: np.ndarray, weight: np.ndarray | None, x: float, y: float, sigma: float) -> None:
    h, w = heat.shape
    r = math.ceil(3 * sigma)
    cx, cy = int(x), int(y)
    x0, x1, y0, y1 = max(0, cx - r), min(w, cx + r + 1), max(0, cy - r), min(h, cy + r + 1)
    if x0 >= x1 or y0 >= y1:
        return
    ys, xs = np.mgrid[y0:y1, x0:x1]
    # centred on the cell holding the point, so that cell is exactly 1 (the focal loss's
    # positive); the sub-cell position is the offset regression's job
    g = np.exp(-((xs - cx) ** 2 + (ys - cy) ** 2) / (2 * sigma * sigma))
    if weight is None:
        np.maximum(heat[y0:y1, x0:x1], g, out=heat[y0:y1, x0:x1])
    else:
        weight[y0:y1, x0:x1][g > 0.05] = 0.0


def loc_target(
    labels: dict[str, Any], scale: float, gh: int, gw: int, dx: float = 0, dy: float = 0
) -> LocTarget:
    """Targets for an image scaled by ``scale`` then shifted by (dx, dy) pixels (crop)."""
    heat = np.zeros((2, gh, gw), np.float32)
    weight = np.ones((2, gh, gw), np.float32)
    reg = np.zeros((LOC_CHANNELS, gh, gw), np.float32)
    mask = np.zeros((2, gh, gw), np.float32)
    k = scale / LOC_STRIDE
    for card in labels["cards"]:
        if card["card"] == "back":
            v = card["visible"]
            cx = card["centre"][0] * scale + dx
            cy = card["centre"][1] * scale + dy
            h = card["height"] * scale
            gx, gy = cx / LOC_STRIDE, cy / LOC_STRIDE
            sigma = float(np.clip(0.05 * h / LOC_STRIDE, 0.7, 3.0))
            if v < BACK_VIS_NEG:
                continue
            if v < BACK_VIS_POS:
                _splat(heat[1], weight[1], gx, gy, sigma)
                continue
            _splat(heat[1], None, gx, gy, sigma)
            q = card["quad"]
            ddx, ddy = q[3][0] - q[0][0], q[3][1] - q[0][1]
            ang = math.atan2(-ddx, ddy)  # angle of the down vector from +y
            _reg_cells(
                reg,
                mask[1],
                gx,
                gy,
                gw,
                gh,
                CH_BACK_OFF,
                [
                    (CH_BACK_ANG2, math.cos(2 * ang)),
                    (CH_BACK_ANG2 + 1, math.sin(2 * ang)),
                    (CH_BACK_LOGH, math.log(max(h, 1.0) / H_REF)),
                ],
            )
            continue
        for ix in card["indices"]:
            v = ix["visible"]
            if v < INDEX_VIS_NEG:
                continue
            ax, ay = ix["xy"][0] * scale + dx, ix["xy"][1] * scale + dy
            h = ix["height"] * scale
            gx, gy = ax / LOC_STRIDE, ay / LOC_STRIDE
            sigma = float(np.clip(0.04 * h / LOC_STRIDE, 0.6, 3.0))
            if v < INDEX_VIS_POS:
                _splat(heat[0], weight[0], gx, gy, sigma)
                continue
            _splat(heat[0], None, gx, gy, sigma)
            hf = ix["height"]
            ctr = ((card["centre"][0] - ix["xy"][0]) / hf, (card["centre"][1] - ix["xy"][1]) / hf)
            _reg_cells(
                reg,
                mask[0],
                gx,
                gy,
                gw,
                gh,
                CH_IDX_OFF,
                [
                    (CH_IDX_DOWN, ix["down"][0]),
                    (CH_IDX_DOWN + 1, ix["down"][1]),
                    (CH_IDX_LOGH, math.log(max(h, 1.0) / H_REF)),
                    (CH_IDX_CTR, ctr[0]),
                    (CH_IDX_CTR + 1, ctr[1]),
                ],
            )
    # positives stay positive even inside another corner's ignore zone
    weight = np.maximum(weight, (heat > 0.3).astype(np.float32))
    del k
    return LocTarget(heat, weight, reg, mask)


def _reg_cells(
    reg: np.ndarray,
    mask: np.ndarray,
    gx: float,
    gy: float,
    gw: int,
    gh: int,
    ch_off: int,
    values: list[tuple[int, float]],
) -> None:
    """Regression targets on the 3×3 cells around a peak (offsets relative to each cell)."""
    cx, cy = int(gx), int(gy)
    for yy in range(cy - 1, cy + 2):
        for xx in range(cx - 1, cx + 2):
            if not (0 <= xx < gw and 0 <= yy < gh):
                continue
            centre_cell = xx == cx and yy == cy
            if mask[yy, xx] >= 2 and not centre_cell:
                continue
            reg[ch_off, yy, xx] = gx - (xx + 0.5)
            reg[ch_off + 1, yy, xx] = gy - (yy + 0.5)
            for ch, val in values:
                reg[ch, yy, xx] = val
            mask[yy, xx] = 2.0 if centre_cell else 1.0


def index_crops(
    img: np.ndarray,
    labels: dict[str, Any],
    rng: np.random.Generator,
    neg_ratio: float = 0.6,
) -> tuple[list[np.ndarray], list[int]]:
    """Classifier samples from one full-resolution scene: jittered crops of visible index
    corners (their face) and crops of everything else ("none")."""
    crops: list[np.ndarray] = []
    ys: list[int] = []
    anchors: list[tuple[float, float, float]] = []
    heights: list[float] = []
    pyr: list[np.ndarray] = []
    for card in labels["cards"]:
        heights.append(card["height"])
        for ix in card.get("indices", []):
            anchors.append((ix["xy"][0], ix["xy"][1], ix["height"]))
            if ix["visible"] < INDEX_VIS_POS:
                continue
            # a wide size jitter: other designs print the index bigger or smaller than the
            # training ones, and the localiser's height estimate is imperfect
            h = ix["height"] * math.exp(float(np.clip(rng.normal(0, 0.15), -0.3, 0.3)))
            ang = rng.normal(0, 0.1)
            c, s = math.cos(ang), math.sin(ang)
            d = ix["down"]
            down = (c * d[0] - s * d[1], s * d[0] + c * d[1])
            x = ix["xy"][0] + rng.normal(0, 0.035) * ix["height"]
            y = ix["xy"][1] + rng.normal(0, 0.035) * ix["height"]
            crops.append(_crop(img, IndexPeak(x, y, down, h, (0, 0), 1.0), pyr))
            ys.append(CLASS_ID[card["card"]])
    n_neg = max(2, int(len(crops) * neg_ratio))
    H, W = img.shape[:2]
    tries = 0
    while n_neg > 0 and tries < 20 * n_neg:
        tries += 1
        h = float(rng.choice(heights)) if heights else float(rng.uniform(60, 300))
        h *= math.exp(rng.normal(0, 0.2))
        if rng.random() < 0.5 and anchors:  # near a real corner but off it: hard negative
            ax, ay, ah = anchors[int(rng.integers(len(anchors)))]
            r = rng.uniform(0.25, 0.6) * ah
            t = rng.uniform(0, 2 * math.pi)
            x, y = ax + r * math.cos(t), ay + r * math.sin(t)
        else:
            x, y = rng.uniform(0, W), rng.uniform(0, H)
        if any(math.hypot(x - ax, y - ay) < 0.2 * ah for ax, ay, ah in anchors):
            continue
        t = rng.uniform(0, 2 * math.pi)
        crops.append(_crop(img, IndexPeak(x, y, (math.cos(t), math.sin(t)), h, (0, 0), 1.0), pyr))
        ys.append(CLASS_ID[NONE])
        n_neg -= 1
    return crops, ys


def _crop(img: np.ndarray, p: IndexPeak, pyramid: list[np.ndarray]) -> np.ndarray:
    return crop_index(img, p, pyramid)
