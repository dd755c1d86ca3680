"""Fixtures: a real Mosquitto on a free loopback port (the shipped ACL, a password file), the
desk on its own store, and a way to wait for what happens across processes."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from evidence.store import EvidenceStore
from hall.broker import LocalBroker
from hall.config import HallConfig
from hall.desk import Desk

DESK_PW = "desk-secret"
TABLE_PW = "table-secret"
TABLES = ("t1", "t2", "t3")


def connack(client: mqtt.Client, port: int, broker: subprocess.Popen[str], who: str) -> object:
    """Connect ``client`` to a Mosquitto just started on ``port`` (it binds a moment after it
    starts; a broker that died says why) and return its CONNACK's reason code."""
    answered: list[object] = []
    connected = threading.Event()

    def on_connect(_c: object, _u: object, _f: object, rc: object, _p: object = None) -> None:
        answered.append(rc)
        connected.set()

    client.on_connect = on_connect
    for _ in range(100):
        try:
            client.connect("127.0.0.1", port)
            break
        except OSError:
            assert broker.poll() is None, broker.communicate()[0]
            threading.Event().wait(0.05)
    client.loop_start()
    try:
        assert connected.wait(10), f"{who}: no CONNACK"
    finally:
        client.loop_stop()
        client.disconnect()
    return answered[0]


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
