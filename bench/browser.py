"""Real-browser helpers for the dashboard bench and tests: the dashboard under waitress in a
thread, Debian's Chromium driven by Playwright (never a downloaded browser)."""

from __future__ import annotations

from pathlib import Path

from dashboard.serving import BackgroundServer

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts" / "dashboard"


LiveServer = BackgroundServer  # the dashboard under waitress, stopped cleanly
