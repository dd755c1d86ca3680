"""Train the card model on synthetic scenes and export ``models/cards.onnx``.

    nice -n 10 .venv/bin/python -m models.train --data data/synth/train \\
        --cls-minutes 12 --loc-minutes 30 --out models/cards.onnx

Why time budgets rather than epochs: training shares a 2-core CPU; a wall-clock budget
(cosine learning-rate schedule over it) finishes when planned whatever the load. Torch runs
with 2 threads. The last 4% of scenes are kept for validation (printed, never trained on).
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import sys
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader, Dataset

from models.nets import CardModel, ClsNet, LocNet
from models.onnx_meta import add_metadata
from models.targets import index_crops, loc_target
from vision.detect import (
    CH_BACK_HEAT,
    CH_BACK_OFF,
    CH_IDX_HEAT,
    CH_IDX_OFF,
    CLASSES,
    LOC_CHANNELS,
    LOC_LONG,
    LOC_STRIDE,
)
from vision.progress import Progress  # issue 19: rich bar on a TTY

log = logging.getLogger(__name__)

LOC_CROP = 192  # localiser trains on square crops of the downscaled scene


def scene_paths(data: Path) -> tuple[list[Path], list[Path]]:
    """(train, validation) scene images of a dataset folder: every 25th scene validates.

    Scenes still being written (no labels yet) are left out, so training may start while
    the generator runs and pick up more scenes when the localiser phase begins."""
    paths = [p for p in sorted(data.glob("scene_*.jpg")) if p.with_suffix(".json").exists()]
    if not paths:
        raise SystemExit(f"error: no scene_*.jpg in {data} (run python -m vision.synth.dataset)")
    val = [p for p in paths if int(p.stem.split("_")[1]) % 25 == 0]
    return [p for p in paths if p not in set(val)], val


def _labels(p: Path) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(p.with_suffix(".json").read_text())
    return out


# ---------------------------------------------------------------- classifier


def crop_bank(paths: list[Path], seed: int, label: str) -> tuple[np.ndarray, np.ndarray]:
    """All classifier samples of ``paths`` (uint8 N×40×28×3, int64 N)."""
    rng = np.random.default_rng(seed)
    xs: list[np.ndarray] = []
    ys: list[int] = []
    bar = Progress(len(paths), f"crops ({label})")
    for p in paths:
        img = cv2.imread(str(p), cv2.IMREAD_COLOR)
        if img is None:
            log.error("scene %s: unreadable, skipped", p)
            bar.update()
            continue
        c, y = index_crops(img, _labels(p), rng)
        xs.extend(c)
        ys.extend(y)
        bar.update()
    return np.stack(xs), np.asarray(ys, np.int64)


def cached_bank(
    paths: list[Path], seed: int, label: str, ckpt: Path
) -> tuple[np.ndarray, np.ndarray]:
    """``crop_bank`` kept in ``ckpt`` between runs, keyed by the scenes, seed and geometry."""
    from vision.detect import CROP_X0, CROP_X1, CROP_Y0, CROP_Y1

    last = paths[-1].stem if paths else ""
    key = f"{len(paths)}-{last}-{seed}-{CROP_X0}-{CROP_X1}-{CROP_Y0}-{CROP_Y1}"
    f = ckpt / f"bank-{label}-{key}.npz"
    if f.exists():
        z = np.load(f)
        return z["x"], z["y"]
    x, y = crop_bank(paths, seed, label)
    ckpt.mkdir(parents=True, exist_ok=True)
    np.savez(f, x=x, y=y)
    return x, y


def _augment_crops(x: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    """Photometric jitter on a batch of crops (B×3×H×W float 0..255)."""
    b = x.shape[0]
    gain = torch.empty(b, 1, 1, 1).uniform_(0.55, 1.35, generator=g)
    chan = torch.empty(b, 3, 1, 1).uniform_(0.8, 1.2, generator=g)
    bias = torch.empty(b, 1, 1, 1).uniform_(-40, 40, generator=g)
    x = x * gain * chan + bias
    grey = torch.rand(b, generator=g) < 0.2
    if grey.any():
        x[grey] = x[grey].mean(1, keepdim=True).expand(-1, 3, -1, -1)
    inv = torch.rand(b, generator=g) < 0.05  # dark-faced decks exist
    if inv.any():
        x[inv] = 255 - x[inv]
    x = x + torch.randn(x.shape, generator=g) * torch.empty(b, 1, 1, 1).uniform_(0, 10, generator=g)
    blur = torch.rand(b, generator=g) < 0.25
    if blur.any():
        x[blur] = F.avg_pool2d(x[blur], 3, 1, 1, count_include_pad=False)
    return x.clamp(0, 255)


def train_cls(
    bank: tuple[np.ndarray, np.ndarray],
    val: tuple[np.ndarray, np.ndarray],
    minutes: float,
    seed: int,
    init: ClsNet | None = None,
    lr0: float = 3e-3,
    width: float = 1.0,
) -> ClsNet:
    torch.manual_seed(seed)
    g = torch.Generator().manual_seed(seed)
    net = init or ClsNet(width)
    opt = torch.optim.AdamW(net.parameters(), lr=lr0, weight_decay=1e-4)
    x_all = torch.from_numpy(bank[0]).permute(0, 3, 1, 2).contiguous()
    y_all = torch.from_numpy(bank[1])
    budget = minutes * 60
    start = time.monotonic()
    step, bs = 0, 256
    bar = Progress(int(budget), "classifier (s)")
    last = 0
    while (el := time.monotonic() - start) < budget:
        net.train()
        lr = lr0 * 0.5 * (1 + math.cos(math.pi * el / budget))
        for pg in opt.param_groups:
            pg["lr"] = lr
        idx = torch.randint(0, len(y_all), (bs,), generator=g)
        x = _augment_crops(x_all[idx].float(), g)
        loss = F.cross_entropy(net(x), y_all[idx], label_smoothing=0.05)
        opt.zero_grad()
        loss.backward()  # type: ignore[no-untyped-call]
        opt.step()
        step += 1
        if int(el) > last:
            bar.update(int(el) - last, f"step {step} loss {loss.item():.3f}")
            last = int(el)
    bar.update(max(0, int(budget) - last))
    acc = eval_cls(net, val)
    print(f"classifier: {step} steps, validation accuracy {acc:.4f} on {len(val[1])} crops")
    return net


@torch.no_grad()
def widen_cls(small: ClsNet, width: float, seed: int) -> ClsNet:
    """A wider classifier that computes what ``small`` computes (Net2WiderNet): each new
    channel copies an old one and the layer after shares the copies' weight, so a longer
    run starts from the trained reads instead of from scratch. A little noise breaks the
    copies' symmetry."""
    g = torch.Generator().manual_seed(seed)
    big = ClsNet(width, small.crop)
    convs_s = [m for m in small.body.modules() if isinstance(m, nn.Conv2d)]
    bns_s = [m for m in small.body.modules() if isinstance(m, nn.BatchNorm2d)]
    convs_b = [m for m in big.body.modules() if isinstance(m, nn.Conv2d)]
    bns_b = [m for m in big.body.modules() if isinstance(m, nn.BatchNorm2d)]

    def pick(old: int, new: int) -> tuple[torch.Tensor, torch.Tensor]:
        extra = torch.randint(0, old, (new - old,), generator=g)
        idx = torch.cat([torch.arange(old), extra])
        return idx, torch.bincount(idx, minlength=old).float()[idx]

    prev_idx, prev_cnt = torch.arange(3), torch.ones(3)
    for cs, bs, cb, bb in zip(convs_s, bns_s, convs_b, bns_b, strict=True):
        idx, cnt = pick(cs.out_channels, cb.out_channels)
        w = cs.weight[idx][:, prev_idx] / prev_cnt[None, :, None, None]
        cb.weight.copy_(w + 1e-3 * w.std() * torch.randn(w.shape, generator=g))
        for name in ("weight", "bias", "running_mean", "running_var"):
            getattr(bb, name).copy_(getattr(bs, name)[idx])
        prev_idx, prev_cnt = idx, cnt
    lin_s, lin_b = small.fc[2], big.fc[2]
    assert isinstance(lin_s, nn.Linear) and isinstance(lin_b, nn.Linear)
    cells = small.cells[0] * small.cells[1]  # the last feature map, flattened channel-major
    feat = (prev_idx[:, None] * cells + torch.arange(cells)[None]).reshape(-1)
    hid, hcnt = pick(lin_s.out_features, lin_b.out_features)
    w = lin_s.weight[hid][:, feat] / prev_cnt.repeat_interleave(cells)[None]
    lin_b.weight.copy_(w + 1e-3 * w.std() * torch.randn(w.shape, generator=g))
    lin_b.bias.copy_(lin_s.bias[hid])
    big.out.weight.copy_(small.out.weight[:, hid] / hcnt[None])
    big.out.bias.copy_(small.out.bias)
    return big


def peak_bank(paths: list[Path], model: Path, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Classifier samples at the *localiser's own* peaks (what the classifier sees at run
    time): a peak on a well-visible index corner is that face, a peak on nothing is
    "none", a peak on a half-hidden corner is left out. Plus jittered true corners."""
    from vision.detect import CardDetector, crop_index, decode_indices, suppress_duplicates

    det = CardDetector(model)
    rng = np.random.default_rng(seed)
    xs: list[np.ndarray] = []
    ys: list[int] = []
    none = CLASSES.index("none")
    bar = Progress(len(paths), "peak crops")
    for p in paths:
        img = cv2.imread(str(p), cv2.IMREAD_COLOR)
        if img is None:
            bar.update()
            continue
        lab = _labels(p)
        loc, s = det.localise(img)
        peaks = suppress_duplicates(
            decode_indices(loc, s, det.thresholds), det.thresholds.dup_radius
        )
        corners = [
            (ix["xy"], ix["visible"], ix["height"], c["card"])
            for c in lab["cards"]
            for ix in c.get("indices", [])
        ]
        pyr: list[np.ndarray] = []
        for pk in peaks:
            near = [
                (math.dist(xy, (pk.x, pk.y)), v, card)
                for xy, v, h, card in corners
                if math.dist(xy, (pk.x, pk.y)) < 0.12 * h
            ]
            if near:
                _, v, card = min(near)
                if v >= 0.75:
                    y = CLASSES.index(card)
                elif v < 0.35:
                    y = none
                else:
                    continue
            else:
                y = none
            xs.append(crop_index(img, pk, pyr))
            ys.append(y)
        c, yy = index_crops(img, lab, rng, neg_ratio=0.2)
        xs.extend(c)
        ys.extend(yy)
        bar.update()
    return np.stack(xs), np.asarray(ys, np.int64)


@torch.no_grad()
def eval_cls(net: ClsNet, val: tuple[np.ndarray, np.ndarray]) -> float:
    net.eval()
    x = torch.from_numpy(val[0]).permute(0, 3, 1, 2).float()
    pred = torch.cat([net(x[i : i + 512]).argmax(1) for i in range(0, len(x), 512)])
    return float((pred == torch.from_numpy(val[1])).float().mean())


# ---------------------------------------------------------------- localiser


class LocScenes(Dataset[tuple[torch.Tensor, ...]]):
    """Scenes downscaled like ``vision.detect.loc_input`` (× a random zoom), cropped."""

    def __init__(self, paths: list[Path], seed: int, train: bool = True) -> None:
        self.paths, self.seed, self.train = paths, seed, train
        self.epoch = 0

    def __len__(self) -> int:
        return len(self.paths)

    def __getitem__(self, i: int) -> tuple[torch.Tensor, ...]:
        rng = np.random.default_rng([self.seed, self.epoch, i])
        p = self.paths[i]
        img = cv2.imread(str(p), cv2.IMREAD_COLOR)
        if img is None:
            raise ValueError(f"scene {p}: unreadable image")
        return tuple(torch.from_numpy(a) for a in loc_sample(img, _labels(p), rng, self.train))


def loc_sample(
    img: np.ndarray, lab: dict[str, Any], rng: np.random.Generator, train: bool = True
) -> tuple[np.ndarray, ...]:
    """One localiser sample of a scene: a LOC_CROP square of the frame downscaled like
    ``vision.detect.loc_input`` (× a random zoom when training) and its targets
    (input 3×C×C float32, heat, weight, reg, reg_mask)."""
    h, w = img.shape[:2]
    s = LOC_LONG / max(h, w)
    if train:
        s *= math.exp(rng.uniform(math.log(0.6), math.log(1.5)))
    nw, nh = max(1, round(w * s)), max(1, round(h * s))
    small = cv2.resize(img, (nw, nh), interpolation=cv2.INTER_AREA)
    c = LOC_CROP
    canvas = np.zeros((c, c, 3), np.uint8)
    canvas[:] = rng.integers(0, 256, 3) if train else 0
    x0 = int(rng.integers(min(0, nw - c), max(0, nw - c) + 1))
    y0 = int(rng.integers(min(0, nh - c), max(0, nh - c) + 1))
    sx0, sy0 = max(0, x0), max(0, y0)
    sx1, sy1 = min(nw, x0 + c), min(nh, y0 + c)
    canvas[sy0 - y0 : sy1 - y0, sx0 - x0 : sx1 - x0] = small[sy0:sy1, sx0:sx1]
    t = loc_target(lab, s, c // LOC_STRIDE, c // LOC_STRIDE, -x0, -y0)
    x = np.ascontiguousarray(canvas.transpose(2, 0, 1).astype(np.float32))
    return x, t.heat, t.weight, t.reg, t.reg_mask


def focal(pred: torch.Tensor, gt: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """CenterNet's penalty-reduced focal loss on probability maps."""
    p = pred.clamp(1e-4, 1 - 1e-4)
    pos = (gt >= 0.99).float()
    pos_l = -torch.log(p) * (1 - p) ** 2 * pos
    neg_l = -torch.log(1 - p) * p**2 * (1 - gt) ** 4 * (1 - pos) * w
    return (pos_l.sum() + neg_l.sum()) / pos.sum().clamp(min=1)


def loc_loss(out: torch.Tensor, heat, weight, reg, mask) -> torch.Tensor:  # type: ignore[no-untyped-def]
    loss = focal(out[:, CH_IDX_HEAT], heat[:, 0], weight[:, 0])
    loss = loss + focal(out[:, CH_BACK_HEAT], heat[:, 1], weight[:, 1])
    for grp, (a, b) in enumerate(((CH_IDX_OFF, CH_BACK_HEAT), (CH_BACK_OFF, LOC_CHANNELS))):
        m = (mask[:, grp : grp + 1] > 0).float()
        n = m.sum().clamp(min=1)
        loss = (
            loss
            + (F.smooth_l1_loss(out[:, a:b], reg[:, a:b], reduction="none", beta=0.1) * m).sum() / n
        )
    return loss


def _jitter(x: torch.Tensor, g: torch.Generator) -> torch.Tensor:
    b = x.shape[0]
    x = x * torch.empty(b, 1, 1, 1).uniform_(0.6, 1.3, generator=g)
    x = x * torch.empty(b, 3, 1, 1).uniform_(0.85, 1.15, generator=g)
    x = x + torch.empty(b, 1, 1, 1).uniform_(-30, 30, generator=g)
    return x.clamp(0, 255)


def train_loc(
    train: list[Path],
    val: list[Path],
    minutes: float,
    seed: int,
    workers: int,
    init: LocNet | None = None,
    lr0: float = 2e-3,
) -> LocNet:
    torch.manual_seed(seed)
    g = torch.Generator().manual_seed(seed + 1)
    net = init or LocNet()
    opt = torch.optim.AdamW(net.parameters(), lr=lr0, weight_decay=1e-4)
    ds = LocScenes(train, seed)
    budget = minutes * 60
    start = time.monotonic()
    step = 0
    bar = Progress(int(budget), "localiser (s)")
    last = 0
    done = False
    while not done:
        dl = DataLoader(
            ds,
            batch_size=16,
            shuffle=True,
            num_workers=workers,
            drop_last=True,
            persistent_workers=False,
            generator=torch.Generator().manual_seed(seed + ds.epoch),
        )
        for x, heat, weight, reg, mask in dl:
            el = time.monotonic() - start
            if el >= budget:
                done = True
                break
            net.train()
            lr = lr0 * min(1.0, (step + 1) / 100) * 0.5 * (1 + math.cos(math.pi * el / budget))
            for pg in opt.param_groups:
                pg["lr"] = lr
            from models.nets import finish_loc

            out = finish_loc(net.raw(_jitter(x, g)))
            loss = loc_loss(out, heat, weight, reg, mask)
            opt.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            torch.nn.utils.clip_grad_norm_(net.parameters(), 5.0)
            opt.step()
            step += 1
            if int(el) > last:
                bar.update(int(el) - last, f"step {step} loss {loss.item():.3f}")
                last = int(el)
        ds.epoch += 1
    bar.update(max(0, int(budget) - last))
    print(f"localiser: {step} steps ({ds.epoch} passes), validation loss {eval_loc(net, val):.4f}")
    return net


@torch.no_grad()
def eval_loc(net: LocNet, val: list[Path]) -> float:
    net.eval()
    ds = LocScenes(val, 0, train=False)
    losses = [
        float(loc_loss(net(x[None]), h[None], w[None], r[None], m[None]))
        for x, h, w, r, m in (ds[i] for i in range(len(ds)))
    ]
    return float(np.mean(losses)) if losses else float("nan")


# ---------------------------------------------------------------- export


def export(loc: LocNet, cls: ClsNet, out: Path, meta: dict[str, str] | None = None) -> None:
    """One ONNX graph, two inputs (see vision.detect); the crops input has the
    classifier's own size. ``meta``: metadata entries (thresholds) written into the graph."""
    model = CardModel(loc, cls).eval()
    out.parent.mkdir(parents=True, exist_ok=True)
    crop_w, crop_h = cls.crop
    torch.onnx.export(
        model,
        (torch.zeros(1, 3, 288, 512), torch.zeros(2, 3, crop_h, crop_w)),
        str(out),
        input_names=["image", "crops"],
        output_names=["loc", "cls"],
        dynamic_axes={"image": {2: "h", 3: "w"}, "crops": {0: "n"}, "cls": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )
    if meta:
        add_metadata(out, meta)
    size = out.stat().st_size / 1e6
    print(f"exported {out} ({size:.2f} MB, {len(CLASSES)} classes, crops {crop_w}x{crop_h})")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m models.train", description=__doc__)
    ap.add_argument("--data", type=Path, default=Path("data/synth/train"))
    ap.add_argument("--out", type=Path, default=Path("models/cards.onnx"))
    ap.add_argument("--cls-minutes", type=float, default=12)
    ap.add_argument("--loc-minutes", type=float, default=30)
    ap.add_argument("--cls-scenes", type=int, default=3000, help="scenes mined for crops")
    ap.add_argument("--ckpt", type=Path, default=Path("artifacts/train"), help="checkpoints")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--export-only", action="store_true", help="export the checkpoints")
    ap.add_argument("--finetune-loc", type=float, default=0, help="minutes more localiser")
    ap.add_argument(
        "--finetune-cls",
        type=float,
        default=0,
        help="minutes tuning the classifier on --out's peaks",
    )
    ap.add_argument("--workers", type=int, default=1, help="data-loading processes")
    ap.add_argument("--init-cls", type=Path, help="warm-start the classifier from this state")
    ap.add_argument("--cls-width", type=float, default=1.0, help="classifier channel multiplier")
    ap.add_argument("--cls-lr", type=float, default=3e-3, help="classifier peak learning rate")
    ap.add_argument(
        "--procedural", type=int, default=0, help="procedural index corners added to the crops"
    )
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    torch.set_num_threads(args.threads)
    t0 = time.monotonic()
    if args.finetune_cls > 0:  # classifier on the localiser's own peaks, from checkpoints
        train, val = scene_paths(args.data)
        bank = peak_bank(train[: args.cls_scenes], args.out, args.seed + 11)
        vbank = peak_bank(val[:60], args.out, args.seed + 12)
        print(f"peak samples: {len(bank[1])} train, {len(vbank[1])} validation")
        cls, loc = ClsNet.load(args.ckpt / "cls.pt"), LocNet()
        loc.load_state_dict(torch.load(args.ckpt / "loc.pt"))
        print(f"before: validation accuracy {eval_cls(cls, vbank):.4f}")
        cls = train_cls(bank, vbank, args.finetune_cls, args.seed, init=cls, lr0=1e-3)
        torch.save(cls.state_dict(), args.ckpt / "cls_ft.pt")
        export(loc, cls, args.out)
        return 0
    if args.finetune_loc > 0:  # more localiser training from the checkpoints
        train, val = scene_paths(args.data)
        cls, loc = ClsNet.load(args.ckpt / "cls_ft.pt"), LocNet()
        loc.load_state_dict(torch.load(args.ckpt / "loc.pt"))
        loc = train_loc(
            train, val[:60], args.finetune_loc, args.seed + 5, args.workers, init=loc, lr0=6e-4
        )
        torch.save(loc.state_dict(), args.ckpt / "loc_ft.pt")
        export(loc, cls, args.out)
        return 0
    if args.export_only:
        cls, loc = ClsNet.load(args.ckpt / "cls.pt"), LocNet()
        loc.load_state_dict(torch.load(args.ckpt / "loc.pt"))
        export(loc, cls, args.out)
        return 0
    train, val = scene_paths(args.data)
    print(f"{len(train)} training scenes, {len(val)} validation scenes in {args.data}")
    args.ckpt.mkdir(parents=True, exist_ok=True)
    if args.cls_minutes > 0:
        bank = cached_bank(train[: args.cls_scenes], args.seed, "train", args.ckpt)
        vbank = cached_bank(val[:60], args.seed + 1, "validation", args.ckpt)
        if args.procedural > 0:
            from models.procedural import procedural_bank

            extra = procedural_bank(args.procedural, args.seed + 100, workers=args.workers)
            bank = (np.concatenate([bank[0], extra[0]]), np.concatenate([bank[1], extra[1]]))
        print(f"classifier samples: {len(bank[1])} train, {len(vbank[1])} validation")
        init = None
        if args.init_cls is not None:
            init = ClsNet.load(args.init_cls)
            print(f"classifier: from {args.init_cls}, accuracy {eval_cls(init, vbank):.4f}")
            if args.cls_width != 1.0:
                init = widen_cls(init, args.cls_width, args.seed)
        cls = train_cls(
            bank,
            vbank,
            args.cls_minutes,
            args.seed,
            init=init,
            lr0=args.cls_lr,
            width=args.cls_width,
        )
        del bank
        torch.save(cls.state_dict(), args.ckpt / "cls.pt")
    else:  # localiser only: reuse the classifier checkpoint
        cls = ClsNet.load(args.ckpt / "cls.pt")
        print(f"classifier: loaded {args.ckpt / 'cls.pt'}")
    train, val = scene_paths(args.data)
    print(f"localiser: {len(train)} training scenes, {len(val)} validation scenes")
    loc = train_loc(train, val[:60], args.loc_minutes, args.seed, args.workers)
    torch.save(loc.state_dict(), args.ckpt / "loc.pt")
    export(loc, cls, args.out)
    print(f"total wall time {(time.monotonic() - t0) / 60:.1f} min")
    return 0


if __name__ == "__main__":
    sys.exit(main())
