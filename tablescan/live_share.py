"""What a running node shares with the dashboard through the data folder: the latest masked
frame (2 per second) and its health."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2

from evidence.live import LiveFiles
from tablescan.node import TableNode
from vision.sources import Frame


def live_frames(
    data: Path,
    table: str,
    node: TableNode,
    serial: Callable[[], dict[str, Any]] | None = None,
) -> Callable[[Frame], None]:
    """An ``on_frame`` hook sharing the latest masked frame and the node's health, with the
    seat controller's link (``serial``: state, resend counters), with the dashboard."""
    live = LiveFiles(data)
    last = [0.0]

    def on_frame(frame: Frame) -> None:
        now = time.monotonic()
        if now - last[0] < 0.5 or node.reader.calibration is None:
            return
        last[0] = now
        masked = node.reader.masked(frame.image)
        ok, jpeg = cv2.imencode(".jpg", masked, [cv2.IMWRITE_JPEG_QUALITY, 80])
        if ok:
            live.put_frame(table, jpeg.tobytes())
        st = node.stats
        live.put_health(
            table,
            {
                "fps": st.frames / max(1e-6, frame.t) if frame.t else None,
                "model_ms": st.read_ms[-1] if st.read_ms else None,
                "queue": 0,
                "needs_referee": st.needs_referee,
                "errors": dict(st.errors),
                **({"serial": serial()} if serial is not None else {}),
            },
        )

    return on_frame
