"""Clips through the hall: each ``clip`` media row a node chained (``tablescan.clips``) goes to
the desk on ``tablescan/<hall>/<table>/clip`` (QoS 1), so the desk's pages show the same
video beside the same violation. The desk checks the bytes against the sha256 the node
chained and stores the clip in its own chain (content-addressed: a clip sent twice, after a
node restart, is stored once).

Message: one JSON header line, ``\\n``, then the file's bytes::

    {"v": 1, "table": T, "sha256": HEX, "size": N, "name": "<evidence>-clip", "seq": S,
     "suffix": ".webm"}
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from typing import Any

from evidence.store import EvidenceStore

log = logging.getLogger(__name__)

MAX_CLIP_BYTES = 8 * 1024 * 1024  # a 6 s phone-sized clip is ~300 KB; this is a bound, not a goal
SUFFIXES = (".webm", ".mp4")
SCAN_EVERY_S = 1.0


class ClipRefused(ValueError):
    """A clip message the desk does not store; the text names the table and what is wrong."""


def clip_message(store: EvidenceStore, table: str, row: dict[str, Any]) -> bytes | None:
    """The message for one of ``store.media_of(table, "clip")`` (None: its file is gone)."""
    path = store.media_path(row["sha256"])
    if path is None:
        return None
    header = {
        "v": 1,
        "table": table,
        "sha256": row["sha256"],
        "size": row["size"],
        "name": row["name"],
        "seq": row["seq"],
        "suffix": path.suffix,
    }
    return json.dumps(header).encode() + b"\n" + path.read_bytes()


def store_clip(store: EvidenceStore, table: str, payload: bytes) -> str:
    """Check and store one clip message from ``table``; returns its sha256."""
    head, sep, body = payload.partition(b"\n")
    if not sep:
        raise ClipRefused(f"table {table}: clip message without its header line")
    try:
        h = json.loads(head)
    except ValueError as e:
        raise ClipRefused(f"table {table}: clip header is not JSON ({e})") from None
    if not isinstance(h, dict) or h.get("v") != 1 or h.get("table") != table:
        raise ClipRefused(
            f"table {table}: clip header for {h.get('table')!r}, version {h.get('v')!r}"
        )
    name, seq, suffix = h.get("name"), h.get("seq"), h.get("suffix")
    if not isinstance(name, str) or not name.endswith("-clip") or len(name) > 200:
        raise ClipRefused(f"table {table}: clip name {name!r}: expected '<evidence id>-clip'")
    if seq is not None and not isinstance(seq, int):
        raise ClipRefused(f"table {table}: clip {name}: seq {seq!r} is not a number")
    if suffix not in SUFFIXES:
        raise ClipRefused(f"table {table}: clip {name}: suffix {suffix!r} (expected .webm/.mp4)")
    if len(body) > MAX_CLIP_BYTES:
        raise ClipRefused(f"table {table}: clip {name}: {len(body)} bytes, over {MAX_CLIP_BYTES}")
    sha = hashlib.sha256(body).hexdigest()
    if sha != h.get("sha256") or len(body) != h.get("size"):
        raise ClipRefused(
            f"table {table}: clip {name}: its bytes do not match the sha256/size the node chained"
        )
    return store.add_media(body, kind="clip", suffix=suffix, table=table, seq=seq, name=name)


class ClipSender:
    """The node side: ``tick(publish)`` sends each clip once per process (the broker's QoS 1
    session re-sends what it has not acknowledged; a restarted node sends them all again)."""

    def __init__(self, store: EvidenceStore, table: str) -> None:
        self.store = store
        self.table = table
        self.sent: set[str] = set()
        self._at = 0.0

    def tick(self, publish: Any) -> int:
        """``publish(payload)`` for each clip not yet sent; how many went."""
        now = time.monotonic()
        if now - self._at < SCAN_EVERY_S:
            return 0
        self._at = now
        n = 0
        for row in self.store.media_of(self.table, "clip"):
            if row["sha256"] in self.sent:
                continue
            payload = clip_message(self.store, self.table, row)
            if payload is None:
                log.warning("table %s: clip %s pruned before it was sent", self.table, row["name"])
            else:
                publish(payload)
                n += 1
            self.sent.add(row["sha256"])
        return n
