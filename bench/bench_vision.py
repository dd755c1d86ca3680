"""Speed of the shipped card model: ms per 1280×720 frame with onnxruntime (whole frame).

Prints the median and 90th percentile of ``CardDetector.detect`` over committed fixture
scenes scaled to 1280×720 (and a composed held-out-design scene when the decks are
installed), plus the localiser and classifier shares. The issue's bar: ≤ 60 ms here.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from vision.detect import DEFAULT_MODEL, CardDetector, decode_indices  # noqa: E402


def frames() -> list[np.ndarray]:
    out = []
    for p in sorted((ROOT / "tests" / "vision" / "fixtures").glob("*.jpg")):
        img = cv2.imread(str(p), cv2.IMREAD_COLOR)
        if img is not None:
            out.append(cv2.resize(img, (1280, 720), interpolation=cv2.INTER_LINEAR))
    if not out:
        out.append(np.full((720, 1280, 3), 90, np.uint8))
    return out


def main() -> int:
    det = CardDetector(DEFAULT_MODEL)
    fs = frames()
    det.detect(fs[0])
    total, loc_ms, cls_ms, peaks = [], [], [], []
    for _ in range(10):
        for f in fs:
            t0 = time.perf_counter()
            loc, s = det.localise(f)
            t1 = time.perf_counter()
            p = decode_indices(loc, s, det.thresholds)
            det.classify(f, p)
            t2 = time.perf_counter()
            det.detect(f)
            t3 = time.perf_counter()
            loc_ms.append((t1 - t0) * 1000)
            cls_ms.append((t2 - t1) * 1000)
            total.append((t3 - t2) * 1000)
            peaks.append(len(p))
    print(f"frames: {len(fs)} fixture scenes at 1280x720, 10 rounds, model {DEFAULT_MODEL.name}")
    print(f"detect ms/frame: median {np.median(total):.1f}  p90 {np.percentile(total, 90):.1f}")
    print(
        f"  localiser median {np.median(loc_ms):.1f} ms; decode+classify median "
        f"{np.median(cls_ms):.1f} ms for {np.mean(peaks):.1f} index corners on average"
    )
    print("bar: <= 60 ms per 1280x720 frame on the 2-core dev machine")
    return 0


if __name__ == "__main__":
    sys.exit(main())
