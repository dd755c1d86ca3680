"""Speed of the shipped card model: ms per 1280×720 frame with onnxruntime (whole frame).

Prints the median and 90th percentile of ``CardDetector.detect`` over committed fixture
scenes scaled to 1280×720 and the same scenes shrunk four to a frame (small cards, the
overhead-table case), for one and for two onnxruntime threads, with the localiser on the
whole frame only (``tiles 1``) and with 2×2 tiles as well (``tiles 2``), plus the localiser
and classifier shares. The issue's bar: ≤ 30 ms per frame, one thread as well as two.
The per-frame times go to a histogram, ``artifacts/bench/vision_latency.png`` (git-ignored).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vision.detect import DEFAULT_MODEL, DEFAULT_TILES, CardDetector  # noqa: E402
from vision.plots import latency_png  # noqa: E402

ROUNDS = 6
PLOT = ROOT / "artifacts" / "bench" / "vision_latency.png"


def frames() -> list[np.ndarray]:
    scenes = []
    for p in sorted((ROOT / "tests" / "vision" / "fixtures").glob("*.jpg")):
        img = cv2.imread(str(p), cv2.IMREAD_COLOR)
        if img is not None:
            scenes.append(cv2.resize(img, (1280, 720), interpolation=cv2.INTER_LINEAR))
    if not scenes:
        scenes.append(np.full((720, 1280, 3), 90, np.uint8))
    quarter = [cv2.resize(s, (640, 360), interpolation=cv2.INTER_AREA) for s in scenes]
    four = [quarter[(i + k) % len(quarter)] for i in range(len(quarter)) for k in range(4)]
    small = [
        np.vstack([np.hstack(four[i : i + 2]), np.hstack(four[i + 2 : i + 4])])
        for i in range(0, len(four), 4)
    ]
    return scenes + small


def run(det: CardDetector, fs: list[np.ndarray]) -> tuple[dict[str, float], list[float]]:
    det.detect(fs[0])
    total, loc_ms, peaks = [], [], []
    t = det.thresholds
    for _ in range(ROUNDS):
        for f in fs:
            t0 = time.perf_counter()
            p, _ = det.find(f, t)
            t1 = time.perf_counter()
            det.detect(f)
            t2 = time.perf_counter()
            loc_ms.append((t1 - t0) * 1000)
            total.append((t2 - t1) * 1000)
            peaks.append(len(p))
    return {
        "median": float(np.median(total)),
        "p90": float(np.percentile(total, 90)),
        "loc": float(np.median(loc_ms)),
        "peaks": float(np.mean(peaks)),
    }, total


def main() -> int:
    fs = frames()
    print(
        f"frames: {len(fs)} at 1280x720 (fixture scenes, and them shrunk four to a frame), "
        f"{ROUNDS} rounds, model {DEFAULT_MODEL.name}, default tiles {DEFAULT_TILES}"
    )
    samples: dict[str, list[float]] = {}
    for threads in (1, 2):
        for tiles in (1, 2):
            r, ms = run(CardDetector(DEFAULT_MODEL, tiles=tiles, threads=threads), fs)
            samples[f"threads {threads} tiles {tiles}"] = ms
            print(
                f"threads {threads} tiles {tiles}: detect ms/frame median {r['median']:.1f}  "
                f"p90 {r['p90']:.1f}  (localise + decode {r['loc']:.1f} ms, "
                f"{r['peaks']:.1f} index corners)"
            )
    print("bar: <= 30 ms per 1280x720 frame, one thread and two, on the 2-core dev machine")
    title = f"CardDetector.detect per 1280x720 frame ({len(fs)} frames x {ROUNDS} rounds)"
    print(f"latency histogram: {latency_png(samples, PLOT, title)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
