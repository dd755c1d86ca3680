"""Fixtures: a real Mosquitto on a free loopback port (the shipped ACL, a password file), the
desk on its own store, and a way to wait for what happens across processes."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from evidence.store import EvidenceStore
from hall.broker import LocalBroker
from hall.config import HallConfig
from hall.desk import Desk

DESK_PW = "desk-secret"
TABLE_PW = "table-secret"
TABLES = ("t1", "t2", "t3")


def wait_for(cond: Callable[[], object], timeout: float = 15.0, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout} s waiting for {what or cond}")


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[LocalBroker]:
    users = {"desk": DESK_PW, **{t: TABLE_PW for t in TABLES}}
    b = LocalBroker(tmp_path / "broker", users).start()
    yield b
    b.stop()


def node_cfg(broker: LocalBroker, **kw: object) -> HallConfig:
    return HallConfig(broker=broker.url, password=TABLE_PW, **kw)  # type: ignore[arg-type]


@pytest.fixture
def desk(tmp_path: Path, broker: LocalBroker) -> Iterator[Desk]:
    store = EvidenceStore(tmp_path / "desk", durable=False)
    d = Desk(store, HallConfig(broker=broker.url, password=DESK_PW), late_s=2.0).start()
    wait_for(d.connected.is_set, what="the desk to connect")
    yield d
    d.stop()
    store.close()


def sim_nodes(root: Path, broker: LocalBroker, tables: str, events: int, pace: float = 0.01):
    """A real node process (``hall.simnode``) running ``tables``."""
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "hall.simnode",
            *("--root", str(root), "--broker", broker.url, "--tables", tables),
            *("--password", TABLE_PW, "--events", str(events), "--pace", str(pace)),
            *("--durable", "0"),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
