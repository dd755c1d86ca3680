"""What a dispute clip costs the table node (tablescan.clips): per camera frame in the node's
loop (mask, downscale and ring for the kept ones at 5/s; handing a finished clip to the
encoder thread), and per clip on the encoder thread (VP8 WebM of 3 s before to 3 s after,
640 px wide, stored), with its size and the ring's memory. Frames: a 1280 × 720 rendered
table frame (dashboard.demo.render_frame) with noise, so the encoder works as on a cloth.

    .venv/bin/python bench/bench_clips.py [--clips 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dashboard.demo import render_frame  # noqa: E402
from tablescan import clips  # noqa: E402
from vision.sources import Frame  # noqa: E402

FPS = 15.0  # the camera


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clips", type=int, default=5)
    args = ap.parse_args()
    jpeg = render_frame("bench", ["AS", "KH", "10D"], 1280, 720)
    base = np.asarray(cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR), np.uint8)
    rng = np.random.default_rng(0)
    mask = np.full(base.shape[:2], 255, np.uint8)
    mask[:, :100] = 0  # a seat's held hand

    def masked(image: Any) -> Any:
        return cv2.bitwise_and(image, image, mask=mask)

    encode_ms: list[float] = []
    sizes: list[int] = []

    def store(path: Path, _evidence: str, _seq: int | None) -> None:
        sizes.append(path.stat().st_size)

    loop_ms: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        rec = clips.ClipRecorder(Path(tmp), store, masked)
        t, index = 0.0, 0
        for n in range(args.clips):
            for k in range(int(FPS * (clips.BEFORE_S + clips.AFTER_S + 1))):
                if k == int(FPS * (clips.BEFORE_S + 0.5)):  # a violation on this play
                    ev = {"type": "play", "seq": n, "t": t, "evidence": f"b-f{index:06d}"}
                    rec.want(ev)  # type: ignore[arg-type]
                image = cv2.add(base, rng.integers(0, 12, base.shape).astype(np.uint8))
                t0 = time.perf_counter()
                rec.on_frame(Frame(index, t, image))
                loop_ms.append((time.perf_counter() - t0) * 1000)
                t, index = t + 1 / FPS, index + 1
        ring = sum(img.nbytes for _, img in rec._ring)
        rec.flush()
        shots = [img for _, img in rec._ring] * 2
        for n in range(args.clips):  # the encoder thread's work, timed alone
            t0 = time.perf_counter()
            clips.write_clip(Path(tmp) / f"e{n}.webm", shots, clips.CLIP_FPS)
            encode_ms.append((time.perf_counter() - t0) * 1000)
    span = clips.BEFORE_S + clips.AFTER_S
    print(
        f"clips: {len(sizes)} of {args.clips}, {span:.0f} s at {clips.CLIP_FPS:.0f} frames/s, "
        f"{clips.MAX_WIDTH} px wide, VP8 WebM; camera {FPS:.0f} frames/s"
    )
    print(
        f"  node loop per camera frame: median {statistics.median(loop_ms):.2f} ms,"
        f" p99 {np.percentile(loop_ms, 99):.1f} ms, max {max(loop_ms):.1f} ms"
    )
    print(
        f"  encoder thread per clip ({len(shots)} frames): median"
        f" {statistics.median(encode_ms):.0f} ms, max {max(encode_ms):.0f} ms"
    )
    print(
        f"  clip size: median {statistics.median(sizes) / 1024:.0f} KiB;"
        f" ring memory at rest {ring / 2**20:.1f} MiB"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
