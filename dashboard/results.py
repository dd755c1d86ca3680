"""The tournament's results at the desk: each pairing's result as it came in from its table's
``match_end`` (``evidence.tournament_feed``), confirmed by a referee in one tap with the
match's outcome shown, or corrected (an audited event: who, why, what it read before).

Pages are plain forms (no script needed on a phone); ``/api/tournament/results`` is the same
data as JSON and takes the same confirm and correct actions. The feed runs on every request
here, and every few seconds in a thread beside the hub (``start_feed``), so results arrive
while nobody looks.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from flask import Blueprint, Flask, current_app, jsonify, redirect, render_template, request
from flask_babel import gettext as _
from werkzeug.wrappers import Response

from dashboard.api import hub
from dashboard.auth import current_user, login_required, role_required
from evidence.tournament import DB_FILE, PairingRow, TournamentError, TournamentStore
from evidence.tournament_feed import ResultsFeed

bp = Blueprint("results", __name__)
log = logging.getLogger(__name__)
FEED = "tablescan.results_feed"
POLL_S = 2.0


def feed() -> ResultsFeed:
    """The app's one feed (made on first use), over the hub's store and this data folder's
    tournament."""
    app = current_app
    got = app.extensions.get(FEED)
    if got is None:
        with app.extensions.setdefault(FEED + ".lock", threading.Lock()):
            got = app.extensions.get(FEED)
            if got is None:
                formats = app.config.get("TOURNAMENT_FORMATS")  # a test's own formats folder
                store = TournamentStore(
                    app.config["TABLESCAN_DATA_DIR"], clock=hub().clock, formats=formats
                )
                got = app.extensions[FEED] = ResultsFeed(hub().store, store)
    return got


def _lock(app: Flask) -> threading.Lock:
    lock: threading.Lock = app.extensions.setdefault(FEED + ".poll", threading.Lock())
    return lock


def poll(app: Flask | None = None) -> ResultsFeed:
    """Take in what the tables sent since the last look."""
    app = app or current_app._get_current_object()  # type: ignore[attr-defined]
    with app.app_context():
        f = feed()
        with _lock(app):
            try:
                f.poll()
            except TournamentError as e:  # a tournament the desk cannot read: shown, kept
                f.problems["-"] = str(e)
        return f


def start_feed(app: Flask, hub_stopped: Any) -> threading.Thread:
    """Poll every ``POLL_S`` seconds (the app's ``RESULTS_POLL_S``) while this data folder
    holds a tournament, until the hub stops (``hub_stopped()``); a poll that fails is logged
    and the next one tries again."""
    from pathlib import Path

    every = float(app.config.get("RESULTS_POLL_S", POLL_S))

    def run() -> None:
        while not hub_stopped():
            time.sleep(every)
            if hub_stopped():
                return
            if (Path(app.config["TABLESCAN_DATA_DIR"]) / DB_FILE).exists():
                try:
                    poll(app)
                except Exception:  # the stores closed under it, or one bad row: next time
                    if hub_stopped():
                        return
                    log.exception("results feed poll failed")

    thread = threading.Thread(target=run, name="results feed", daemon=True)
    thread.start()
    return thread


@bp.before_app_request
def _arrived() -> None:
    """The tournament desk's pages (``/tournament``) show the results the tables sent by now."""
    from pathlib import Path

    if request.method != "GET" or not request.path.startswith("/tournament"):
        return
    if request.path.startswith("/tournament/results"):
        return  # its views poll themselves
    if (Path(current_app.config["TABLESCAN_DATA_DIR"]) / DB_FILE).exists():
        poll()


def _row(f: ResultsFeed, p: PairingRow) -> dict[str, Any]:
    return {**p.to_json(), "outcome": f.outcome_of(p)}


def _rounds(f: ResultsFeed) -> dict[str, Any]:
    ts = f.tournament
    try:
        fmt = ts.format
    except TournamentError:
        return {"format": None, "name": "", "pairings": [], "problems": f.problems}
    return {
        "format": fmt.id,
        "name": ts.name(),
        "pairings": [_row(f, p) for p in reversed(ts.pairings())],
        "problems": f.problems,
    }


def _games(raw: Any) -> list[dict[str, Any]]:
    if not isinstance(raw, list):
        raise TournamentError("games: expected a list of {winner, a_points, b_points}")
    return [dict(g) if isinstance(g, dict) else {} for g in raw]


@bp.get("/tournament/results")
@login_required
def page() -> str:
    f = poll()
    return render_template("results.html", page="results", **_rounds(f))


@bp.post("/tournament/results/<pid>/confirm")
@role_required("head", "referee")
def confirm_form(pid: str) -> Response:
    f = poll()
    user = current_user()
    try:
        f.tournament.confirm_result(pid, by=user.name if user else "?")
    except TournamentError as e:
        return Response(str(e), 409)
    return redirect(f"/tournament/results#p-{pid}")


@bp.post("/tournament/results/<pid>/correct")
@role_required("head", "referee")
def correct_form(pid: str) -> Response:
    f = poll()
    user = current_user()
    games = []
    for i in range(1, 6):
        winner = request.form.get(f"winner{i}")
        if not winner:
            continue
        try:
            a, b = float(request.form.get(f"a{i}", "")), float(request.form.get(f"b{i}", ""))
        except ValueError:
            return Response(_("game %(n)s: the points are not numbers", n=i), 400)
        games.append({"winner": winner, "a_points": a, "b_points": b})
    try:
        f.tournament.correct_result(
            pid, games, by=user.name if user else "?", reason=request.form.get("reason", "")
        )
    except TournamentError as e:
        return Response(str(e), 400)
    return redirect(f"/tournament/results#p-{pid}")


@bp.get("/api/tournament/results")
@login_required
def api_results() -> Any:
    return jsonify(_rounds(poll()))


@bp.post("/api/tournament/results/<pid>/confirm")
@role_required("head", "referee")
def api_confirm(pid: str) -> Any:
    f = poll()
    user = current_user()
    try:
        p = f.tournament.confirm_result(pid, by=user.name if user else "?")
    except TournamentError as e:
        return jsonify(error=str(e)), 409
    return jsonify(_row(f, p))


@bp.post("/api/tournament/results/<pid>/correct")
@role_required("head", "referee")
def api_correct(pid: str) -> Any:
    f = poll()
    user = current_user()
    body = request.get_json(silent=True) or {}
    try:
        p = f.tournament.correct_result(
            pid, _games(body.get("games")), user.name if user else "?", str(body.get("reason", ""))
        )
    except TournamentError as e:
        return jsonify(error=str(e)), 400
    return jsonify(_row(f, p))
