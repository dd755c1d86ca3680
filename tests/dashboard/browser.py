"""Real-browser helpers: the dashboard under waitress in a thread, Debian's Chromium driven by
Playwright (never a downloaded browser)."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

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
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts" / "dashboard"


class LiveServer:
    """waitress serving ``app`` on a free localhost port until ``close()``."""

    def __init__(self, app: Any) -> None:
        from waitress import create_server

        self.server = create_server(app, host="127.0.0.1", port=0, threads=16)
        self.url = f"http://127.0.0.1:{self.server.effective_port}"  # type: ignore[union-attr]
        self.thread = threading.Thread(target=self.server.run, name="waitress", daemon=True)
        self.thread.start()

    def close(self) -> None:
        """Stop the app's hub first (its SSE streams then end), then the server."""
        self.server.task_dispatcher.shutdown(timeout=5)  # type: ignore[union-attr]
        self.server.close()
        self.thread.join(timeout=5)
