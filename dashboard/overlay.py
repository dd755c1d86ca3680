"""The broadcast overlay (an OBS browser source): read-only, opened by a per-table token, and
delayed. It shows what ``view.public_view`` whitelists, as it was ``delay`` seconds ago.

URL parameters: ``token`` (required), ``delay`` (seconds; never below the node's floor,
``MIN_DELAY_S`` = 30 s unless ``tablescan serve --overlay-min-delay`` sets another; a bad or
lower value gets the floor) and ``lang`` (``en``; Chinese by default). The layout (corner,
lower third or side bar), its position and its widgets are the head referee's choice, stored
with the link from the overlay-link page (``POST /overlay/<table>/layout``): the URL cannot
change them, so whoever holds the link cannot move the graphics on air.

Anything wrong (a missing, bad or revoked token, an unknown table, a server error) answers a
fully transparent page: a broken overlay must put nothing on the stream, not an error text.
"""

from __future__ import annotations

import math
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, abort, current_app, render_template, request
from werkzeug.exceptions import HTTPException

from dashboard.api import hub
from dashboard.auth import current_user, role_required
from dashboard.sse import delayed_stream
from dashboard.users import overlay_link_id

bp = Blueprint("overlay", __name__, url_prefix="/overlay")
WIDGETS = ("score", "players", "trick", "last", "bottom", "calls")
#: layout → the positions it may take (the first is its default)
LAYOUTS: dict[str, tuple[str, ...]] = {
    "lower-third": ("bottom", "top"),
    "corner": ("top-left", "top-right", "bottom-left", "bottom-right"),
    "sidebar": ("right", "left"),
}
DEFAULT_LAYOUT = "lower-third"
LAYOUTS_DB = "overlay_layouts.sqlite3"
#: The broadcast delay floor by default: a watcher of the stream cannot tell a player at the
#: table what was just played (a trick takes about this long). Only the operator lowers it.
MIN_DELAY_S = 30.0
MAX_DELAY_S = 3600.0
#: what a broken overlay answers: nothing visible, whatever the browser source's background
BLANK = (
    '<!doctype html><html><head><meta charset="utf-8"><style>html,body{margin:0;'
    "background:transparent!important;color:transparent}</style></head><body></body></html>"
)


@dataclass(frozen=True)
class Layout:
    """What the head referee chose for one overlay link."""

    layout: str = DEFAULT_LAYOUT
    position: str = LAYOUTS[DEFAULT_LAYOUT][0]
    widgets: tuple[str, ...] = WIDGETS

    @classmethod
    def checked(cls, layout: str, position: str, widgets: list[str]) -> Layout:
        """A layout from form fields; a one-line error naming the bad field otherwise."""
        if layout not in LAYOUTS:
            raise ValueError(f"layout {layout!r}: expected one of {', '.join(LAYOUTS)}")
        if position not in LAYOUTS[layout]:
            raise ValueError(
                f"position {position!r} for {layout}: expected one of {', '.join(LAYOUTS[layout])}"
            )
        bad = [w for w in widgets if w not in WIDGETS]
        if bad:
            raise ValueError(f"widgets {bad}: expected some of {', '.join(WIDGETS)}")
        return cls(layout, position, tuple(w for w in WIDGETS if w in widgets) or WIDGETS)


class LayoutStore:
    """Layouts by overlay link id, in ``DATA/overlay_layouts.sqlite3`` (never the token)."""

    def __init__(self, data_dir: str | Path) -> None:
        self._lock = threading.Lock()
        self._db = sqlite3.connect(
            Path(data_dir) / LAYOUTS_DB, isolation_level=None, check_same_thread=False, timeout=10
        )
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS layouts (link TEXT PRIMARY KEY, table_id TEXT NOT NULL, "
            "layout TEXT NOT NULL, position TEXT NOT NULL, widgets TEXT NOT NULL, by TEXT, at REAL)"
        )

    def save(self, link: str, table: str, layout: Layout, by: str) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO layouts VALUES (?,?,?,?,?,?,?)",
                (
                    link,
                    table,
                    layout.layout,
                    layout.position,
                    ",".join(layout.widgets),
                    by,
                    time.time(),
                ),
            )

    def get(self, link: str) -> Layout:
        with self._lock:
            row = self._db.execute(
                "SELECT layout, position, widgets FROM layouts WHERE link=?", (link,)
            ).fetchone()
        if row is None:
            return Layout()
        try:
            return Layout.checked(row[0], row[1], str(row[2]).split(","))
        except ValueError:  # a row from another version: the default, never a broken overlay
            return Layout()


def layouts() -> LayoutStore:
    ext = current_app.extensions
    if "dashboard.overlay_layouts" not in ext:
        ext["dashboard.overlay_layouts"] = LayoutStore(hub().store.data_dir)
    return ext["dashboard.overlay_layouts"]  # type: ignore[no-any-return]


@bp.errorhandler(HTTPException)
def _blank_http(e: HTTPException) -> Response:
    return Response(BLANK, status=e.code or 500, mimetype="text/html")


@bp.errorhandler(Exception)
def _blank_error(e: Exception) -> Response:
    current_app.logger.exception("overlay failed: %s", e)
    return Response(BLANK, status=500, mimetype="text/html")


def _check(tid: str) -> float:
    """The token must open this table; returns the effective delay in seconds."""
    token = request.args.get("token", "")
    if current_app.extensions["dashboard.users"].overlay_table(token) != tid:
        current_app.extensions["tablescan.counters"]["overlay_refused"] += 1
        abort(403)
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
    chosen = layouts().get(overlay_link_id(request.args.get("token", "")))
    return render_template("overlay.html", tid=tid, delay=delay, lay=chosen)


@bp.post("/<tid>/layout")
@role_required("head")
def save_layout(tid: str) -> Any:
    """The head referee's layout for one link (form: ``token``, ``pl`` = ``layout|position``
    or ``layout`` and ``position``, ``widgets``); answers the link page again, showing what
    is now stored."""
    token = request.form.get("token", "")
    if current_app.extensions["dashboard.users"].overlay_table(token) != tid:
        abort(404)
    try:
        # the form's radio sends ``pl=layout|position``; a script may send the two fields
        layout, _, position = request.form.get("pl", "").partition("|")
        chosen = Layout.checked(
            request.form.get("layout", layout),
            request.form.get("position", position),
            request.form.getlist("widgets"),
        )
    except ValueError as e:
        return Response(str(e), status=400, mimetype="text/plain")
    user = current_user()
    layouts().save(overlay_link_id(token), tid, chosen, user.name if user else "")
    return token_page(tid, token, saved=True)


def token_page(tid: str, token: str, saved: bool = False) -> str:
    """The overlay-link page: the URL, and the layout control for that link."""
    from flask import url_for

    url = url_for("overlay.page", tid=tid, token=token, _external=True)
    return render_template(
        "token.html",
        page="table",
        tid=tid,
        url=url,
        token=token,
        lay=layouts().get(overlay_link_id(token)),
        layouts=LAYOUTS,
        widgets=WIDGETS,
        saved=saved,
        host=request.host,
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


# -- the tournament widget: standings and bracket, same token and delay ---------------------


def _tournament_view(delay: float) -> dict[str, Any] | None:
    """The tournament's confirmed standings and bracket as they stood ``delay`` seconds ago
    (None before a tournament is set up): only confirmed results go on air."""
    from dashboard import tournament

    st = tournament.store()
    then = st.as_of(hub().clock() - delay)
    try:
        fmt = then.format
    except ValueError:
        return None
    table = then.standings(confirmed_only=True)
    rows = [
        {
            "rank": s.rank,
            "entrant": s.entrant,
            "match_points": f"{s.match_points:g}",
            "game_points": f"{s.game_points:g}",
            "tiebreak": tournament.reason_text(s),
        }
        for s in table
    ]
    bracket = [
        {
            **b,
            "rounds": [
                {**r, "matches": [m for m in r["matches"] if m["status"] in ("confirmed", "bye")]}
                for r in b["rounds"]
            ],
        }
        for b in tournament._bracket(then)
    ]
    return {"name": then.name(), "title": fmt.title, "standings": rows, "bracket": bracket}


@bp.get("/<tid>/tournament")
def tournament_page(tid: str) -> Any:
    """The standings / bracket widget (an OBS browser source, like the table's overlay): the
    table's overlay token opens it, the same delay floor holds; it reloads itself."""
    delay = _check(tid)
    view = _tournament_view(delay)
    show = request.args.get("show", "standings")
    return render_template(
        "overlay_tournament.html", tid=tid, delay=delay, view=view,
        show=show if show in ("standings", "bracket") else "standings",
    )  # fmt: skip


@bp.get("/<tid>/tournament/state")
def tournament_state(tid: str) -> Any:
    delay = _check(tid)
    return _tournament_view(delay) or {}
