"""Train the card model on a lent GPU machine in one call: ``models/train_on_device.sh``.

Why this shape: the machine comes bare, for minutes, with no network, no SVG decks and no
rsvg-convert, and only 64 MiB travel to it. So the card faces travel as renders
(``models/pack_renders.py``), CPU workers compose scenes from them and cut the training
samples (localiser crops with their targets, classifier index crops, procedural corners)
while the GPU trains both networks from the shipped weights; training stops by the wall
clock, leaving time to export the ONNX graph and run ``vision.eval`` on the held-out
designs' renders. ``--dry-run`` does all of it on a CPU at toy size in seconds (the test
in tests/models runs it), so the day a GPU is lent the script works the first time.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing as mp
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

import vision.detect as D

REPO = Path(__file__).resolve().parent.parent
SHIPPED = REPO / "models" / "cards.onnx"
THRESHOLD_KEYS = ("index_heat", "back_heat", "card_score", "dup_radius", "sure_score")

_W: dict[str, Any] = {}


def _set_crop(crop: tuple[int, int]) -> None:
    """The classifier input this run trains (crop_index's default size, in every process)."""
    D.CROP_W, D.CROP_H = crop


def _worker_init(
    pack: str,
    crop: tuple[int, int],
    scene_cfg: dict[str, Any],
    enrolled: str | None = None,
    share: float = 0.0,
) -> None:
    import cv2

    from models.pack_renders import load_pack
    from vision.synth.scene import SceneConfig

    cv2.setNumThreads(1)
    _set_crop(crop)
    decks, usable = load_pack(Path(pack), "train")
    own: list[Any] = []
    if enrolled:
        own, more = load_pack(Path(enrolled), "enrolled")
        usable = usable | more
    _W.update(decks=decks, own=own, share=share, usable=usable, cfg=SceneConfig(**scene_cfg))


def _scene_job(args: tuple[int, int, int]) -> tuple[list[tuple[np.ndarray, ...]], Any, Any]:
    """Scene ``i``: ``loc_per`` localiser samples, its classifier crops (+ ``n_proc``
    procedural corners)."""
    from models.procedural import _sample
    from models.targets import index_crops
    from models.train import loc_sample
    from vision.synth.scene import compose_scene

    seed, i, n_proc = args
    rng = np.random.default_rng([seed, i])
    # an enrolled deck's own faces in ``share`` of the scenes, the training designs in the
    # rest (generic replay: nothing else is forgotten)
    decks = _W["own"] if _W["own"] and rng.random() < _W["share"] else _W["decks"]
    scene = compose_scene(rng, decks, _W["usable"], _W["cfg"])
    lab = scene.to_json()
    locs = [loc_sample(scene.image, lab, rng) for _ in range(2)]
    crops, ys = index_crops(scene.image, lab, rng)
    for k in range(n_proc):
        face = D.CLASSES[int(rng.integers(len(D.CLASSES)))]
        crops.append(_sample(face, seed + 7, i * 1000 + k))
        ys.append(D.CLASSES.index(face))
    x = np.stack(crops) if crops else np.zeros((0, D.CROP_H, D.CROP_W, 3), np.uint8)
    return locs, x, np.asarray(ys, np.int64)


class Ring:
    """A fixed-size replay buffer of CPU tensors (the newest overwrite the oldest)."""

    def __init__(self, size: int) -> None:
        self.size, self.n, self.pos = size, 0, 0
        self.data: list[Any] = []

    def add(self, *arrays: Any) -> None:
        import torch

        k = len(arrays[0])
        if k == 0:
            return
        if not self.data:
            self.data = [torch.zeros((self.size, *a.shape[1:]), dtype=a.dtype) for a in arrays]
        idx = (self.pos + torch.arange(k)) % self.size
        for buf, a in zip(self.data, arrays, strict=True):
            buf[idx] = a
        self.pos = (self.pos + k) % self.size
        self.n = min(self.size, self.n + k)

    def sample(self, bs: int, g: Any) -> list[Any]:
        import torch

        idx = torch.randint(0, self.n, (bs,), generator=g)
        return [buf[idx] for buf in self.data]


def train(args: argparse.Namespace) -> dict[str, Any]:
    """The training phase: returns what it did (steps, samples, losses)."""
    import torch
    import torch.nn.functional as F

    from models.from_onnx import resize_cls
    from models.nets import ClsNet, LocNet, finish_loc
    from models.train import _augment_crops, _jitter, loc_loss

    deadline = args.t0 + args.train_seconds
    dev = torch.device(args.device)
    torch.set_num_threads(args.threads)
    crop = args.crop
    nets = initial_nets(args.init) if args.init else None
    if nets is not None:
        loc, cls = nets
        print(f"init: {args.init} (classifier {cls.crop[0]}x{cls.crop[1]})", flush=True)
        if cls.crop != crop:
            cls = resize_cls(cls, crop)
    else:
        loc, cls = LocNet(), ClsNet(1.0, crop)
        print("init: from scratch", flush=True)
    loc, cls = loc.to(dev), cls.to(dev)
    opt_l = torch.optim.AdamW(loc.parameters(), lr=args.loc_lr, weight_decay=1e-4)
    opt_c = torch.optim.AdamW(cls.parameters(), lr=args.cls_lr, weight_decay=1e-4)
    g = torch.Generator().manual_seed(args.seed)
    loc_buf, cls_buf = Ring(args.loc_buffer), Ring(args.cls_buffer)
    cfg = {"width": 1280, "height": 720}
    ctx = mp.get_context("spawn" if args.workers > 0 else "fork")
    jobs = ((args.seed, i, args.procedural) for i in range(10**9))
    enrolled = str(args.enrolled) if args.enrolled else None
    init_args = (str(args.renders), crop, cfg, enrolled, args.enrolled_share)
    pool = ctx.Pool(args.workers, _worker_init, init_args) if args.workers else None
    if pool is None:
        _worker_init(*init_args)
        results: Any = map(_scene_job, jobs)
    else:
        results = pool.imap_unordered(_scene_job, jobs, chunksize=1)
    stats: dict[str, Any] = {
        "scenes": 0,
        "loc_steps": 0,
        "cls_steps": 0,
        "loc_loss": [],
        "cls_loss": [],
    }
    start = time.monotonic()
    span = max(1.0, deadline - start)

    def take(block: bool) -> None:
        got = next(results) if block else None
        if got is None:
            return
        locs, x, y = got
        stats["scenes"] += 1
        loc_buf.add(*(torch.from_numpy(np.stack([s[k] for s in locs])) for k in range(5)))
        cls_buf.add(torch.from_numpy(x), torch.from_numpy(y))

    while stats["scenes"] < args.warm_scenes:
        take(True)
    ready = pool is not None
    while time.monotonic() < deadline and stats["loc_steps"] < args.max_steps:
        # new scenes as fast as the workers give them, training on the buffer meanwhile
        if ready:
            for _ in range(args.workers):
                try:
                    got = results.next(timeout=0)
                except (mp.TimeoutError, StopIteration):
                    break
                locs, x, y = got
                stats["scenes"] += 1
                loc_buf.add(*(torch.from_numpy(np.stack([s[k] for s in locs])) for k in range(5)))
                cls_buf.add(torch.from_numpy(x), torch.from_numpy(y))
        else:
            take(True)
        frac = min(1.0, (time.monotonic() - start) / span)
        cos = 0.5 * (1 + math.cos(math.pi * frac))
        for opt, lr0 in ((opt_l, args.loc_lr), (opt_c, args.cls_lr)):
            for pg in opt.param_groups:
                pg["lr"] = lr0 * cos
        train_mode(loc)
        x, heat, weight, reg, mask = (
            t.to(dev, non_blocking=True) for t in loc_buf.sample(args.loc_batch, g)
        )
        out = finish_loc(loc.raw(_jitter(x, g) if dev.type == "cpu" else _jitter_on(x, g)))
        lossl = loc_loss(out, heat, weight, reg, mask)
        opt_l.zero_grad()
        lossl.backward()  # type: ignore[no-untyped-call]
        torch.nn.utils.clip_grad_norm_(loc.parameters(), 5.0)
        opt_l.step()
        train_mode(cls)
        for _ in range(args.cls_per_loc):
            xc, yc = cls_buf.sample(args.cls_batch, g)
            xc = _augment_crops(xc.permute(0, 3, 1, 2).float(), g).to(dev)
            yc = yc.to(dev)
            lossc = F.cross_entropy(cls(xc), yc, label_smoothing=0.05)
            opt_c.zero_grad()
            lossc.backward()  # type: ignore[no-untyped-call]
            opt_c.step()
            stats["cls_steps"] += 1
        stats["loc_steps"] += 1
        if stats["loc_steps"] % 50 == 1:
            stats["loc_loss"].append(round(lossl.item(), 4))
            stats["cls_loss"].append(round(lossc.item(), 4))
            print(
                f"t {time.monotonic() - args.t0:6.1f}s scenes {stats['scenes']} "
                f"loc step {stats['loc_steps']} loss {lossl.item():.3f}  "
                f"cls step {stats['cls_steps']} loss {lossc.item():.3f}",
                flush=True,
            )
    if pool is not None:
        pool.terminate()
    args.nets = (loc.cpu().eval(), cls.cpu().eval())
    return stats


def _jitter_on(x: Any, g: Any) -> Any:
    """``models.train._jitter`` for a batch already on the GPU (factors drawn on the CPU)."""
    import torch

    b = x.shape[0]
    gain = torch.empty(b, 1, 1, 1).uniform_(0.6, 1.3, generator=g)
    chan = torch.empty(b, 3, 1, 1).uniform_(0.85, 1.15, generator=g)
    bias = torch.empty(b, 1, 1, 1).uniform_(-30, 30, generator=g)
    dev = x.device
    return (x * gain.to(dev) * chan.to(dev) + bias.to(dev)).clamp(0, 255)


def train_mode(net: Any) -> None:
    """Training mode with every BatchNorm frozen: weights read back from an exported graph
    hold the BatchNorms folded into the convolutions (identity statistics), which batch
    statistics would overturn at the first step."""
    import torch

    net.train()
    for m in net.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.eval()


def shipped_meta(path: Path) -> dict[str, str]:
    """The shipped model's thresholds (chosen on training-design validation), carried over
    (read by onnxruntime: the ``onnx`` package may be missing)."""
    import onnxruntime as ort

    if not path.is_file():
        return {}
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    props = sess.get_modelmeta().custom_metadata_map
    return {k: props[k] for k in THRESHOLD_KEYS if k in props}


def initial_nets(init: str) -> tuple[Any, Any] | None:
    """(localiser, classifier) to continue from: a ``{"loc", "cls"}`` state file made by
    ``models.pack_renders`` (no ``onnx`` package needed), or an ONNX graph."""
    import torch

    from models.nets import ClsNet, LocNet

    path = Path(init)
    if not path.is_file():
        return None
    if path.suffix == ".pt":
        state = torch.load(path)
        loc = LocNet()
        loc.load_state_dict(state["loc"])
        return loc, ClsNet.from_state(state["cls"])
    from models.from_onnx import nets_from_onnx

    return nets_from_onnx(path)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m models.device_train", description=__doc__)
    ap.add_argument("--renders", type=Path, default=REPO / "artifacts/pack/renders-train.tar")
    ap.add_argument("--eval-renders", type=Path, default=REPO / "artifacts/pack/renders-eval.tar")
    ap.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "artifacts/device")))
    ap.add_argument(
        "--init",
        default=str(REPO / "artifacts/pack/init.pt"),
        help="weights to continue from (.pt from pack_renders, or an ONNX graph)",
    )
    ap.add_argument("--minutes", type=float, default=7.5, help="whole run, wall clock")
    ap.add_argument("--eval-minutes", type=float, default=2.0, help="kept for export + eval")
    ap.add_argument("--crop", default="32x48", help="classifier input WxH")
    ap.add_argument("--workers", type=int, default=max(1, (os.cpu_count() or 2) - 4))
    ap.add_argument("--threads", type=int, default=4, help="torch CPU threads (augmentation)")
    ap.add_argument("--device", default=None, help="cuda or cpu (default: cuda if there)")
    ap.add_argument("--holdout-scenes", type=int, default=100)
    ap.add_argument("--real", type=Path, default=None, help="real photos for vision.eval")
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--enrolled", type=Path, default=None, help="a deck enrolled by tablescan deck")
    ap.add_argument("--enrolled-share", type=float, default=0.5, help="its share of the scenes")
    ap.add_argument("--no-eval", action="store_true", help="export only (enrollment)")
    ap.add_argument("--dry-run", action="store_true", help="toy sizes on the CPU, seconds")
    args = ap.parse_args(argv)
    import torch

    args.t0 = time.monotonic()
    w, h = (int(v) for v in args.crop.lower().split("x"))
    args.crop = (w, h)
    _set_crop(args.crop)
    args.device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    big = {
        "loc_lr": 6e-4, "cls_lr": 1.5e-3, "loc_buffer": 6000, "cls_buffer": 200_000,
        "loc_batch": 64, "cls_batch": 512, "cls_per_loc": 2, "procedural": 24,
        "warm_scenes": 64, "max_steps": 10**9,
    }  # fmt: skip
    if args.device == "cpu" and not args.dry_run:  # a CPU fine-tune (enrollment): smaller
        big |= {
            "loc_buffer": 800, "cls_buffer": 60_000, "loc_batch": 12, "cls_batch": 192,
            "cls_per_loc": 3, "procedural": 12, "warm_scenes": 6,
        }  # fmt: skip
    if args.dry_run:
        big |= {
            "loc_buffer": 64, "cls_buffer": 4096, "loc_batch": 4, "cls_batch": 32,
            "cls_per_loc": 1, "procedural": 2, "warm_scenes": 2, "max_steps": 3,
        }  # fmt: skip
        args.workers, args.holdout_scenes, args.device = 0, 2, "cpu"
    for k, v in big.items():
        setattr(args, k, v)
    args.train_seconds = max(5.0, (args.minutes - args.eval_minutes) * 60)
    args.out.mkdir(parents=True, exist_ok=True)
    print(f"device {args.device}, {args.workers} scene workers, crop {w}x{h}", flush=True)
    stats = train(args)
    from models.train import export

    loc, cls = args.nets
    onnx_path = args.out / "cards.onnx"
    torch.save(loc.state_dict(), args.out / "loc.pt")  # first: the weights survive a failed export
    torch.save(cls.state_dict(), args.out / "cls.pt")
    export(loc, cls, onnx_path, shipped_meta(SHIPPED))
    stats["train_wall_s"] = round(time.monotonic() - args.t0, 1)
    (args.out / "train_stats.json").write_text(json.dumps(stats, indent=1))
    print(f"trained: {json.dumps({k: v for k, v in stats.items() if 'loss' not in k})}")
    if args.no_eval:
        print(f"total wall {time.monotonic() - args.t0:.1f}s")
        return 0
    from vision import eval as E

    common = ["--renders", str(args.eval_renders), "--holdout-scenes", str(args.holdout_scenes)]
    if args.real is not None:
        common += ["--real", str(args.real)]
    rc = E.main(["--model", str(onnx_path), "--out", str(args.out / "eval_new"), *common])
    if not args.dry_run and SHIPPED.is_file():  # the same scenes, the shipped model
        E.main(["--model", str(SHIPPED), "--out", str(args.out / "eval_shipped"), *common])
    print(f"total wall {time.monotonic() - args.t0:.1f}s")
    return rc


if __name__ == "__main__":
    sys.exit(main())
