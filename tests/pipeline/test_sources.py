"""Sources end cleanly, and fail with errors that name them."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from tablescan.render import RenderResult
from vision.sources import FolderSource, SourceError, VideoSource, open_source


def test_video_file_ends_with_every_frame_timed(clip: RenderResult) -> None:
    src = open_source(str(clip.video))
    frames = list(src.frames())
    src.close()
    assert len(frames) == clip.frames
    assert frames[0].t == 0.0
    assert frames[-1].t == pytest.approx((clip.frames - 1) / clip.fps)
    assert src.errors == []


def test_folder_skips_an_unreadable_image_and_counts_it(tmp_path: Path) -> None:
    for i in range(3):
        cv2.imwrite(str(tmp_path / f"f{i}.png"), np.full((40, 60, 3), i * 40, np.uint8))
    (tmp_path / "f1b.jpg").write_bytes(b"not a jpeg")
    src = open_source(str(tmp_path), fps=5)
    assert isinstance(src, FolderSource)
    frames = list(src.frames())
    assert [f.index for f in frames] == [0, 1, 2]
    assert frames[2].t == pytest.approx(0.4)
    assert len(src.errors) == 1 and "f1b.jpg: unreadable image" in src.errors[0]


def test_missing_and_corrupt_sources_fail_clearly(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="no such file"):
        open_source(str(tmp_path / "nothing.mp4"))
    bad = tmp_path / "broken.mp4"
    bad.write_bytes(b"\x00" * 2048)
    with pytest.raises(SourceError, match=r"broken\.mp4: cannot be opened"):
        open_source(str(bad))
    (tmp_path / "empty_dir").mkdir()
    with pytest.raises(SourceError, match="no images"):
        open_source(str(tmp_path / "empty_dir"))
    with pytest.raises(SourceError, match="/dev/video97: cannot be opened"):
        open_source("/dev/video97")


def test_truncated_recording_is_refused_at_open(clip: RenderResult, tmp_path: Path) -> None:
    """A recording cut short (its index never written) is a clear error, not a hang."""
    data = clip.video.read_bytes()
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(SourceError, match=r"cut\.mp4: cannot be opened"):
        VideoSource(str(cut))


def test_live_source_that_stops_delivering_stops_with_an_error(clip: RenderResult) -> None:
    """A camera that stops giving frames: the source gives up after a few tries, logged."""
    src = VideoSource(str(clip.video), live=True, max_failures=3)
    frames = list(src.frames())
    src.close()
    assert len(frames) == clip.frames
    assert frames[1].t >= frames[0].t  # wall-clock times for live sources
    assert len(src.errors) == 1 and "no frame after 3 tries (stopped)" in src.errors[0]
