"""Pi frame budget: the table node's per-frame work on ONE core, with a Raspberry Pi 5 estimate.

Renders one short hand (cached under ``renders/bench-pi/``), then re-runs itself pinned to CPU 0
(``taskset -c 0``) and feeds every frame to a ``TableNode`` with the shipped recognizer, timing
``node.process`` per frame. Prints ms/frame (mean, median, p95, max), the recognizer's share,
and the Pi 5 estimate.

    .venv/bin/python bench/bench_pi.py                   # the render's 1280×720 frames
    .venv/bin/python bench/bench_pi.py --size 2304x1296  # frames scaled to the Pi camera mode

The Pi 5 figure is an ESTIMATE, not a measurement: one Cortex-A76 core at 2.4 GHz is taken as
``PI5_RATIO`` times slower than one core of the machine this runs on, for this NumPy / OpenCV /
ONNX Runtime work (published single-core results, e.g. Geekbench 6: Pi 5 ≈ 0.35–0.45 of a
current x86 server core; NEON is narrower than AVX2). Run this script on the Pi for the truth.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

PI5_RATIO = 2.5  # Pi 5 core time / this machine's core time (an estimate, see above)
SEED, TRICKS = 11, 3


def render() -> Path:
    from tablescan.render import render_simulated

    out = ROOT / "renders" / "bench-pi" / f"hand-{SEED}.mp4"
    if not out.exists():
        render_simulated("standard", SEED, out, split="eval", tricks=TRICKS)
    return out


def measure(video: Path, size: tuple[int, int] | None) -> None:
    import cv2

    from tablescan.config import load_config
    from tablescan.wiring import build_node, load_detector
    from vision.sources import Frame, open_source

    cv2.setNumThreads(1)
    cfg = load_config(video.with_name(video.stem + ".table.toml"))
    detector = load_detector(cfg)
    calls: list[float] = []
    detect = detector.detect

    def timed_detect(*args, **kwargs):  # type: ignore[no-untyped-def]
        t0 = time.perf_counter()
        try:
            return detect(*args, **kwargs)
        finally:
            calls.append(time.perf_counter() - t0)

    detector.detect = timed_detect  # type: ignore[method-assign]
    node = build_node(cfg, detector, keep_evidence=False)
    per_frame: list[float] = []
    src = open_source(str(video), cfg.fps)
    last_t = 0.0
    for frame in src.frames():
        if size is not None:
            frame = Frame(frame.index, frame.t, cv2.resize(frame.image, size))
        t0 = time.perf_counter()
        node.process(frame)
        per_frame.append(time.perf_counter() - t0)
        last_t = frame.t
    src.close()
    node.finish(last_t)
    ms = sorted(x * 1000 for x in per_frame)
    mean = statistics.fmean(ms)
    p95 = ms[int(0.95 * (len(ms) - 1))]
    fps = cfg.fps or 20.0
    h, w = frame.image.shape[:2]
    print(f"frames: {len(ms)} at {w}×{h}, video {fps:g} fps; one core (affinity {_affinity()})")
    print(f"cpu: {_cpu()}")
    print(
        f"node per frame: mean {mean:.1f} ms, median {statistics.median(ms):.1f} ms, "
        f"p95 {p95:.1f} ms, max {ms[-1]:.1f} ms"
    )
    if calls:
        share = sum(calls) * 1000 / sum(ms)
        print(
            f"recognizer: {len(calls)} calls, {statistics.fmean(calls) * 1000:.1f} ms per call, "
            f"{share:.0%} of the node's time"
        )
    print(f"budget at {fps:g} fps: {1000 / fps:.0f} ms/frame; here {mean / (1000 / fps):.0%} used")
    pi = mean * PI5_RATIO
    print(
        f"Pi 5 ESTIMATE (×{PI5_RATIO:g} per core, not measured): {pi:.0f} ms/frame mean, "
        f"p95 {p95 * PI5_RATIO:.0f} ms → {1000 / pi:.1f} frames/s on one core "
        f"({'within' if pi <= 1000 / fps else 'over'} a {fps:g} fps budget)"
    )


def _affinity() -> str:
    try:
        return ",".join(map(str, sorted(os.sched_getaffinity(0))))
    except AttributeError:
        return "?"


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--size", default=None, help="scale frames to WxH (e.g. 2304x1296)")
    p.add_argument("--pinned", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    size = tuple(int(v) for v in args.size.lower().split("x")) if args.size else None
    video = render()
    if not args.pinned and shutil.which("taskset"):
        env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
        cmd = ["taskset", "-c", "0", sys.executable, __file__, "--pinned"]
        cmd += ["--size", args.size] if args.size else []
        return subprocess.run(cmd, env=env, check=False).returncode
    measure(video, size)  # type: ignore[arg-type]
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
