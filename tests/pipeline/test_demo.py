"""The offline demo entry point (``make demo`` calls ``tablescan.demo.pipeline.demo_pipeline``)."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest

from tablescan.demo.pipeline import demo_pipeline
from tablescan.i18n import lang, use
from tablescan.render import RenderResult

NO_MODEL = Path("no-such-model.onnx")  # the view is under test here: labels stand in


@pytest.fixture(autouse=True)
def english() -> Iterator[None]:
    """These read the English lines (tests/integration/test_demo_chinese.py reads the Chinese)."""
    was = lang()
    use("en")
    yield
    use(was)


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_demo_judges_the_clip_live(clip: RenderResult) -> None:
    out = FakeTerminal()
    assert demo_pipeline(video=clip.video, speed=0, stream=out, model=NO_MODEL) == 0
    text = out.getvalue()
    assert "\x1b[H\x1b[2J" in text  # redrawn in place
    assert "North" in text and "plays read exactly: 8/8" in text


def test_demo_prints_plain_lines_when_not_a_terminal(clip: RenderResult) -> None:
    out = io.StringIO()
    assert demo_pipeline(video=clip.video, speed=0, stream=out, model=NO_MODEL) == 0
    text = out.getvalue()
    assert "\x1b[" not in text
    assert text.count(" plays ") == 8
