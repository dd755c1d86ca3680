"""Card renders (and the procedural corners' font sheets) packed for a machine that has no
SVG decks and no rsvg-convert: ``python -m models.pack_renders --split train``.

A lent GPU machine gets only what is carried to it (64 MiB in all), so scenes are composed
there from renders made here: one tar per split under ``artifacts/pack/`` (git-ignored),
the ``train`` one with the training designs only (the HOLDOUT.md designs are refused, as
by the generator) and the font sheets of ``models.procedural``; the ``eval`` one with the
held-out designs, read only by ``vision.eval --renders``. ``load_pack`` serves a tar's
renders to ``vision.synth.scene`` (``add_source``) and returns its decks.
"""

from __future__ import annotations

import argparse
import io
import json
import logging
import os
import sys
import tarfile
from pathlib import Path

import cv2
import numpy as np

from vision.synth.dataset import usable_decks
from vision.synth.decks import BrokenRenderError, DeckInfo, check_split, render_card
from vision.synth.pack import load_pack as read_pack
from vision.synth.scene import SRC_HEIGHT

log = logging.getLogger(__name__)

PACK_DIR = Path("artifacts/pack")
MAX_MIB = 40.0


def pack_path(split: str, folder: Path = PACK_DIR) -> Path:
    return folder / f"renders-{split}.tar"


def _add(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    tar.addfile(info, io.BytesIO(data))


def _png(img: np.ndarray) -> bytes:
    ok, buf = cv2.imencode(".png", img, [cv2.IMWRITE_PNG_COMPRESSION, 9])
    if not ok:
        raise ValueError("render: PNG encoding failed")
    return buf.tobytes()


def pack(
    split: str,
    out: Path,
    only: tuple[str, ...] = (),
    max_mib: float = MAX_MIB,
    fonts: bool = True,
    cards: int = 0,
) -> dict[str, object]:
    """Render (or take from the render cache) every usable card of the split's designs and
    write them to ``out``; designs are added whole until the archive would pass
    ``max_mib`` (``cards`` > 0: only that many cards a design, for tests). Returns the
    manifest."""
    decks, usable = usable_decks(split, only)
    check_split(decks, split)
    out.parent.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, object] = {"split": split, "height": SRC_HEIGHT, "decks": []}
    listed: list[dict[str, object]] = []
    budget = int(max_mib * 1024 * 1024)
    total = 0
    with tarfile.open(out, "w") as tar:
        if fonts and split == "train":
            blob = _font_sheets()
            _add(tar, "fonts.npz", blob)
            total += len(blob)
        for d in decks:
            files: dict[str, bytes] = {}
            for card in usable[d.name][: cards or None]:
                try:
                    files[card] = _png(render_card(d, card, SRC_HEIGHT))
                except BrokenRenderError as e:
                    log.info("%s", e)
            size = sum(len(b) for b in files.values())
            if total + size > budget:
                log.warning("deck %s: left out, the pack would pass %.0f MiB", d.name, max_mib)
                continue
            folder = d.name.replace("/", "_")
            for card, data in files.items():
                _add(tar, f"{folder}/{card}.png", data)
            total += size
            entry = {"name": d.name, "package": d.package, "scheme": d.scheme, "folder": folder}
            listed.append(entry | {"cards": sorted(files)})
            print(f"packed {d.name}: {len(files)} cards, {size / 1024:.0f} KiB", flush=True)
        manifest["decks"] = listed
        _add(tar, "manifest.json", json.dumps(manifest, indent=1).encode())
    print(f"wrote {out}: {len(listed)} designs, {out.stat().st_size / 2**20:.1f} MiB")
    return manifest


def _font_sheets() -> bytes:
    """The procedural corners' system-font glyph masks (rsvg-convert renders them here)."""
    from models import procedural as P

    arrays: dict[str, np.ndarray] = {}
    for font in range(len(P.SVG_FONTS)):
        sheet = P._svg_sheet(font)
        for text, mask in (sheet or {}).items():
            arrays[f"{font}\t{text}"] = np.round(mask * 255).astype(np.uint8)
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)  # type: ignore[arg-type]
    return buf.getvalue()


def load_pack(path: Path, split: str) -> tuple[list[DeckInfo], dict[str, list[str]]]:
    """``vision.synth.pack.load_pack`` with the pack's glyph fonts given to the procedural
    generator (training)."""
    return read_pack(path, split, on_fonts=_load_fonts)


def _load_fonts(blob: bytes) -> None:
    from models import procedural as P

    z = np.load(io.BytesIO(blob))
    for key in z.files:
        font, text = key.split("\t", 1)
        P._svg_cache.setdefault(int(font), {})[text] = z[key].astype(np.float32) / 255.0


def save_init(model: Path, out: Path) -> None:
    """The shipped graph's weights as torch state (``{"loc", "cls"}``), so a training
    machine without the ``onnx`` package continues from them."""
    import torch

    from models.from_onnx import nets_from_onnx

    loc, cls = nets_from_onnx(model)
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save({"loc": loc.state_dict(), "cls": cls.state_dict()}, out)
    print(f"wrote {out} (weights of {model})")


def copy_real_win(src: Path, out: Path) -> int:
    """The overhead ``WIN_`` real photos and their labels, for ``vision.eval --real`` on the
    training machine (evaluation only, never trained on)."""
    import shutil

    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    shutil.copy(src / "classes.txt", out / "classes.txt")
    n = 0
    for img in sorted((src / "images").glob("WIN_*.jpg")):
        lab = src / "labels" / (img.stem + ".txt")
        if lab.exists():
            shutil.copy(img, out / "images" / img.name)
            shutil.copy(lab, out / "labels" / lab.name)
            n += 1
    print(f"copied {n} WIN_ photos to {out}")
    return n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m models.pack_renders", description=__doc__)
    ap.add_argument("--split", choices=("train", "eval"), default="train")
    ap.add_argument("--out", type=Path, default=None, help="tar path (default artifacts/pack/)")
    ap.add_argument("--only", default="", help="comma-separated design names")
    ap.add_argument("--max-mib", type=float, default=MAX_MIB)
    ap.add_argument("--cards", type=int, default=0, help="at most this many cards a design")
    ap.add_argument("--init-from", type=Path, default=Path("models/cards.onnx"))
    ap.add_argument("--copy-real-win", action="store_true", help="with --split eval")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    only = tuple(n for n in args.only.split(",") if n)
    out = args.out or pack_path(args.split)
    pack(args.split, out, only, args.max_mib, cards=args.cards)
    if args.split == "train" and args.init_from.is_file():
        save_init(args.init_from, out.parent / "init.pt")
    if args.copy_real_win:
        from vision.eval import REAL_DEFAULT

        src = Path(os.environ.get("TABLESCAN_REAL_CARDS", REAL_DEFAULT))
        copy_real_win(src, out.parent / "real_win")
    return 0


if __name__ == "__main__":
    sys.exit(main())
