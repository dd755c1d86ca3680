"""The broadcast overlay (an OBS browser source): read-only, opened by a per-table token, and
delayed. It shows what ``view.public_view`` whitelists, as it was ``delay`` seconds ago.

URL parameters: ``token`` (required), ``delay`` (seconds; never below the node's configured
minimum), ``widgets`` (comma list of ``score``, ``trick``, ``last``, ``bottom``, ``players``),
``scale`` (CSS zoom, e.g. 1.5).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, abort, current_app, render_template, request

from dashboard.api import hub
from dashboard.sse import delayed_stream

bp = Blueprint("overlay", __name__, url_prefix="/overlay")
WIDGETS = ("score", "players", "trick", "last", "bottom")


def _check(tid: str) -> float:
    """The token must open this table; returns the effective delay in seconds."""
    token = request.args.get("token", "")
    if current_app.extensions["dashboard.users"].overlay_table(token) != tid:
        current_app.extensions["tablescan.counters"]["overlay_refused"] += 1
        abort(403, "overlay token missing or not valid for this table")
    floor = float(current_app.config["OVERLAY_MIN_DELAY_S"])
    try:
        delay = float(request.args.get("delay", current_app.config["OVERLAY_DELAY_S"]))
    except ValueError:
        abort(400, "delay: expected seconds")
    return max(floor, min(delay, 3600.0))


@bp.get("/<tid>")
def page(tid: str) -> Any:
    delay = _check(tid)
    asked = [w for w in request.args.get("widgets", ",".join(WIDGETS)).split(",") if w in WIDGETS]
    try:
        scale = min(4.0, max(0.25, float(request.args.get("scale", "1"))))
    except ValueError:
        scale = 1.0
    return render_template(
        "overlay.html", tid=tid, delay=delay, widgets=asked or list(WIDGETS), scale=scale
    )


@bp.get("/<tid>/state")
def state(tid: str) -> Any:
    delay = _check(tid)
    table = hub().tables.get(tid)
    due = table.public_at(hub().clock() - delay) if table else None
    return Response(due[1] if due else "null", mimetype="application/json")


@bp.get("/<tid>/stream")
def stream(tid: str) -> Any:
    delay = _check(tid)
    ping = float(current_app.config["SSE_PING_S"])
    users, token = current_app.extensions["dashboard.users"], request.args.get("token", "")
    body = delayed_stream(
        hub(), tid, delay, ping, hub().clock, lambda: users.overlay_table(token) == tid
    )
    resp = Response(body, mimetype="text/event-stream")
    resp.headers["Cache-Control"] = "no-cache"
    return resp
