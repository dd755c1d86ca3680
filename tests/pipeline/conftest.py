"""Shared fixtures: one short rendered clip (two tricks, a small held-out deck design) made once
per test session, and its table config."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablescan.render import RenderResult, render_simulated

CLIP_SEED = 7
CLIP_TRICKS = 2
CLIP_DESIGN = "gnome/tango_nuevo"  # held out (HOLDOUT.md), and the quickest SVG to render


@pytest.fixture(scope="session")
def clip(tmp_path_factory: pytest.TempPathFactory) -> RenderResult:
    out = tmp_path_factory.mktemp("clip") / "clip.mp4"
    return render_simulated(
        "standard", CLIP_SEED, out, split="eval", tricks=CLIP_TRICKS, design=CLIP_DESIGN
    )


@pytest.fixture(scope="session")
def clip_dir(clip: RenderResult) -> Path:
    return clip.video.parent
