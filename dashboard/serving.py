"""The dashboard under waitress in a background thread, stopped cleanly.

``make demo`` serves the dashboard beside the live pipeline, and the browser tests and bench
drive a real server. waitress's loop is not thread-safe: closing its sockets from another
thread races its ``select`` (EBADF) and leaves client sockets open, so ``close`` asks the
loop's own thread to close the clients, lets the workers finish, then ends the loop.
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
        server, trigger = self.server, self.server.trigger

        def close_clients() -> None:  # in the loop's thread: clients go, listener and trigger stay
            for channel in list(server._map.values()):
                if channel is not trigger and channel is not server:
                    channel.close()

        trigger.pull_trigger(close_clients)
        # workers (an SSE stream among them) see their client gone and finish; they may still
        # pull the trigger meanwhile, so the server (listener + trigger) closes last, which
        # empties the map and ends the loop
        server.task_dispatcher.shutdown(timeout=timeout)
        try:
            trigger.pull_trigger(server.close)
        except OSError:  # the loop already closed its trigger (and so stopped): close here
            server.close()
        self.thread.join(timeout)
