"""The stream operator's panel for one overlay link (what OBS, NodeCG and poker-graphics
users expect): the link with a copy button, the delay it runs at, each widget shown or
hidden, the "violation upheld" stinger on or off, a test pattern until the match starts, and
two previews side by side with safe-area guides: what is on air now (the link itself, as
OBS shows it, delayed) and what goes on air next (the same graphics, undelayed).

Only the head referee opens it, and only with the link's token in hand (tokens are stored
hashed: the panel is reached from the page that shows a new link). The undelayed preview and
its stream need that login too: the overlay link alone never gets anything before its delay.
"""

from __future__ import annotations

from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    g,
    redirect,
    render_template,
    request,
    url_for,
)

from dashboard.api import hub
from dashboard.auth import current_user, role_required
from dashboard.i18n import DEFAULT as DEFAULT_LANG
from dashboard.i18n import _normal
from dashboard.overlay import (
    WIDGETS,
    Layout,
    effective_delay,
    layouts,
)
from dashboard.overlay_switches import OperatorStore, switches
from dashboard.sse import delayed_stream
from dashboard.users import overlay_link_id

bp = Blueprint("operator", __name__, url_prefix="/overlay")


def _token(tid: str) -> str:
    """The link's token, which must open ``tid`` (404 otherwise: nothing said about it)."""
    token = request.values.get("token", "")
    if current_app.extensions["dashboard.users"].overlay_table(token) != tid:
        abort(404)
    return token


def _delay() -> float:
    return effective_delay(
        request.values.get("delay"),
        float(current_app.config["OVERLAY_DELAY_S"]),
        float(current_app.config["OVERLAY_MIN_DELAY_S"]),
    )


@bp.get("/<tid>/operator")
@role_required("head")
def panel(tid: str) -> str:
    token = _token(tid)
    delay = _delay()
    return render_template(
        "operator.html",
        page="operator",
        tid=tid,
        token=token,
        url=url_for("overlay.page", tid=tid, token=token, _external=True),
        delay=delay,
        floor=float(current_app.config["OVERLAY_MIN_DELAY_S"]),
        lay=layouts().get(overlay_link_id(token)),
        widgets=WIDGETS,
        ops=switches(token),
        saved=request.args.get("saved") == "1",
    )


@bp.post("/<tid>/operator")
@role_required("head")
def save(tid: str) -> Any:
    """Form: ``token``, ``widgets`` (the shown ones), ``stinger``, ``test_pattern``; the
    layout and position stay as stored (the link page sets them)."""
    token = _token(tid)
    link = overlay_link_id(token)
    now = layouts().get(link)
    try:
        chosen = Layout.checked(now.layout, now.position, request.form.getlist("widgets"))
    except ValueError as e:
        return Response(str(e), status=400, mimetype="text/plain")
    user = current_user()
    by = user.name if user else ""
    layouts().save(link, tid, chosen, by)
    switches(token)  # the store exists
    ops: OperatorStore = current_app.extensions["dashboard.operator"]
    ops.save(link, tid, "stinger" in request.form, "test_pattern" in request.form, by)
    return redirect(url_for("operator.panel", tid=tid, token=token, saved=1))


@bp.after_request
def _frameable(resp: Response) -> Response:
    """The undelayed preview sits in a frame of the panel (this site only)."""
    if request.endpoint == "operator.preview":
        resp.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline';"
            " script-src 'self'; frame-ancestors 'self'",
        )
    return resp


@bp.get("/<tid>/preview")
@role_required("head")
def preview(tid: str) -> str:
    """The overlay as it goes on air next: this link's graphics, undelayed (head only), in
    the link's language (Chinese unless ``lang=en``), not the head referee's."""
    token = _token(tid)
    g.tablescan_lang = _normal(request.args.get("lang")) or DEFAULT_LANG
    return render_template(
        "overlay.html",
        tid=tid,
        delay=0.0,
        lay=layouts().get(overlay_link_id(token)),
        ops=switches(token),
        stream=url_for("operator.preview_stream", tid=tid, token=token),
    )


@bp.get("/<tid>/preview-stream")
@role_required("head")
def preview_stream(tid: str) -> Response:
    """The public view as it is now (what the link shows after its delay), for the panel."""
    token = _token(tid)
    ping = float(current_app.config["SSE_PING_S"])
    users = current_app.extensions["dashboard.users"]
    gone = request.environ.get("waitress.client_disconnected", lambda: False)
    body = delayed_stream(
        hub(),
        tid,
        0.0,
        ping,
        hub().clock,
        lambda: not gone() and users.overlay_table(token) == tid,
    )
    resp = Response(body, mimetype="text/event-stream")
    resp.headers["Cache-Control"] = "no-cache"
    return resp
