"""``vision.eval``'s in-envelope set (issue 26): held-out designs at the densities a table set
up to be read gives, run through the shipped model, beside the usual holdout row."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from vision.eval import ENVELOPE, ENVELOPE_SEED, main
from vision.synth.dataset import usable_decks
from vision.synth.scene import compose_scene


def test_envelope_scenes_are_2304_wide_with_cards_of_120_to_320_px() -> None:
    decks, usable = usable_decks("eval", ("gnome/tango_nuevo",))
    heights: list[float] = []
    for i in range(4):
        scene = compose_scene(np.random.default_rng([ENVELOPE_SEED, i]), decks, usable, ENVELOPE)
        assert scene.image.shape[:2] == (1296, 2304)
        heights += [c.height for c in scene.cards]
    lo, hi = np.percentile(heights, [3, 100])  # as seen, after the composer's camera tilt
    assert lo >= 120 * 0.97 and hi <= 320 * 1.03


def test_eval_reports_the_in_envelope_row(tmp_path: Path) -> None:
    argv = ["--holdout-scenes", "1", "--envelope-scenes", "2", "--real", str(tmp_path / "none")]
    assert main([*argv, "--out", str(tmp_path)]) == 0
    out = json.loads((tmp_path / "eval.json").read_text())
    assert set(out["rows"]) == {"holdout", "in_envelope"}
    row = out["rows"]["in_envelope"]
    assert row["images"] == 2 and 0.0 <= row["f1"] <= 1.0
    assert out["envelope"]["width"] == 2304 and out["envelope"]["height"] == 1296
