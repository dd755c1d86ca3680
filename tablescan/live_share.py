"""What a running node shares with the dashboard through the data folder: the latest masked
frame (2 per second), its health and its table layout.

Health is written twice a second from the source loop, and at once when the camera is lost or
comes back: that callback runs on the source's reader thread, so writes take a lock. While the
camera is lost no frame comes; the loop's idle call (``LiveShare.idle``) keeps the health file
fresh, so the dashboard sees "camera lost" and for how long rather than a silent node.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2

from evidence.live import LiveFiles
from tablescan.host_health import THERMAL, host_health
from tablescan.node import TableNode
from vision.calibration import CalibrationError, find_markers
from vision.sources import Frame, SourceHealth

EVERY_S = 0.5


class LiveShare:
    """The node's live files: ``on_frame`` (a node hook), ``camera_changed`` (a
    ``SourceHealth.on_change`` listener), ``idle`` (the source's ``on_idle``)."""

    def __init__(
        self,
        data: Path,
        table: str,
        node: TableNode,
        serial: Callable[[], dict[str, Any]] | None = None,
        camera: SourceHealth | None = None,
        source: str | None = None,
        thermal: Path = THERMAL,
    ) -> None:
        self.live = LiveFiles(data)
        self.thermal = thermal
        self.table = table
        self.node = node
        self.serial = serial
        self.camera = camera
        self.source = source
        self._lock = threading.Lock()
        self._frame_at = 0.0
        self._health_at = 0.0
        self._t = 0.0
        if camera is not None:
            camera.on_change(self.camera_changed)

    def health(self) -> dict[str, Any]:
        st = self.node.stats
        out: dict[str, Any] = {
            "fps": st.frames / max(1e-6, self._t) if self._t else None,
            "model_ms": st.read_ms[-1] if st.read_ms else None,
            "queue": 0,
            "needs_referee": st.needs_referee,
            "errors": dict(st.errors),
        }
        if self.source is not None:
            out["source"] = self.source
        if self.camera is not None:
            out["camera"] = self.camera.snapshot()
        if self.serial is not None:
            out["serial"] = self.serial()
        out["host"] = host_health(self.live.root.parent, self.thermal)  # CPU °C, disk
        return out

    def write_health(self) -> None:
        with self._lock:
            self._health_at = time.monotonic()
            self.live.put_health(self.table, self.health())

    def on_frame(self, frame: Frame) -> None:
        now = time.monotonic()
        self._t = frame.t
        if now - self._frame_at >= EVERY_S and self.node.reader.calibration is not None:
            self._frame_at = now
            self._share_markers(frame)
            masked = self.node.reader.masked(frame.image)
            ok, jpeg = cv2.imencode(".jpg", masked, [cv2.IMWRITE_JPEG_QUALITY, 80])
            if ok:
                self.live.put_frame(self.table, jpeg.tobytes())
        if now - self._health_at >= EVERY_S:
            self.write_health()

    def _share_markers(self, frame: Frame) -> None:
        """The markers the calibration page shows, found before the hand masks hide them."""
        cal = self.node.cfg.calibration
        if cal.method != "aruco" or frame.image is None:
            return
        try:
            found = find_markers(frame.image, cal.dictionary)
        except CalibrationError:
            return
        self.live.put_markers(self.table, {"found": found, "t": frame.t})

    def camera_changed(self, _what: str, _health: SourceHealth) -> None:
        self.write_health()  # "camera lost" / "camera back": at once, not at the next frame

    def idle(self) -> None:
        if time.monotonic() - self._health_at >= EVERY_S:
            self.write_health()


def live_frames(
    data: Path,
    table: str,
    node: TableNode,
    serial: Callable[[], dict[str, Any]] | None = None,
) -> Callable[[Frame], None]:
    """An ``on_frame`` hook sharing the latest masked frame and the node's health, with the
    seat controller's link (``serial``: state, resend counters), with the dashboard."""
    return LiveShare(data, table, node, serial).on_frame
