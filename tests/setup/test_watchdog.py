"""The notify protocol against a real unix datagram socket, as systemd listens."""

from __future__ import annotations

import os
import socket
from pathlib import Path

from tablescan.watchdog import Notifier


def test_ready_and_watchdog_ticks_reach_the_socket(tmp_path: Path) -> None:
    path = tmp_path / "notify"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        server.bind(str(path))
        server.settimeout(2)
        env = {
            "NOTIFY_SOCKET": str(path),
            "WATCHDOG_USEC": "2000000",
            "WATCHDOG_PID": str(os.getpid()),
        }
        n = Notifier(env)
        assert n.enabled and n.interval == 1.0
        assert n.ready("reading camera")
        assert server.recv(256) == b"READY=1\nSTATUS=reading camera"
        assert n.tick(now=10.0)
        assert not n.tick(now=10.5)  # within half the period: nothing sent
        assert n.tick(now=11.2)
        assert server.recv(64) == b"WATCHDOG=1" and server.recv(64) == b"WATCHDOG=1"


def test_abstract_socket_and_no_systemd() -> None:
    name = f"tablescan-test-{os.getpid()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        server.bind("\0" + name)
        server.settimeout(2)
        assert Notifier({"NOTIFY_SOCKET": "@" + name}).status("x")
        assert server.recv(64) == b"STATUS=x"
    off = Notifier({})
    assert not off.enabled and not off.ready() and not off.tick()
    other = Notifier(
        {"NOTIFY_SOCKET": "/nonexistent/s", "WATCHDOG_USEC": "100", "WATCHDOG_PID": "1"}
    )
    assert other.interval is None and not other.ready()  # the watchdog is another process's
