"""A table's clips (``GET /api/tables/<id>/clips``): the short WebM videos the node keeps
around every violation and referee prompt (``tablescan.clips``), each a ``clip`` media row in
the hash chain. ``static/clips.js`` puts each beside the still frames of its play; the file
itself comes from ``GET /api/media/<sha256>`` (Range requests: a phone seeks in it)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, current_app, jsonify

from evidence.store import StoreError

bp = Blueprint("clips", __name__, url_prefix="/api")


@bp.get("/tables/<tid>/clips")
def clips(tid: str) -> Any:
    """``[{"evidence", "media", "seq", "size", "url"}]``: ``evidence`` is the play's evidence
    frame id (the clip's media name less ``-clip``), ``media`` its sha256."""
    store = current_app.extensions["tablescan.hub"].store
    try:
        rows = store.media_of(tid, "clip")
    except StoreError as e:
        return jsonify(error=str(e)), 400
    return jsonify(
        [
            {
                "evidence": str(m["name"] or "").removesuffix("-clip"),
                "media": m["sha256"],
                "seq": m["seq"],
                "size": m["size"],
                "url": f"/api/media/{m['sha256']}",
            }
            for m in rows
        ]
    )
