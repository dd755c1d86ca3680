"""The real-browser helpers live in ``bench/browser.py`` (the bench uses them too)."""

from bench.browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, LiveServer

SCREENS = ARTIFACTS.parent / "screens"  # the tests' screenshots (git-ignored)

__all__ = ["ARTIFACTS", "CHROMIUM", "CHROMIUM_ARGS", "SCREENS", "LiveServer"]
