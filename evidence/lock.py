"""One writer per table and data folder: an OS lock (``flock``) held for the node's life.

Two nodes recording the same table into one store interleave their events into one record and
the referee then accuses players of revokes that never happened, so the second node must
refuse. The lock file ``DATA/locks/<table>.lock`` holds who has it (pid, host, since); the OS
drops the lock when that process dies, even by SIGKILL, so a crashed node never blocks its
restart.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import sys
import time
from pathlib import Path
from typing import Any

LOCK_DIR = "locks"


class TableLocked(RuntimeError):
    """Another live process already writes this table in this data folder."""


class TableLock:
    """``flock`` on ``DATA/locks/<table>.lock``, taken without waiting; ``release`` frees it."""

    def __init__(self, data_dir: str | os.PathLike[str], table: str) -> None:
        self.path = Path(data_dir) / LOCK_DIR / f"{table}.lock"
        self.table = table
        self._fd: int | None = None

    def acquire(self) -> TableLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = _holder(fd)
            os.close(fd)
            raise TableLocked(
                f"{self.path.parent.parent}: table {self.table} is already being recorded by "
                f"{describe(holder)} ({self.path}); stop that node first, or record this table "
                "under another table id or data folder"
            ) from None
        me = {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "since": time.time(),
            "cmd": " ".join(sys.argv[:3])[:200],
        }
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps(me).encode(), 0)
        os.fsync(fd)
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)  # closing the descriptor drops the flock

    @property
    def held(self) -> bool:
        return self._fd is not None


def _holder(fd: int) -> dict[str, Any]:
    try:
        value = json.loads(os.pread(fd, 4096, 0) or b"{}")
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def describe(holder: dict[str, Any]) -> str:
    """``pid 123 on host h since 2024-05-01 10:00:00`` (what is known of it)."""
    if not holder:
        return "another process (which one is not recorded)"
    since = holder.get("since")
    when = (
        time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(since))
        if isinstance(since, int | float)
        else "an unknown time"
    )
    text = f"pid {holder.get('pid', '?')} on host {holder.get('host', '?')} since {when}"
    return text + (f" ({holder['cmd']})" if holder.get("cmd") else "")
