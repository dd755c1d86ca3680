"""systemd's notify protocol (``sd_notify``) without libsystemd: ``READY=1``, ``WATCHDOG=1``.

The unit ``scripts/tablescan-table@.service`` has ``Type=notify`` and ``WatchdogSec``: systemd
restarts a node that stops ticking (a hung camera read, a dead loop), not only one that exits.
Outside systemd (no ``NOTIFY_SOCKET``) every call does nothing.

The node calls ``ready()`` once it reads frames, and ``tick()`` once per loop turn; ``tick``
sends at most every half watchdog period, so it costs nothing per frame.
"""

from __future__ import annotations

import os
import socket
import time


class Notifier:
    """Datagrams to ``$NOTIFY_SOCKET`` (a path, or ``@name`` for an abstract socket)."""

    def __init__(self, environ: dict[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        self.address = env.get("NOTIFY_SOCKET") or None
        usec = env.get("WATCHDOG_USEC", "")
        pid = env.get("WATCHDOG_PID", "")
        mine = not pid or pid == str(os.getpid())
        self.interval = int(usec) / 2e6 if usec.isdigit() and int(usec) > 0 and mine else None
        self._last = 0.0

    @property
    def enabled(self) -> bool:
        return self.address is not None

    def notify(self, *fields: str) -> bool:
        """Send ``KEY=value`` lines; False when not under systemd or the socket is gone."""
        if self.address is None:
            return False
        addr = "\0" + self.address[1:] if self.address.startswith("@") else self.address
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as s:
                s.sendto("\n".join(fields).encode(), addr)
        except OSError:
            return False
        return True

    def ready(self, status: str = "") -> bool:
        return self.notify("READY=1", *([f"STATUS={status}"] if status else []))

    def status(self, text: str) -> bool:
        return self.notify(f"STATUS={text}")

    def tick(self, now: float | None = None) -> bool:
        """``WATCHDOG=1`` when half the watchdog period has passed since the last one."""
        if self.interval is None:
            return False
        now = time.monotonic() if now is None else now
        if now - self._last < self.interval:
            return False
        self._last = now
        return self.notify("WATCHDOG=1")

    def stopping(self) -> bool:
        return self.notify("STOPPING=1")
