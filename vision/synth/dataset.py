"""Write a synthetic scene dataset: ``python -m vision.synth.dataset --out DIR --count N``.

Each scene becomes ``scene_NNNNNN.jpg`` + ``scene_NNNNNN.json`` (labels from the composer).
Scene ``i`` is drawn from ``numpy.random.default_rng([seed, i])``, so a dataset is the same
whatever the number of workers, and any scene can be regenerated alone. Training sets never
contain a HOLDOUT.md design: ``--split eval`` is the only way to render those.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

import cv2
import numpy as np

from vision.synth.decks import BACK, DeckInfo, check_split, list_decks, usable_cards
from vision.synth.scene import SceneConfig, compose_scene

log = logging.getLogger(__name__)

MIN_FACES = 20  # a design with fewer well-rendered faces than this is left out


@dataclass(frozen=True, slots=True)
class DatasetSpec:
    out: Path
    count: int
    seed: int
    split: str = "train"
    start: int = 0  # first scene index (to extend a dataset)
    only: tuple[str, ...] = ()  # deck names to restrict to (empty: every design of the split)
    config: SceneConfig = field(default_factory=SceneConfig)


def usable_decks(
    split: str, only: tuple[str, ...] = ()
) -> tuple[list[DeckInfo], dict[str, list[str]]]:
    """Designs of ``split`` (or just those named in ``only``) with enough cards that render
    well, and those cards."""
    decks = [d for d in list_decks(split) if not only or d.name in only]
    if only and len(decks) != len(set(only)):
        raise ValueError(f"decks {sorted(only)}: not all are {split} designs installed here")
    check_split(decks, split)
    usable = {d.name: usable_cards(d) for d in decks}
    keep = [d for d in decks if sum(c != BACK for c in usable[d.name]) >= MIN_FACES]
    for d in decks:
        if d not in keep:
            log.warning("deck %s: only %d cards render well; left out", d.name, len(usable[d.name]))
    return keep, usable


class Progress:
    """A one-line progress bar on stderr (generation and training both use it)."""

    def __init__(self, total: int, label: str, stream: TextIO | None = None) -> None:
        self.total, self.label, self.done = max(total, 1), label, 0
        self.start = time.monotonic()
        self.stream = stream if stream is not None else sys.stderr
        self._last = 0.0

    def update(self, n: int = 1, note: str = "") -> None:
        self.done += n
        now = time.monotonic()
        if now - self._last < 0.5 and self.done < self.total:
            return
        self._last = now
        frac = self.done / self.total
        el = now - self.start
        eta = el / frac - el if frac > 0 else 0.0
        bar = "#" * int(30 * frac) + "-" * (30 - int(30 * frac))
        line = f"\r{self.label} [{bar}] {self.done}/{self.total} {el:5.0f}s eta {eta:5.0f}s {note}"
        self.stream.write(line)
        if self.done >= self.total:
            self.stream.write("\n")
        self.stream.flush()


_WORKER: tuple[list[DeckInfo], dict[str, list[str]], DatasetSpec] | None = None


def _init(spec: DatasetSpec) -> None:
    global _WORKER
    decks, usable = usable_decks(spec.split, spec.only)
    _WORKER = (decks, usable, spec)


def _one(i: int) -> int:
    assert _WORKER is not None
    decks, usable, spec = _WORKER
    write_scene(spec, decks, usable, i)
    return i


def write_scene(
    spec: DatasetSpec, decks: list[DeckInfo], usable: dict[str, list[str]], i: int
) -> Path:
    """Compose scene ``i`` of the dataset and write its image and labels."""
    scene = compose_scene(np.random.default_rng([spec.seed, i]), decks, usable, spec.config)
    stem = spec.out / f"scene_{i:06d}"
    cv2.imwrite(str(stem) + ".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, 95])
    stem.with_suffix(".json").write_text(json.dumps(scene.to_json()))
    return stem.with_suffix(".jpg")


def generate(spec: DatasetSpec, workers: int = 1, progress: bool = True) -> list[Path]:
    """Write the whole dataset; returns the image paths in order."""
    spec.out.mkdir(parents=True, exist_ok=True)
    meta = {"count": spec.count, "start": spec.start, "seed": spec.seed, "split": spec.split}
    (spec.out / f"dataset_{spec.start}.json").write_text(json.dumps(meta))
    from vision.progress import Progress as Bar  # issue 19: rich bar on a TTY

    bar = Bar(spec.count, f"scenes ({spec.split})") if progress else None
    todo = range(spec.start, spec.start + spec.count)
    if workers <= 1:
        _init(spec)
        it: Iterator[int] = map(_one, todo)
        for _ in it:
            if bar:
                bar.update()
    else:
        with ProcessPoolExecutor(workers, initializer=_init, initargs=(spec,)) as ex:
            for _ in ex.map(_one, todo, chunksize=8):
                if bar:
                    bar.update()
    return [spec.out / f"scene_{i:06d}.jpg" for i in todo]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m vision.synth.dataset", description=__doc__)
    ap.add_argument("--out", required=True, type=Path, help="output folder (keep it git-ignored)")
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--start", type=int, default=0, help="first scene index (extend a set)")
    ap.add_argument("--split", choices=("train", "eval"), default="train")
    ap.add_argument("--workers", type=int, default=1)
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    spec = DatasetSpec(args.out, args.count, args.seed, args.split, start=args.start)
    generate(spec, args.workers)
    return 0


if __name__ == "__main__":
    sys.exit(main())
