"""Regenerate the committed detector fixtures (run by hand, not by pytest).

    .venv/bin/python tests/vision/make_fixtures.py [--check]

Simple overhead scenes of HOLDOUT (evaluation-only) deck designs: a few singles, a pair,
a fan, a back. ``expected.json`` lists the cards each scene must yield: the composer's
fully visible cards. Only scenes the shipped model reads exactly are kept (this is a
regression guard for the shipped model, not a measure of it: that is ``vision.eval``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from vision.detect import CardDetector  # noqa: E402
from vision.synth.dataset import usable_decks  # noqa: E402
from vision.synth.scene import BACK_VIS_POS, INDEX_VIS_POS, SceneConfig, compose_scene  # noqa: E402

HERE = Path(__file__).resolve().parent / "fixtures"
CFG = SceneConfig(
    card_height=(120.0, 190.0), closeup_p=0.0, square_photo_p=0.0, max_cards=7, hands_p=0.15
)


def truth(scene) -> list[str] | None:  # type: ignore[no-untyped-def]
    """Cards that must be found, or None when some card is only partly visible."""
    out = []
    for c in scene.cards:
        vis = c.visible if c.card == "back" else max(i.visible for i in c.indices)
        lo = 0.2 if c.card == "back" else 0.35
        hi = BACK_VIS_POS if c.card == "back" else INDEX_VIS_POS
        if vis >= hi:
            out.append(c.card)
        elif vis >= lo:
            return None  # ambiguous: leave such scenes out of the fixtures
    return sorted(out)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--want", type=int, default=3)
    ap.add_argument("--tries", type=int, default=60)
    args = ap.parse_args()
    det = CardDetector()
    decks, usable = usable_decks("eval")
    HERE.mkdir(exist_ok=True)
    expected: dict[str, list[str]] = {}
    for i in range(args.tries):
        scene = compose_scene(np.random.default_rng([4242, i]), decks, usable, CFG)
        want = truth(scene)
        if not want or len(want) < 3:
            continue
        got = sorted(d.card for d in det.detect(scene.image))
        print(i, "ok " if got == want else "bad", Counter(want), Counter(got))
        if got != want:
            continue
        name = f"scene_{i:03d}.jpg"
        small = scene.image
        cv2.imwrite(str(HERE / name), small, [cv2.IMWRITE_JPEG_QUALITY, 85])
        back = cv2.imread(str(HERE / name), cv2.IMREAD_COLOR)
        if back is None or sorted(d.card for d in det.detect(back)) != want:
            (HERE / name).unlink()
            continue
        expected[name] = want
        if len(expected) >= args.want:
            break
    (HERE / "expected.json").write_text(json.dumps(expected, indent=1) + "\n")
    print(f"kept {len(expected)}: {expected}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
