"""vision.progress prints plain lines when not on a terminal; vision.plots writes real PNGs
(the confusion matrix with its counts, F1 bars, latency histograms)."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

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


# --- wired into the long commands ---------------------------------------------------------

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int, str]:
    """``tablescan render-match`` run as a subprocess (no TTY): the video, its frame count and
    what the command wrote to stderr."""
    out = tmp_path_factory.mktemp("prog") / "tiny.mp4"
    proc = subprocess.run(
        [
            sys.executable, "-m", "tablescan", "render-match", "--seed", "7", "--tricks", "1",
            "--eval", "--design", "gnome/tango_nuevo", "-o", str(out),
        ],
        capture_output=True, text=True, cwd=REPO, timeout=180, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    frames = int(re.search(r": (\d+) frames at", proc.stdout).group(1))  # type: ignore[union-attr]
    return out, frames, proc.stderr


def test_render_match_prints_plain_progress_off_a_terminal(
    rendered: tuple[Path, int, str],
) -> None:
    _, frames, stderr = rendered
    lines = [ln for ln in stderr.splitlines() if ln.startswith("rendering tiny.mp4 (frames): ")]
    assert lines, stderr
    assert lines[-1].startswith(f"rendering tiny.mp4 (frames): {frames}/{frames} (100%)")
    assert "\x1b[" not in stderr  # no bar's escape codes in a log


def test_replay_of_a_video_reports_progress(
    rendered: tuple[Path, int, str], capsys: pytest.CaptureFixture[str]
) -> None:
    from tablescan.config import load_config
    from tablescan.wiring import build_node, run_source
    from vision.sources import VideoSource, open_source
    from vision.synth.labels import LabelDetector

    video, frames, _ = rendered
    source = open_source(str(video))
    assert isinstance(source, VideoSource) and source.frame_count == frames
    cfg = load_config(video.with_name("tiny.table.toml"))
    node = build_node(cfg, LabelDetector.beside(video), keep_evidence=False)
    stats = run_source(node, source)
    err = capsys.readouterr().err
    assert stats.frames == frames
    assert f"replaying {video} (frames): {frames}/{frames} (100%)" in err, err
    # a capped replay counts to its cap and says where it stopped; a view can turn it off
    run_source(build_node(cfg, LabelDetector.beside(video), keep_evidence=False),
               open_source(str(video)), max_frames=5)  # fmt: skip
    assert "(frames): 5/5 (100%)" in capsys.readouterr().err
    run_source(build_node(cfg, LabelDetector.beside(video), keep_evidence=False),
               open_source(str(video)), progress=False)  # fmt: skip
    assert "replaying" not in capsys.readouterr().err
