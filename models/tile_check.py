"""Choose the localiser's tiling on *training*-design scenes: ``python -m models.tile_check``.

Composes fresh scenes of the training designs (a seed no dataset uses; never a HOLDOUT.md
design) and scores the detector with each tiling on them, with ``vision.eval``'s rules, so
the tiling and its size limit are picked without looking at evaluation data.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter

import numpy as np

from vision.detect import BACK, DEFAULT_MODEL, CardDetector, Detection
from vision.eval import Tally, scene_truth
from vision.synth.dataset import Progress, usable_decks
from vision.synth.scene import SceneConfig, compose_scene

TUNE_SEED = 777  # training datasets use small seeds (1, 2, ...); evaluation 20261130


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m models.tile_check", description=__doc__)
    ap.add_argument("--scenes", type=int, default=60)
    ap.add_argument("--model", default=None)
    ap.add_argument("--limits", default="32,40,56", help="tile_max_h values to try")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--designs", default="", help="comma-separated training designs (default all)")
    args = ap.parse_args(argv)
    decks, usable = usable_decks("train", tuple(n for n in args.designs.split(",") if n))
    model = args.model or DEFAULT_MODEL
    configs = {"tiles 1": CardDetector(model, threads=args.threads)}
    for lim in (float(v) for v in args.limits.split(",")):
        configs[f"tiles 2, max_h {lim:g}"] = CardDetector(
            model, tiles=2, tile_max_h=lim, threads=args.threads
        )
    last = float(args.limits.split(",")[-1])
    configs["  ungated"] = CardDetector(
        model, tiles=2, tile_max_h=last, tile_gate=False, threads=args.threads
    )
    configs["  + backs"] = CardDetector(
        model, tiles=2, tile_max_h=last, tile_backs=True, threads=args.threads
    )
    tallies = {k: Tally() for k in configs}
    ms: dict[str, list[float]] = {k: [] for k in configs}
    bar = Progress(args.scenes, "training-design scenes")
    for i in range(args.scenes):
        scene = compose_scene(np.random.default_rng([TUNE_SEED, i]), decks, usable, SceneConfig())
        must, may, backs = scene_truth(scene)
        for name, det in configs.items():
            t0 = time.perf_counter()
            found = det.detect(scene.image)
            ms[name].append((time.perf_counter() - t0) * 1000)
            faces = faces_of(found)
            n_backs = faces.pop(BACK, 0)
            tallies[name].add(f"tune#{i}", faces, must, may, n_backs, backs)
        bar.update()
    for name, t in tallies.items():
        r = t.row()
        print(
            f"{name:<22} P {r['precision']:.3f}  R {r['recall']:.3f}  F1 {r['f1']:.3f}  "
            f"exact {r['exact_scene']:.3f}  back {r['back_count_acc']:.3f}  "
            f"ms median {np.median(ms[name]):.1f}"
        )
    return 0


def faces_of(found: list[Detection]) -> Counter[str]:
    return Counter(d.card for d in found)


if __name__ == "__main__":
    sys.exit(main())
