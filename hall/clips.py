"""Evidence media through the hall: each ``clip`` media row a node chained (``tablescan.clips``)
and each evidence ``frame`` (the still frames a play, and so a violation, rests on) goes to the
desk on ``tablescan/<hall>/<table>/clip`` (QoS 1), so the desk's pages show the same video and
the same frames beside the same violation. The desk checks the bytes against the sha256 and
size of the node's media row (carried in the header) and stores the file in its own chain
under the node's name (content-addressed: one sent twice, after a node restart, is stored
once), so ``/api/media/<evidence id>`` resolves at the desk as at the table.

Message: one JSON header line, ``\\n``, then the file's bytes::

    {"v": 1, "table": T, "kind": "clip" | "frame", "sha256": HEX, "size": N,
     "name": "<evidence>-clip" | "<evidence>-after" | ..., "seq": S, "suffix": ".webm"}

(no ``kind``: a clip, as the first desks sent).
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
MAX_FRAME_BYTES = 2 * 1024 * 1024  # an evidence JPEG is ~50-200 KB
SUFFIXES = (".webm", ".mp4")
FRAME_SUFFIXES = (".jpg", ".jpeg", ".png")
KINDS = ("clip", "frame")
PER_TICK = 32  # messages a tick: a node's backlog of frames goes out over seconds, not at once
SCAN_EVERY_S = 1.0


class ClipRefused(ValueError):
    """A clip message the desk does not store; the text names the table and what is wrong."""


def clip_message(
    store: EvidenceStore, table: str, row: dict[str, Any], kind: str = "clip"
) -> bytes | None:
    """The message for one of ``store.media_of(table, kind)`` (None: its file is gone)."""
    path = store.media_path(row["sha256"])
    if path is None:
        return None
    header = {
        "v": 1,
        "table": table,
        "kind": kind,
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
    kind = h.get("kind", "clip")
    if kind not in KINDS:
        raise ClipRefused(f"table {table}: media kind {kind!r} (expected clip/frame)")
    name, seq, suffix = h.get("name"), h.get("seq"), h.get("suffix")
    if kind == "clip":
        if not isinstance(name, str) or not name.endswith("-clip") or len(name) > 200:
            raise ClipRefused(f"table {table}: clip name {name!r}: expected '<evidence id>-clip'")
    elif not isinstance(name, str) or not name or len(name) > 200 or "/" in name:
        raise ClipRefused(f"table {table}: frame name {name!r}: expected an evidence file name")
    if seq is not None and not isinstance(seq, int):
        raise ClipRefused(f"table {table}: {kind} {name}: seq {seq!r} is not a number")
    allowed, bound = (
        (SUFFIXES, MAX_CLIP_BYTES) if kind == "clip" else (FRAME_SUFFIXES, MAX_FRAME_BYTES)
    )
    if not isinstance(suffix, str) or suffix not in allowed:
        raise ClipRefused(
            f"table {table}: {kind} {name}: suffix {suffix!r} (expected {'/'.join(allowed)})"
        )
    if len(body) > bound:
        raise ClipRefused(f"table {table}: {kind} {name}: {len(body)} bytes, over {bound}")
    sha = hashlib.sha256(body).hexdigest()
    if sha != h.get("sha256") or len(body) != h.get("size"):
        raise ClipRefused(
            f"table {table}: {kind} {name}: its bytes do not match the sha256/size the node chained"
        )
    return store.add_media(body, kind=kind, suffix=suffix, table=table, seq=seq, name=name)


class ClipSender:
    """The node side: ``tick(publish)`` sends each clip and evidence frame once per process
    (the broker's QoS 1 session re-sends what it has not acknowledged; a restarted node sends
    them all again, and the desk stores each once), at most ``PER_TICK`` a tick."""

    def __init__(self, store: EvidenceStore, table: str) -> None:
        self.store = store
        self.table = table
        self.sent: set[str] = set()
        self._at = 0.0

    def tick(self, publish: Any) -> int:
        """``publish(payload)`` for each clip or frame not yet sent; how many went."""
        now = time.monotonic()
        if now - self._at < SCAN_EVERY_S:
            return 0
        self._at = now
        n = 0
        for kind in KINDS:
            for row in self.store.media_of(self.table, kind):
                if row["sha256"] in self.sent:
                    continue
                if n >= PER_TICK:
                    self._at = 0.0  # more to send: the next tick scans again at once
                    return n
                payload = clip_message(self.store, self.table, row, kind)
                if payload is None:
                    log.warning(
                        "table %s: %s %s pruned before it was sent", self.table, kind, row["name"]
                    )
                else:
                    publish(payload)
                    n += 1
                self.sent.add(row["sha256"])
        return n
