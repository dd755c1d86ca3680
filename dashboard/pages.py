"""The referee pages. Each renders a shell; ``static/app.js`` fills it from the page's one SSE
stream, so what the page shows is always the engine's latest state."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, current_app, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from dashboard.api import health_report, hub
from dashboard.auth import current_user, login_required, role_required

bp = Blueprint("pages", __name__)


def _table(tid: str) -> Any:
    if tid not in hub().tables:
        abort(404, f"no table {tid!r} on this node")
    return hub().tables[tid]


@bp.get("/")
@login_required
def hall() -> str:
    return render_template("hall.html", page="hall")


@bp.get("/violations")
@login_required
def hall_violations() -> str:
    """One queue across the hall: every table's open flags, each linking to its table's queue."""
    return render_template("hall_violations.html", page="hall_violations")


@bp.get("/tables/<tid>")
@login_required
def table(tid: str) -> str:
    _table(tid)
    user = current_user()
    links = []
    if user is not None and user.role == "head":
        links = current_app.extensions["dashboard.users"].overlay_links(tid)
    return render_template("table.html", page="table", tid=tid, links=links)


@bp.get("/tables/<tid>/violations")
@login_required
def violations(tid: str) -> str:
    _table(tid)
    return render_template("violations.html", page="violations", tid=tid)


@bp.get("/tables/<tid>/corrections")
@login_required
def corrections(tid: str) -> str:
    _table(tid)
    return render_template("corrections.html", page="corrections", tid=tid)


def _default_layout(seats: int) -> dict[str, Any]:
    from vision.calibration import default_layout

    layout = default_layout(max(2, seats or 4))
    areas = [
        {"name": a.name, "kind": a.kind, "seat": a.seat, "polygon": [list(p) for p in a.polygon]}
        for a in layout.areas
    ]
    return {"table_size": list(layout.table_size), "areas": areas, "from_config": False}


def find_markers(jpeg: bytes | None, dictionary: str) -> list[dict[str, Any]]:
    """The ArUco markers in a shared JPEG (a frame from a node that shares no markers.json)."""
    if not jpeg:
        return []
    import cv2
    import numpy as np

    from vision.calibration import CalibrationError
    from vision.calibration import find_markers as in_image

    image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_GRAYSCALE)
    try:
        return in_image(image, dictionary)
    except CalibrationError:
        return []


@bp.get("/tables/<tid>/calibration")
@login_required
def calibration(tid: str) -> str:
    """The live frame, the markers found in it, the seat areas from the table's config (the
    node shares them in ``live/<table>/layout.json``), and the saved corners."""
    from evidence.live import LiveFiles

    view = _table(tid).view
    live = LiveFiles(hub().store.data_dir)
    layout = live.layout(tid)
    if layout is not None and isinstance(layout.get("areas"), list):
        layout = {**layout, "from_config": True}
    else:
        layout = _default_layout(len(view.get("seats", [])))
    cal = layout.get("calibration") or {}
    dictionary = str(cal.get("dictionary") or "DICT_4X4_50")
    shared = live.markers(tid)  # the node's, from the frame before the hand masks
    if shared is not None and isinstance(shared.get("found"), list):
        markers = list(shared["found"])
    else:
        markers = find_markers(live.frame(tid), dictionary)
    return render_template(
        "calibration.html",
        page="calibration",
        tid=tid,
        layout=layout,
        saved=live.calibration(tid),
        markers={"found": markers, "want": cal.get("marker_ids") or [0, 1, 2, 3]},
    )


@bp.get("/health")
@login_required
def health() -> str:
    return render_template("health.html", page="health", health=health_report())


@bp.route("/tables/<tid>/overlay-token", methods=["POST"])
@role_required("head")
def overlay_token(tid: str) -> str:
    _table(tid)
    user = current_user()
    token = current_app.extensions["dashboard.users"].new_overlay_token(
        tid, by=user.name if user else ""
    )
    from dashboard.overlay import token_page  # overlay (issue 19): the link page with its layout

    return token_page(tid, token)


@bp.route("/tables/<tid>/overlay-revoke", methods=["POST"])
@role_required("head")
def overlay_revoke(tid: str) -> Response:
    """Revoke one overlay link (form field ``link``: its id) or, without it, all of the
    table's links: a leaked link stops working, and an open overlay goes blank."""
    _table(tid)
    from dashboard.users import UserError

    link = request.form.get("link") or None
    try:
        current_app.extensions["dashboard.users"].revoke_overlay(tid, link)
    except UserError as e:
        abort(400, str(e))
    return redirect(url_for("pages.table", tid=tid))
