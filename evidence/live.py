"""Live, non-evidence files a table node shares with the dashboard (not chained, overwritten):

``DATA/live/<table>/frame.jpg``        the latest camera frame (hands already masked out)
``DATA/live/<table>/health.json``      ``{"fps", "model_ms", "queue", "needs_referee",
                                       "errors", "source", "camera": {"camera": "ok"|"lost",
                                       "lost_for_s", "dropped", "missed", "reconnects", ...},
                                       "serial": {...}, "host": {"cpu_temp_c",
                                       "disk_free_bytes", "disk_total_bytes"}, "updated"}``
``DATA/live/<table>/layout.json``      the table's layout from its config (``table_size``,
                                       ``areas``, ``masks``, ``calibration`` settings,
                                       ``seats``), written by the node at start for the
                                       calibration page.
``DATA/live/<table>/markers.json``     ``{"found": [{"id", "corners", "centre"}], "t"}``: the
                                       ArUco markers in the latest raw frame (the shared frame
                                       has the held hands, and so the corners, masked out).
``DATA/live/<table>/calibration.json`` ``{"method": "points", "points": [[x, y] * 4]}`` (image
                                       pixels of the table corners TL, TR, BR, BL), written by
                                       the dashboard's calibration page, read by the node.

``DATA/live/.disk.json``              ``{"low", "free_bytes", "min_free_bytes", "at"}``: the
                                       retention pass's last look at the disk (no table id
                                       starts with a dot).

Writes are atomic (temp file + rename) so a reader never sees half a frame.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from evidence.store import _check_table


class LiveFiles:
    def __init__(self, data_dir: str | os.PathLike[str]) -> None:
        self.root = Path(data_dir) / "live"

    def _path(self, table: str, name: str) -> Path:
        _check_table(table)
        return self.root / table / name

    def _write(self, path: Path, data: bytes) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".part")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)

    def put_frame(self, table: str, jpeg: bytes) -> None:
        self._write(self._path(table, "frame.jpg"), jpeg)

    def frame(self, table: str) -> bytes | None:
        path = self._path(table, "frame.jpg")
        return path.read_bytes() if path.exists() else None

    def put_markers(self, table: str, markers: dict[str, Any]) -> None:
        self._write(self._path(table, "markers.json"), json.dumps(markers).encode())

    def markers(self, table: str) -> dict[str, Any] | None:
        return self._read_json(self._path(table, "markers.json"))

    def put_health(self, table: str, health: dict[str, Any]) -> None:
        body = {**health, "updated": time.time()}
        self._write(self._path(table, "health.json"), json.dumps(body).encode())

    def health(self, table: str) -> dict[str, Any] | None:
        return self._read_json(self._path(table, "health.json"))

    def put_layout(self, table: str, layout: dict[str, Any]) -> None:
        self._write(self._path(table, "layout.json"), json.dumps(layout).encode())

    def layout(self, table: str) -> dict[str, Any] | None:
        return self._read_json(self._path(table, "layout.json"))

    def put_disk(self, note: dict[str, Any]) -> None:
        self._write(self.root / ".disk.json", json.dumps({**note, "at": time.time()}).encode())

    def disk(self) -> dict[str, Any] | None:
        return self._read_json(self.root / ".disk.json")

    def put_calibration(self, table: str, calibration: dict[str, Any]) -> None:
        self._write(self._path(table, "calibration.json"), json.dumps(calibration).encode())

    def calibration(self, table: str) -> dict[str, Any] | None:
        return self._read_json(self._path(table, "calibration.json"))

    @staticmethod
    def _read_json(path: Path) -> dict[str, Any] | None:
        try:
            value = json.loads(path.read_text())
        except (OSError, ValueError):
            return None
        return value if isinstance(value, dict) else None
