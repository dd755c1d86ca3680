"""The real-browser helpers live in ``bench/browser.py`` (the bench uses them too)."""

from bench.browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, LiveServer

__all__ = ["ARTIFACTS", "CHROMIUM", "CHROMIUM_ARGS", "LiveServer"]
