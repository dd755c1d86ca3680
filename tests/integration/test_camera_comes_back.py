"""A real ``tablescan run --data D`` reading a real MJPEG-over-HTTP camera on loopback that is cut
and restored: the node's health file says "camera lost" within 2 s, reading resumes within 2 s
of the camera's return, no event is lost, and the hand is not ended by the cut. Run as
systemd would (``NOTIFY_SOCKET``, ``WATCHDOG_USEC``), the node says READY, ticks the watchdog
while the camera is lost too, and says STOPPING at SIGTERM."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from evidence.store import EvidenceStore
from tablescan.render import RenderResult
from tests.integration.test_hall_node import config_elsewhere
from tests.pipeline.test_sources import MjpegCamera

ROOT = Path(__file__).resolve().parents[2]
CORNERS = [[10.0, 8.0], [110.0, 8.0], [110.0, 82.0], [10.0, 82.0]]  # in the 120×90 frames


@pytest.fixture
def camera() -> Iterator[MjpegCamera]:
    cam = MjpegCamera()
    cam.start()
    yield cam
    cam.stop()


class NotifySocket:
    """systemd's side of ``sd_notify``: a datagram socket noting (time, message)."""

    def __init__(self) -> None:
        self.dir = tempfile.mkdtemp(prefix="sd", dir="/tmp")  # AF_UNIX paths are short
        self.path = os.path.join(self.dir, "notify")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        self.sock.settimeout(0.1)
        self.got: list[tuple[float, str]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.got.append((time.monotonic(), self.sock.recv(4096).decode()))
            except TimeoutError:
                continue

    def between(self, start: float, end: float, text: str) -> int:
        return sum(1 for at, m in list(self.got) if start <= at <= end and text in m)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        self.sock.close()
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def systemd() -> Iterator[NotifySocket]:
    s = NotifySocket()
    yield s
    s.close()


def health(data: Path, table: str) -> dict[str, Any]:
    try:
        value = json.loads((data / "live" / table / "health.json").read_text())
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def until(cond: Callable[[], object], timeout: float) -> float:
    """Seconds until ``cond()`` held; AssertionError after ``timeout``."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if cond():
            return time.monotonic() - start
        time.sleep(0.02)
    raise AssertionError(f"not within {timeout} s")


def frame_grey(data: Path, table: str) -> float | None:
    raw = (data / "live" / table / "frame.jpg").read_bytes()
    image = cv2.imdecode(np.frombuffer(raw, np.uint8), cv2.IMREAD_GRAYSCALE)
    return None if image is None else float(np.median(image))


def test_a_cut_camera_is_lost_then_read_again_with_every_event_kept(
    camera: MjpegCamera, hand_clip: RenderResult, tmp_path: Path, systemd: NotifySocket
) -> None:
    url = f"http://127.0.0.1:{camera.port}/stream.mjpg"
    raw_cal = {"method": "points", "table_size": [1000.0, 1000.0], "points": CORNERS}
    config = config_elsewhere(hand_clip, tmp_path / "conf", calibration=raw_cal)
    table = "hand"
    data = tmp_path / "data"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tablescan", "run", "--config", str(config), "--source", url,
         "--data", str(data)],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), "NOTIFY_SOCKET": systemd.path,
             "WATCHDOG_USEC": "400000"},  # a tick every 0.2 s at most
    )  # fmt: skip
    try:
        until(lambda: health(data, table).get("camera", {}).get("frames", 0) > 10, 60)
        before = EvidenceStore(data, durable=False)
        try:
            kept = [(e["seq"], e["type"]) for e in before.events(table)]
        finally:
            before.close()
        assert kept and kept[0][1] == "match_start"

        assert systemd.between(0, time.monotonic(), "READY=1") == 1
        camera.cut()
        cut_at = time.monotonic()
        lost_in = until(lambda: health(data, table).get("camera", {}).get("camera") == "lost", 2)
        time.sleep(1.0)  # lost a while: the idle loop keeps the health file fresh
        h = health(data, table)
        assert h["camera"]["camera"] == "lost" and h["camera"]["lost_for_s"] >= 1.0
        assert time.time() - h["updated"] < 1.5

        assert systemd.between(cut_at + 0.5, time.monotonic(), "WATCHDOG=1") >= 3  # while lost
        camera.restore()  # frames now a lighter grey (generation 1)
        back_in = until(lambda: health(data, table).get("camera", {}).get("camera") == "ok", 2)
        until(lambda: abs((frame_grey(data, table) or 0) - 60) < 8, 2)
        h = health(data, table)
        assert h["camera"]["reconnects"] >= 1 and h["camera"]["losses"] == 1
        assert h["camera"]["missed"] > 0
        print(f"camera lost seen in {lost_in:.2f} s; back in {back_in:.2f} s")
    finally:
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err[-3000:]
    assert until(lambda: systemd.between(0, time.monotonic(), "STOPPING=1") == 1, 2) >= 0
    store = EvidenceStore(data, durable=False)
    try:
        after = [(e["seq"], e["type"]) for e in store.events(table)]
    finally:
        store.close()
    assert after[: len(kept)] == kept  # every event before the cut is still there
    assert "hand_end" not in {kind for _, kind in after}  # a cut camera never ends the hand
