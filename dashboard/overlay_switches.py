"""The stream operator's switches for one overlay link (``stinger``, ``test_pattern``):
stored beside the layouts in ``DATA/overlay_layouts.sqlite3``, read by the overlay page
(``dashboard.overlay``) and set on the operator panel (``dashboard.operator``)."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

from flask import current_app

from dashboard.api import hub
from dashboard.users import overlay_link_id

LAYOUTS_DB = "overlay_layouts.sqlite3"  # with the layouts dashboard.overlay keeps


class OperatorStore:
    """The operator's switches by overlay link id (``stinger``, ``test_pattern``), beside the
    layouts in ``DATA/overlay_layouts.sqlite3``."""

    def __init__(self, data_dir: str | Path) -> None:
        self._lock = threading.Lock()
        self._db = sqlite3.connect(
            Path(data_dir) / LAYOUTS_DB, isolation_level=None, check_same_thread=False, timeout=10
        )
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS operator (link TEXT PRIMARY KEY, table_id TEXT NOT NULL,"
            " stinger INTEGER NOT NULL, test_pattern INTEGER NOT NULL, by TEXT, at REAL)"
        )

    def save(self, link: str, table: str, stinger: bool, test_pattern: bool, by: str) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO operator VALUES (?,?,?,?,?,?)",
                (link, table, int(stinger), int(test_pattern), by, time.time()),
            )

    def get(self, link: str) -> dict[str, bool]:
        with self._lock:
            row = self._db.execute(
                "SELECT stinger, test_pattern FROM operator WHERE link=?", (link,)
            ).fetchone()
        if row is None:
            return {"stinger": True, "test_pattern": False}
        return {"stinger": bool(row[0]), "test_pattern": bool(row[1])}


def switches(token: str) -> dict[str, bool]:
    """The operator's switches for the link ``token`` opens (the overlay page reads them)."""
    ext = current_app.extensions
    if "dashboard.operator" not in ext:
        ext["dashboard.operator"] = OperatorStore(hub().store.data_dir)
    store: OperatorStore = ext["dashboard.operator"]
    return store.get(overlay_link_id(token))
