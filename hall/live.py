"""The table's live camera and health at the desk: the node publishes its latest masked frame
(the held hands already blacked out), downscaled, at most every ``FRAME_EVERY_S`` on
``tablescan/<hall>/<table>/frame`` (QoS 0, retained: a desk that starts sees the last one),
and the desk writes it, and the health its ``state`` carries, to its own ``DATA/live/<table>/``
so its hall and table pages show them as a node's own dashboard does. Not evidence: never
chained, overwritten, and (as on the node) only behind the login; the overlay never gets it."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from evidence.live import LiveFiles

FRAME_EVERY_S = 2.0
FRAME_WIDTH = 480  # a hall tile and a phone's table page; the calibration page uses the node's
MAX_FRAME_BYTES = 512 * 1024


class FrameRefused(ValueError):
    """A frame message the desk does not show; the text names the table and why."""


def small_jpeg(jpeg: bytes, width: int = FRAME_WIDTH) -> bytes | None:
    """The frame at most ``width`` wide (JPEG, quality 70); None if it does not decode."""
    image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        return None
    h, w = image.shape[:2]
    if w > width:
        image = cv2.resize(image, (width, max(1, h * width // w)), interpolation=cv2.INTER_AREA)
    ok, out = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 70])
    return out.tobytes() if ok else None


class FrameSender:
    """The node side: ``tick(publish)`` sends the live frame when it changed, at most every
    ``FRAME_EVERY_S``."""

    def __init__(self, data: Path, table: str) -> None:
        self.live = LiveFiles(data)
        self.table = table
        self._at = 0.0
        self._last = ""
        self.sent = 0

    def tick(self, publish: Callable[[bytes], Any]) -> None:
        now = time.monotonic()
        if now - self._at < FRAME_EVERY_S:
            return
        self._at = now
        jpeg = self.live.frame(self.table)
        if jpeg is None:
            return
        digest = hashlib.sha256(jpeg).hexdigest()
        if digest == self._last:
            return
        self._last = digest
        small = small_jpeg(jpeg)
        if small is not None:
            publish(small)
            self.sent += 1


def store_frame(live: LiveFiles, table: str, payload: bytes) -> None:
    """The desk side: a JPEG of bounded size, written as the table's live frame."""
    if len(payload) > MAX_FRAME_BYTES:
        raise FrameRefused(
            f"table {table}: live frame of {len(payload)} bytes, over {MAX_FRAME_BYTES}"
        )
    if not (payload.startswith(b"\xff\xd8") and payload.rstrip(b"\0").endswith(b"\xff\xd9")):
        raise FrameRefused(f"table {table}: live frame is not a JPEG")
    live.put_frame(table, payload)


def store_health(live: LiveFiles, table: str, state: Mapping[str, Any]) -> None:
    """The desk side: the node's health from its retained ``state`` (``via``: the hall)."""
    health = state.get("health")
    if isinstance(health, dict):
        live.put_health(table, {**health, "via": "hall", "node_updated": health.get("updated")})
