"""A short rendered hand (three tricks), made once per test session, that ``tablescan run``
judges with the renderer's own labels standing in for the recognizer (deterministic, fast)."""

from __future__ import annotations

import pytest

from tablescan.render import RenderResult, render_simulated

SEED = 7
TRICKS = 3
DESIGN = "gnome/tango_nuevo"  # the quickest SVG deck to render


@pytest.fixture(scope="session")
def hand_clip(tmp_path_factory: pytest.TempPathFactory) -> RenderResult:
    out = tmp_path_factory.mktemp("hand") / "hand.mp4"
    return render_simulated("standard", SEED, out, split="eval", tricks=TRICKS, design=DESIGN)
