"""The index classifier trained on what the runtime shows it (issue 26, item 3).

    nice -n 19 env OMP_NUM_THREADS=1 PYTHONPATH=$PWD .venv/bin/python -m models.runtime_train \\
        --minutes 40 --resume models/cls_runtime.pt --workers 1

Why: the classifier reads crops cut at the *localiser's* geometry (its peak, its "down"
vector, its card height, at the three ``TTA_SCALES``), not at the true corner; and v2's
reads of held-out designs fell whenever it was trained longer on procedural corners alone.
So every batch is

- ``PEAK_SHARE`` (at least half): crops of freshly composed real-design scenes cut at the
  shipped localiser's own peaks (jittered around one of the TTA scales), labelled by the
  true corner under the peak; peaks on nothing, or on a hidden corner, are hard negatives;
- ``TRUE_SHARE``: jittered crops at the true corner geometry of the same scenes (and their
  random negatives, ``models.targets.index_crops``);
- the rest: procedural corners (``models.procedural``) and, when given a bank
  (``--real-bank``, ``models/real_photos.py``), crops of labelled real photographs.

The classifier starts from v2's weights read back from ``models/cards.onnx`` (BatchNorms
folded there, so frozen here: ``device_train.train_mode``). The localiser is not trained.
A run continues from a small checkpoint (``--resume``: weights, optimiser, CPU seconds of
every run so far, the measured curve), so the CPU hours of several sessions add up. Every
``eval_every`` minutes the run is judged on a fixed bank of **held-out-design** corners at
their true geometry (read with the runtime's three scales), never on training designs.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import multiprocessing as mp
import os
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

import vision.detect as D

log = logging.getLogger(__name__)

REPO = Path(__file__).resolve().parent.parent
SHIPPED = REPO / "models" / "cards.onnx"
PEAK_SHARE = 0.5
TRUE_SHARE = 0.25
REAL_SHARE = 0.08  # of the batch, when a real-photo bank is given (out of the procedural part)
PEAK_HEAT = 0.2  # peaks mined below the runtime's own threshold too: more hard negatives
MATCH_R = 0.15  # a peak within this many card heights of a true corner is that corner
FAR_R = 0.3  # a peak further than this from every true corner is a false peak ("none")
STEPS_PER_SCENE = 0.5  # at most this many steps per new scene: no crop replayed to death
CAPTURE_SHARE = 0.3  # of the batch, from an enrolled deck's table-camera captures
HOLDOUT_BANK_SEED = 77_001  # held-out corner bank: not vision.eval's scenes (HOLDOUT_SEED)

_W: dict[str, Any] = {}


def _worker_init(
    model: str,
    pack: str | None,
    only: tuple[str, ...],
    neg_ratio: float = 1.0,
    split: str = "train",
) -> None:
    import cv2

    cv2.setNumThreads(1)
    if pack:
        from models.pack_renders import load_pack

        decks, usable = load_pack(Path(pack), split)
    else:
        from vision.synth.dataset import usable_decks

        decks, usable = usable_decks("train", only)
    det = D.CardDetector(model, threads=1)
    _W["neg_ratio"] = neg_ratio
    _W.update(decks=decks, usable=usable, det=det)


def jittered_crop(
    img: np.ndarray, pk: D.IndexPeak, rng: np.random.Generator, pyr: list[np.ndarray]
) -> np.ndarray:
    """The classifier's crop at a localiser peak as the runtime cuts it, at one of its three
    ``TTA_SCALES`` (the runtime reads each peak at all three), jittered in place, angle and
    height."""
    k = float(rng.choice(D.TTA_SCALES)) * math.exp(float(np.clip(rng.normal(0, 0.06), -0.15, 0.15)))
    ang = float(rng.normal(0, 0.05))
    c, s = math.cos(ang), math.sin(ang)
    dx, dy = pk.down
    q = replace(
        pk,
        x=pk.x + float(rng.normal(0, 0.015)) * pk.height,
        y=pk.y + float(rng.normal(0, 0.015)) * pk.height,
        down=(c * dx - s * dy, s * dx + c * dy),
        height=pk.height * k,
    )
    return D.crop_index(img, q, pyr)


def peak_samples(
    img: np.ndarray,
    lab: dict[str, Any],
    det: D.CardDetector,
    rng: np.random.Generator,
    neg_ratio: float = 1.0,
) -> tuple[list[np.ndarray], list[int]]:
    """Crops at the localiser's own peaks of one scene and their labels: the face of the
    well-visible true corner under a peak, ``none`` for a peak on nothing or on a hidden
    corner (a hard negative); a peak on a half-visible corner is left out."""
    from vision.synth.scene import INDEX_VIS_NEG, INDEX_VIS_POS

    t = replace(det.thresholds, index_heat=min(det.thresholds.index_heat, PEAK_HEAT))
    peaks, _ = det.find(img, t)
    corners = [
        (ix["xy"], ix["visible"], ix["height"], c["card"])
        for c in lab["cards"]
        if c["card"] != D.BACK
        for ix in c.get("indices", [])
    ]
    none = D.CLASSES.index(D.NONE)
    xs: list[np.ndarray] = []
    ys: list[int] = []
    pyr: list[np.ndarray] = []
    for pk in peaks:
        best = min(
            ((math.dist(xy, (pk.x, pk.y)) / max(h, 1.0), v, card) for xy, v, h, card in corners),
            default=(math.inf, 0.0, ""),
        )
        r, v, card = best
        if r < MATCH_R and v >= INDEX_VIS_POS:
            y = D.CLASSES.index(card)
        elif r > FAR_R or (r < MATCH_R and v < INDEX_VIS_NEG):
            y = none
        else:
            continue
        xs.append(jittered_crop(img, pk, rng, pyr))
        ys.append(y)
    # false peaks are many where the threshold is low: at most ``neg_ratio`` per face (+2)
    pos = [i for i, y in enumerate(ys) if y != none]
    neg = [i for i, y in enumerate(ys) if y == none]
    n_neg = round(len(pos) * neg_ratio) + 2
    keep = sorted(pos + [int(i) for i in rng.permutation(neg)[:n_neg]])
    return [xs[i] for i in keep], [ys[i] for i in keep]


def _scene_job(args: tuple[int, int, int]) -> dict[str, Any]:
    """Scene ``i`` of run ``seed``: its peak crops, true-geometry crops and ``n_proc``
    procedural corners, and the worker's CPU seconds spent on it."""
    from models.procedural import _sample
    from models.targets import index_crops
    from vision.synth.scene import SceneConfig, compose_scene

    t0 = time.process_time()
    seed, i, n_proc = args
    rng = np.random.default_rng([seed, i, 26])
    scene = compose_scene(rng, _W["decks"], _W["usable"], SceneConfig())
    lab = scene.to_json()
    px, py = peak_samples(scene.image, lab, _W["det"], rng, float(_W.get("neg_ratio", 1.0)))
    tx, ty = index_crops(scene.image, lab, rng, neg_ratio=0.3)
    gx, gy = [], []
    for k in range(n_proc):
        face = D.CLASSES[int(rng.integers(len(D.CLASSES)))]
        gx.append(_sample(face, seed + 7, i * 1000 + k))
        gy.append(D.CLASSES.index(face))

    def arr(x: list[np.ndarray], y: list[int]) -> tuple[np.ndarray, np.ndarray]:
        if not x:
            return np.zeros((0, D.CROP_H, D.CROP_W, 3), np.uint8), np.zeros(0, np.int64)
        return np.stack(x), np.asarray(y, np.int64)

    return {
        "peak": arr(px, py),
        "true": arr(tx, ty),
        "proc": arr(gx, gy),
        "cpu_s": time.process_time() - t0,
    }


def holdout_bank(
    n_scenes: int, cache: Path | None = None, eval_pack: Path | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Held-out designs' well-visible index corners at their true geometry, each at the
    three TTA scales (uint8 N×3×H×W×3, labels N): what "true-geometry corner reads" are
    measured on (composed with a seed of its own, not vision.eval's scenes). ``eval_pack``:
    the held-out designs from a packed ``eval`` split instead of the installed decks."""
    from vision.synth.dataset import usable_decks
    from vision.synth.scene import INDEX_VIS_POS, SceneConfig, compose_scene

    tag = eval_pack.stem if eval_pack is not None else "installed"
    key = f"holdout-bank-{tag}-{n_scenes}-{HOLDOUT_BANK_SEED}-{D.CROP_W}x{D.CROP_H}.npz"
    if cache is not None and (cache / key).is_file():
        z = np.load(cache / key)
        return z["x"], z["y"]
    if eval_pack is not None:
        from vision.synth.pack import load_pack

        decks, usable = load_pack(eval_pack, "eval")
    else:
        decks, usable = usable_decks("eval")
    xs: list[np.ndarray] = []
    ys: list[int] = []
    for i in range(n_scenes):
        scene = compose_scene(
            np.random.default_rng([HOLDOUT_BANK_SEED, i]), decks, usable, SceneConfig()
        )
        pyr: list[np.ndarray] = []
        for c in scene.cards:
            for ix in c.indices if c.card != D.BACK else ():
                if ix.visible < INDEX_VIS_POS:
                    continue
                p = D.IndexPeak(*ix.xy, ix.down, ix.height, c.centre, 1.0)
                xs.append(
                    np.stack(
                        [
                            D.crop_index(scene.image, replace(p, height=p.height * k), pyr)
                            for k in D.TTA_SCALES
                        ]
                    )
                )
                ys.append(D.CLASSES.index(c.card))
    x, y = np.stack(xs), np.asarray(ys, np.int64)
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(cache / key, x=x, y=y)
    return x, y


def read_rate(net: Any, bank: tuple[np.ndarray, np.ndarray]) -> float:
    """Share of the bank's corners read right, as the runtime reads them (geometric mean
    of the probabilities at the three scales)."""
    import torch

    net.eval()
    x, y = bank
    right = 0
    with torch.no_grad():
        for s in range(0, len(y), 256):
            xb = torch.from_numpy(x[s : s + 256]).float()  # B×3×H×W×3
            b, k = xb.shape[:2]
            flat = xb.reshape(b * k, *xb.shape[2:]).permute(0, 3, 1, 2)
            logp = torch.log_softmax(net(flat), 1).reshape(b, k, -1).mean(1)
            right += int((logp.argmax(1) == torch.from_numpy(y[s : s + 256])).sum())
    return right / max(1, len(y))


def _take(buf: Any, part: tuple[np.ndarray, np.ndarray]) -> None:
    import torch

    if len(part[1]):
        buf.add(torch.from_numpy(part[0]), torch.from_numpy(part[1]))


def run(
    minutes: float,
    resume: Path,
    out: Path | None,
    workers: int = 1,
    seed: int = 0,
    lr: float = 5e-4,
    batch: int = 128,
    model: Path = SHIPPED,
    pack: Path | None = None,
    real_bank: Path | None = None,
    holdout_scenes: int = 60,
    eval_every: float = 10.0,
    cache: Path = Path("artifacts/runtime_train"),
    max_steps: int = 10**9,
    only: tuple[str, ...] = (),
    eval_pack: Path | None = None,
    neg_ratio: float = 1.0,
    pack_split: str = "train",
    capture_bank: Path | None = None,
    capture_share: float = CAPTURE_SHARE,
    steps_per_scene: float = STEPS_PER_SCENE,
) -> dict[str, Any]:
    """Train for ``minutes`` of wall clock, continuing ``resume`` when it exists (else from
    ``model``'s classifier); saves ``resume`` (and ``out``: an ONNX graph with ``model``'s
    localiser and thresholds) and returns the checkpoint's record.

    Enrollment (``models.enroll_capture``) composes its scenes from the ``enrolled`` split
    of its own pack and gives the crops of its table-camera captures as ``capture_bank``
    (``capture_share`` of each batch, out of the peak share); ``holdout_scenes`` 0 skips
    the held-out bank."""
    import torch
    import torch.nn.functional as F

    from models.device_train import Ring, shipped_meta, train_mode
    from models.from_onnx import nets_from_onnx
    from models.nets import ClsNet
    from models.train import _augment_crops, export

    loc, cls = nets_from_onnx(model)
    state: dict[str, Any] = {"cpu_s": 0.0, "steps": 0, "samples": 0, "scenes": 0, "curve": []}
    opt = torch.optim.AdamW(cls.parameters(), lr=lr, weight_decay=1e-4)
    if resume.is_file():
        ck = torch.load(resume, weights_only=False)
        cls = ClsNet.from_state(ck["cls"])
        opt = torch.optim.AdamW(cls.parameters(), lr=lr, weight_decay=1e-4)
        if "opt" in ck:
            opt.load_state_dict(ck["opt"])
        state = ck["record"]
        print(
            f"resumed {resume}: {state['steps']} steps, {state['cpu_s'] / 3600:.2f} CPU h",
            flush=True,
        )
    else:
        print(f"from {model}'s classifier (v2, BatchNorms folded and frozen)", flush=True)
    fixed: list[tuple[Any, Any, int]] = []  # banks drawn from at every step: x, y, per batch
    n_capture = 0  # captures are peak crops of the deck itself: out of the peak share
    for bank, share, what in (
        (real_bank, REAL_SHARE, "real-photo"),
        (capture_bank, capture_share, "table-camera capture"),
    ):
        if bank is not None and bank.is_file():
            z = np.load(bank)
            fixed.append((torch.from_numpy(z["x"]), torch.from_numpy(z["y"]), int(batch * share)))
            print(f"{what} bank {bank}: {len(z['y'])} crops", flush=True)
            n_capture += int(batch * share) if bank is capture_bank else 0
    bufs = {k: Ring(n) for k, n in (("peak", 40_000), ("true", 30_000), ("proc", 20_000))}
    g = torch.Generator().manual_seed(seed + state["steps"])
    ctx = mp.get_context("spawn" if workers > 0 else "fork")
    base = state["scenes"]
    jobs = ((seed, base + i, 6) for i in range(10**9))
    init_args = (str(model), str(pack) if pack else None, only, neg_ratio, pack_split)
    pool = ctx.Pool(workers, _worker_init, init_args) if workers else None
    if pool is None:
        _worker_init(*init_args)
        results: Any = map(_scene_job, jobs)
    else:
        results = pool.imap_unordered(_scene_job, jobs, chunksize=1)
    hold = holdout_bank(holdout_scenes, cache, eval_pack) if holdout_scenes else None
    if hold is not None:
        print(f"held-out true-geometry bank: {len(hold[1])} corners", flush=True)
    if hold is not None and not state["curve"]:
        state["curve"].append(
            {"cpu_h": 0.0, "steps": 0, "holdout_read": round(read_rate(cls, hold), 4)}
        )
        print(f"start: held-out read rate {state['curve'][-1]['holdout_read']:.4f}", flush=True)
    n_peak, n_true = int(batch * PEAK_SHARE) - n_capture, int(batch * TRUE_SHARE)
    n_proc = batch - n_peak - n_true - sum(n for *_, n in fixed)
    t0 = time.monotonic()
    cpu0 = time.process_time()
    worker_cpu = 0.0
    budget = minutes * 60
    next_eval = eval_every * 60
    steps = 0

    def absorb(got: dict[str, Any]) -> None:
        nonlocal worker_cpu
        for k in ("peak", "true", "proc"):
            _take(bufs[k], got[k])
        worker_cpu += got["cpu_s"]
        state["scenes"] += 1

    def cpu_h() -> float:
        return (float(state["cpu_s"]) + time.process_time() - cpu0 + worker_cpu) / 3600

    while min(b.n for b in bufs.values()) < max(8, batch // 4):
        absorb(next(results))
    while (el := time.monotonic() - t0) < budget and steps < max_steps:
        if pool is not None:
            for _ in range(workers):
                try:
                    absorb(results.next(timeout=0))
                except (mp.TimeoutError, StopIteration):
                    break
        # the network waits for the scenes rather than replaying a few of them: on a
        # loaded CPU the workers are slow, and 10 scenes seen 200 times taught nothing
        while steps + 1 > steps_per_scene * (state["scenes"] - base) + 8:
            if time.monotonic() - t0 >= budget:
                break
            absorb(next(results))
        frac = min(1.0, (time.monotonic() - t0) / budget)
        for pg in opt.param_groups:  # warm restart at each run: short ramp, cosine down
            pg["lr"] = (
                lr * min(1.0, (steps + 1) / 50) * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * frac)))
            )
        parts = [bufs["peak"].sample(n_peak, g), bufs["true"].sample(n_true, g)]
        parts.append(bufs["proc"].sample(n_proc, g))
        for bx, by, n in fixed:
            idx = torch.randint(0, len(by), (n,), generator=g)
            parts.append([bx[idx], by[idx]])
        x = torch.cat([p[0] for p in parts]).permute(0, 3, 1, 2).float()
        y = torch.cat([p[1] for p in parts])
        train_mode(cls)
        loss = F.cross_entropy(cls(_augment_crops(x, g)), y, label_smoothing=0.05)
        opt.zero_grad()
        loss.backward()  # type: ignore[no-untyped-call]
        opt.step()
        steps += 1
        state["steps"] += 1
        state["samples"] += batch
        if steps % 200 == 0:
            print(
                f"t {el / 60:5.1f} min  step {state['steps']}  loss {loss.item():.3f}  "
                f"scenes {state['scenes']}  CPU {cpu_h():.2f} h",
                flush=True,
            )
        if el >= next_eval:
            next_eval += eval_every * 60
            if hold is not None:
                _record(state, cls, hold, cpu_h())
            _save(resume, cls, opt, state, cpu_h())
    if pool is not None:
        pool.terminate()
    if hold is not None:
        _record(state, cls, hold, cpu_h())
    _save(resume, cls, opt, state, cpu_h())
    state["cpu_s"] = round(cpu_h() * 3600, 1)
    if out is not None:
        export(loc, cls.eval(), out, shipped_meta(model))
    return dict(state)


def _record(state: dict[str, Any], cls: Any, hold: Any, cpu_h: float) -> None:
    rate = read_rate(cls, hold)
    state["curve"].append(
        {"cpu_h": round(cpu_h, 4), "steps": state["steps"], "holdout_read": round(rate, 4)}
    )
    print(f"CPU {cpu_h:.2f} h, step {state['steps']}: held-out read rate {rate:.4f}", flush=True)


def _save(path: Path, cls: Any, opt: Any, state: dict[str, Any], cpu_h: float) -> None:
    import torch

    state = dict(state, cpu_s=round(cpu_h * 3600, 1))
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    torch.save({"cls": cls.state_dict(), "opt": opt.state_dict(), "record": state}, tmp)
    tmp.replace(path)
    path.with_suffix(".json").write_text(json.dumps(state, indent=1))


def main(argv: list[str] | None = None) -> int:
    """``python -m models.runtime_train``: its own command, so that ``models.train`` (which
    this module builds on) never imports it back."""
    ap = argparse.ArgumentParser(prog="python -m models.runtime_train", description=__doc__)
    ap.add_argument("--minutes", type=float, required=True, help="minutes of training")
    ap.add_argument(
        "--resume",
        type=Path,
        default=Path("models/cls_runtime.pt"),
        help="runtime-crop checkpoint to continue (and to write)",
    )
    ap.add_argument("--out", type=Path, default=None, help="export the model here (ONNX)")
    ap.add_argument("--ckpt", type=Path, default=Path("artifacts/runtime_train"), help="cache")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--workers", type=int, default=1, help="scene-composing processes")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cls-lr", type=float, default=5e-4, help="classifier learning rate")
    ap.add_argument("--real-bank", type=Path, default=None, help="real-photo crops (.npz)")
    ap.add_argument("--pack", type=Path, default=None, help="training renders from this pack")
    ap.add_argument("--holdout-scenes", type=int, default=60, help="held-out corner bank")
    ap.add_argument("--eval-pack", type=Path, default=None, help="held-out renders (pack)")
    ap.add_argument("--eval-every", type=float, default=10.0, help="minutes between judgements")
    ap.add_argument("--max-steps", type=int, default=10**9, help="stop after this many steps")
    ap.add_argument("--designs", default="", help="training designs to use (comma-separated)")
    ap.add_argument(
        "--neg-ratio",
        type=float,
        default=1.0,
        help="false-peak 'none' crops kept per face crop of a scene (+2)",
    )
    ap.add_argument("--model", type=Path, default=SHIPPED, help="start from this model")
    ap.add_argument("--pack-split", default="train", help="the pack's split ('enrolled': a deck)")
    ap.add_argument("--capture-bank", type=Path, default=None, help="enrolled captures (.npz)")
    ap.add_argument("--capture-share", type=float, default=CAPTURE_SHARE, help="of each batch")
    ap.add_argument(
        "--steps-per-scene",
        type=float,
        default=STEPS_PER_SCENE,
        help="at most this many steps per new scene",
    )
    args = ap.parse_args(argv)
    import torch  # the training extra: imported only when training

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    torch.set_num_threads(args.threads)
    rec = run(
        args.minutes,
        args.resume,
        args.out,
        workers=args.workers,
        seed=args.seed,
        lr=args.cls_lr,
        real_bank=args.real_bank,
        pack=args.pack,
        holdout_scenes=args.holdout_scenes,
        eval_every=args.eval_every,
        cache=args.ckpt,
        max_steps=args.max_steps,
        only=tuple(n for n in args.designs.split(",") if n),
        eval_pack=args.eval_pack,
        neg_ratio=args.neg_ratio,
        model=args.model,
        pack_split=args.pack_split,
        capture_bank=args.capture_bank,
        capture_share=args.capture_share,
        steps_per_scene=args.steps_per_scene,
    )
    print(f"runtime crops: {rec['steps']} steps in all, {rec['cpu_s'] / 3600:.2f} CPU h")
    return 0


if __name__ == "__main__":
    sys.exit(main())
