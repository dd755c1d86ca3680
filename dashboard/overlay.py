"""The broadcast overlay (an OBS browser source): read-only, opened by a per-table token, and
delayed. It shows what ``view.public_view`` whitelists, as it was ``delay`` seconds ago.

URL parameters: ``token`` (required), ``delay`` (seconds; never below the node's floor,
``MIN_DELAY_S`` = 30 s unless ``tablescan serve --overlay-min-delay`` sets another; a bad or
lower value gets the floor), ``widgets`` (comma list of ``score``, ``trick``, ``last``,
``bottom``, ``players``), ``scale`` (CSS zoom, e.g. 1.5).
"""

from __future__ import annotations

import math
from typing import Any

from flask import Blueprint, Response, abort, current_app, render_template, request

from dashboard.api import hub
from dashboard.sse import delayed_stream

bp = Blueprint("overlay", __name__, url_prefix="/overlay")
WIDGETS = ("score", "players", "trick", "last", "bottom")
#: The broadcast delay floor by default: a watcher of the stream cannot tell a player at the
#: table what was just played (a trick takes about this long). Only the operator lowers it.
MIN_DELAY_S = 30.0
MAX_DELAY_S = 3600.0


def _check(tid: str) -> float:
    """The token must open this table; returns the effective delay in seconds."""
    token = request.args.get("token", "")
    if current_app.extensions["dashboard.users"].overlay_table(token) != tid:
        current_app.extensions["tablescan.counters"]["overlay_refused"] += 1
        abort(403, "overlay token missing or not valid for this table")
    return effective_delay(
        request.args.get("delay"),
        float(current_app.config["OVERLAY_DELAY_S"]),
        float(current_app.config["OVERLAY_MIN_DELAY_S"]),
    )


def effective_delay(asked: str | None, default: float, floor: float) -> float:
    """The delay a link gets: what it asks for (else the node's default), never below the
    node's floor; anything that is not a finite number of seconds (``nan``, ``-5``, ``x``)
    gets the floor. At most an hour."""
    floor = floor if math.isfinite(floor) and floor > 0 else 0.0
    try:
        delay = float(asked) if asked is not None else default
    except ValueError:
        delay = floor
    if not math.isfinite(delay) or delay < floor:
        delay = floor
    return min(delay, max(floor, MAX_DELAY_S))


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
    # waitress says when the client went away: the stream (and its thread) ends within a second
    gone = request.environ.get("waitress.client_disconnected", lambda: False)
    body = delayed_stream(
        hub(),
        tid,
        delay,
        ping,
        hub().clock,
        lambda: not gone() and users.overlay_table(token) == tid,
    )
    resp = Response(body, mimetype="text/event-stream")
    resp.headers["Cache-Control"] = "no-cache"
    return resp
