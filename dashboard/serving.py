"""The dashboard under waitress in a background thread, stopped cleanly.

``make demo`` serves the dashboard beside the live pipeline, and the browser tests and bench
drive a real server. waitress's loop is not thread-safe: closing its sockets from another
thread races its ``select`` (EBADF) and leaves client sockets open, so ``close`` asks the
loop's own thread to close everything, then waits for it.
"""

from __future__ import annotations

import threading
from typing import Any


class BackgroundServer:
    """waitress serving ``app`` on ``host:port`` (0: any free port) until ``close()``."""

    def __init__(self, app: Any, host: str = "127.0.0.1", port: int = 0, threads: int = 16):
        from waitress import create_server

        self.server: Any = create_server(app, host=host, port=port, threads=threads)
        self.url = f"http://{host}:{self.server.effective_port}"
        self.thread = threading.Thread(target=self.server.run, name="waitress", daemon=True)
        self.thread.start()

    def close(self, timeout: float = 5.0) -> None:
        def close_all() -> None:  # runs in the loop's thread; an empty map ends the loop
            for channel in list(self.server._map.values()):
                channel.close()

        self.server.trigger.pull_trigger(close_all)
        self.thread.join(timeout)
        self.server.task_dispatcher.shutdown(timeout=timeout)
