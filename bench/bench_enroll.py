"""Enrollment through the table camera, measured on held-out designs (issue 26, item 5).

    python bench/bench_enroll.py --designs gnome/tango_nuevo --minutes 3 --scenes 30

For each design: its own face renders laid out in the three capture layouts
(``vision.synth.scene.compose_layout``, ``--per-layout`` frames each, at ``--size``, with
the composer's tables, light, perspective and camera faults), enrolled with
``tablescan deck enroll --captures ... --finetune-minutes M``, then ``vision.eval``'s
held-out and in-envelope scenes of that design alone, read by the shipped model (zero-shot)
and by the enrolled one. Enrollment figures are reported apart from zero-shot ones: the
enrolled model has seen this design's faces (never the evaluation scenes, which come from
``vision.eval``'s own seeds).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
import zlib
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from models.enroll_capture import CAPTURE_COLS, CAPTURE_LAYOUTS  # noqa: E402
from vision.detect import CLASSES, DEFAULT_MODEL, CardDetector  # noqa: E402
from vision.eval import ENVELOPE, ENVELOPE_SEED, eval_holdout  # noqa: E402
from vision.synth.dataset import usable_decks  # noqa: E402
from vision.synth.scene import SceneConfig, compose_layout  # noqa: E402

CAPTURE_SEED = 26_005  # the captures' own seed: not vision.eval's scenes


def render_captures(design: str, folder: Path, per_layout: int, size: tuple[int, int]) -> int:
    """The design's faces laid out as ``tablescan deck order --captures`` says, as frames."""
    decks, _ = usable_decks("eval", (design,))
    if not decks:
        raise SystemExit(f"--designs {design}: not a held-out design installed here")
    cfg = SceneConfig(width=size[0], height=size[1], card_height=ENVELOPE.card_height)
    folder.mkdir(parents=True, exist_ok=True)
    tag = zlib.crc32(design.encode())
    for n, layout in enumerate(CAPTURE_LAYOUTS, 1):
        for k in range(per_layout):
            rng = np.random.default_rng([CAPTURE_SEED, tag, n, k])
            scene = compose_layout(rng, decks[0], layout, CAPTURE_COLS, cfg)
            cv2.imwrite(str(folder / f"{n}-{k}.png"), scene.image)
    return len(CAPTURE_LAYOUTS) * per_layout


def rows(model: Path, design: str, scenes: int) -> dict[str, dict[str, float]]:
    det = CardDetector(model, threads=1)
    conf = np.zeros((len(CLASSES), len(CLASSES)), np.int64)
    hold, _ = eval_holdout(det, scenes, conf, None, None, (design,))
    env, _ = eval_holdout(
        det, scenes, conf, None, None, (design,), ENVELOPE, ENVELOPE_SEED, "in_envelope"
    )
    return {"holdout": hold.row(), "in_envelope": env.row()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--designs", default="gnome/tango_nuevo", help="held-out designs, commas")
    ap.add_argument("--minutes", type=float, default=3.0, help="fine-tuning minutes per design")
    ap.add_argument("--scenes", type=int, default=30, help="evaluation scenes per set")
    ap.add_argument("--per-layout", type=int, default=2, help="captures of each layout")
    ap.add_argument("--size", default="2304x1296", help="capture size WxH")
    ap.add_argument("--out", type=Path, default=REPO / "artifacts" / "bench_enroll")
    args = ap.parse_args(argv)
    w, h = (int(v) for v in args.size.split("x"))
    print(f"enrollment through the table camera: {args.per_layout} captures a layout at {w}x{h}")
    for design in args.designs.split(","):
        name = design.replace("/", "_")
        folder = args.out / name
        n = render_captures(design, folder / "captures", args.per_layout, (w, h))
        t0 = time.monotonic()
        cmd = [
            sys.executable, "-m", "tablescan", "deck", "enroll", "--captures",
            str(folder / "captures"), "--name", name, "--out", str(folder / "enrolled"),
            "--finetune-minutes", str(args.minutes),
        ]  # fmt: skip
        done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, check=False)
        wall = time.monotonic() - t0
        lines = [ln for ln in done.stdout.splitlines() if ln.startswith(("refused", "runtime"))]
        print(f"== {design}: {n} captures, enrolled in {wall / 60:.1f} min wall")
        for ln in lines:
            print(f"   {ln}")
        if done.returncode != 0:
            print(done.stdout[-2000:], done.stderr[-2000:])
            return 1
        zero = rows(DEFAULT_MODEL, design, args.scenes)
        tuned = rows(folder / "enrolled" / "cards.onnx", design, args.scenes)
        for set_name in ("holdout", "in_envelope"):
            z, t = zero[set_name], tuned[set_name]
            print(
                f"   {set_name:<12} {int(z['images']):>3} scenes  zero-shot F1 {z['f1']:.3f} "
                f"(P {z['precision']:.3f} R {z['recall']:.3f})  enrolled F1 {t['f1']:.3f} "
                f"(P {t['precision']:.3f} R {t['recall']:.3f})"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
