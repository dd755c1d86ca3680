"""vision.progress prints plain lines when not on a terminal; vision.plots writes real PNGs
(the confusion matrix with its counts, F1 bars, latency histograms)."""

from __future__ import annotations

import io
from pathlib import Path

import cv2
import numpy as np

from vision.plots import confusion_png, f1_bars_png, latency_png
from vision.progress import Progress, track


def test_plain_progress_lines_off_a_terminal() -> None:
    out = io.StringIO()
    bar = Progress(4, "scenes", out)
    for _ in range(4):
        bar.update(1, note="ok")
    assert out.getvalue().splitlines()[-1].startswith("scenes: 4/4 (100%)")
    out2 = io.StringIO()
    assert list(track(range(3), "items", stream=out2)) == [0, 1, 2]
    assert "items: 3/3" in out2.getvalue()
    out3 = io.StringIO()
    with Progress(5, "cut", out3) as cut:
        cut.update(2)
    assert "stopped at 2/5" in out3.getvalue()


def test_plots_are_pngs(tmp_path: Path) -> None:
    m = np.eye(5, dtype=int) * 30 + 1
    for path in (
        confusion_png(m, list("ABCDE"), tmp_path / "c.png"),
        f1_bars_png({"design-a": 0.91, "design-b": 0.62}, tmp_path / "f1.png"),
        latency_png({"detect": [10.0, 12.0, 11.5, 30.0] * 10}, tmp_path / "lat.png", "latency"),
    ):
        img = cv2.imread(str(path))
        assert img is not None and img.shape[0] > 200 and img.std() > 10
