"""The tournament desk: entrants, the draw, each round's pairings with tables and seats, the
results as they arrive (a referee confirms each with one tap), live standings with the reason
for every tie-break, the knock-out bracket, and the A4 sheets to print.

The pages are server-rendered forms over ``evidence.tournament.TournamentStore`` in the data
directory (``tournament.sqlite3``); every action is an audited row there. Head referees set the
tournament up, import the entrants, draw and correct; referees confirm results; viewers read.
The PDFs are the print pages printed by headless Chromium (``evidence.report.print_pdf``, as
the dispute report is).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_babel import gettext as _

from dashboard.api import hub
from dashboard.auth import current_user, login_required, role_required
from engine.tournament import FormatError, Standing, format_ids, load_format, outcome
from engine.tournament.standings import CRITERION_NAMES
from evidence.tournament import PairingRow, TournamentStore

bp = Blueprint("tournament", __name__, url_prefix="/tournament")

#: the tie-break criteria as the pages name them (msgids; the catalogs hold the Chinese)
CRITERIA: dict[str, Callable[[], str]] = {
    "match points": lambda: _("match points"),
    "accumulated game points": lambda: _("accumulated game points"),
    "head-to-head": lambda: _("head-to-head"),
    "head-to-head game points": lambda: _("head-to-head game points"),
    "largest win": lambda: _("largest win"),
    "lots": lambda: _("lots"),
}
KINDS: dict[str, Callable[[], str]] = {
    "knockout": lambda: _("knockout"),
    "round_robin": lambda: _("round robin"),
    "swiss": lambda: _("Swiss"),
}


LOG_KINDS: dict[str, Callable[[], str]] = {
    "setup": lambda: _("set up"),
    "entrants": lambda: _("entrants imported"),
    "draw": lambda: _("round drawn"),
    "result": lambda: _("result in"),
    "confirm": lambda: _("result confirmed"),
    "correct": lambda: _("result corrected"),
}


def store() -> TournamentStore:
    ext = current_app.extensions
    if "tablescan.tournament" not in ext:
        data = Path(current_app.config["TABLESCAN_DATA_DIR"])
        ext["tablescan.tournament"] = TournamentStore(data, clock=hub().clock)
    s: TournamentStore = ext["tablescan.tournament"]
    return s


def reason_text(s: Standing) -> str:
    """A standing's tie-break reason in the page's language."""
    r = s.reason
    if r is None:
        return ""
    if r.relation == "level":
        return str(_("level with %(other)s (the sheet breaks this tie no further)", other=r.other))
    crit = CRITERIA[CRITERION_NAMES[r.criterion]]()
    if r.relation == "ahead":
        return str(_("ahead of %(other)s on %(criterion)s", other=r.other, criterion=crit))
    return str(_("behind %(other)s on %(criterion)s", other=r.other, criterion=crit))


def _num(x: float) -> str:
    return f"{x:g}"


def _when(at: float) -> str:
    return time.strftime("%m-%d %H:%M:%S", time.localtime(at))


def _bracket(st: TournamentStore) -> list[dict[str, Any]]:
    """The knock-out stages as columns of matches (round by round), for the bracket view."""
    fmt = st.format
    out: list[dict[str, Any]] = []
    for n, stage in enumerate(fmt.stages, 1):
        if stage.kind != "knockout":
            continue
        rounds = []
        for s, r, _seed in st.rounds():
            if s != n:
                continue
            rows = []
            for p in st.pairings(s, r):
                won = None
                if p.games:
                    won = outcome(stage, p.match()).winner
                rows.append({"a": p.a, "b": p.b, "won": won, "status": p.status})
            rows += [{"a": b, "b": None, "won": b, "status": "bye"} for b in st.byes(s, r)]
            rounds.append({"round": r, "matches": rows})
        if rounds:
            out.append({"stage": n, "name": stage.name, "rounds": rounds})
    return out


def _context() -> dict[str, Any]:
    st = store()
    ctx: dict[str, Any] = {"page": "tournament", "formats": [], "fmt": None}
    try:
        fmt = st.format
    except FormatError:
        ctx["formats"] = [
            (fid, load_format(fid).title) for fid in format_ids() if load_format(fid).stages
        ]
        return ctx
    stage_no = st.current_stage()
    table = st.standings(stage_no)
    drawn = st.rounds()
    nxt = (stage_no, 1)
    if drawn:
        s, r, _seed = drawn[-1]
        nxt = (s, r + 1)
    ctx.update(
        fmt=fmt,
        name=st.name(),
        entrants=st.entrants(),
        rounds=drawn,
        stage_no=stage_no,
        standings=[(s, reason_text(s)) for s in table],
        bracket=_bracket(st),
        next_round=nxt,
        kinds={k: str(v()) for k, v in KINDS.items()},
        log=list(reversed(st.audit()))[:20],
        when=_when,
        log_kinds={k: str(v()) for k, v in LOG_KINDS.items()},
        num=_num,
    )
    return ctx


@bp.get("")
@login_required
def overview() -> str:
    return render_template("tournament.html", **_context())


def _fail(e: FormatError) -> Response:
    flash(str(e), "error")
    return redirect(request.referrer or url_for("tournament.overview"))  # type: ignore[return-value]


def _by() -> str:
    user = current_user()
    return user.name if user else "?"


@bp.post("/setup")
@role_required("head")
def setup() -> Response:
    try:
        store().setup(request.form.get("format", ""), request.form.get("name", ""), by=_by())
    except FormatError as e:
        return _fail(e)
    return redirect(url_for("tournament.overview"))  # type: ignore[return-value]


@bp.post("/entrants")
@role_required("head")
def entrants() -> Response:
    upload = request.files.get("file")
    text = upload.read().decode("utf-8-sig") if upload and upload.filename else ""
    text = text or request.form.get("csv", "")
    try:
        found = store().import_entrants(
            text,
            by=_by(),
            where=(upload.filename if upload and upload.filename else "entrants.csv"),
        )
    except (FormatError, UnicodeDecodeError) as e:
        return _fail(FormatError(str(e)))
    flash(_("%(n)d entrants imported", n=len(found)), "ok")
    return redirect(url_for("tournament.overview"))  # type: ignore[return-value]


@bp.post("/draw")
@role_required("head")
def draw() -> Response:
    try:
        stage, rnd, seed = (int(request.form.get(k, "")) for k in ("stage", "round", "seed"))
    except ValueError:
        return _fail(FormatError(_("stage, round and seed must be whole numbers")))
    tables = [t.strip() for t in request.form.get("tables", "").split(",") if t.strip()] or None
    try:
        store().draw(stage, rnd, seed, by=_by(), tables=tables)
    except FormatError as e:
        return _fail(e)
    return redirect(url_for("tournament.round_page", stage=stage, rnd=rnd))  # type: ignore[return-value]


def _round(stage: int, rnd: int) -> tuple[list[PairingRow], list[str], int]:
    st = store()
    seeds = {(s, r): seed for s, r, seed in st.rounds()}
    if (stage, rnd) not in seeds:
        abort(404, f"stage {stage} round {rnd} is not drawn")
    return st.pairings(stage, rnd), st.byes(stage, rnd), seeds[(stage, rnd)]


@bp.get("/rounds/<int:stage>/<int:rnd>")
@login_required
def round_page(stage: int, rnd: int) -> str:
    pairs, byes, seed = _round(stage, rnd)
    fmt = store().format
    return render_template(
        "tournament_round.html", page="tournament", fmt=fmt, stage=stage, rnd=rnd, seed=seed,
        pairs=pairs, byes=byes, stage_info=fmt.stage(stage), num=_num,
    )  # fmt: skip


@bp.post("/pairings/<pid>/confirm")
@role_required("head", "referee")
def confirm(pid: str) -> Response:
    try:
        p = store().confirm_result(pid, by=_by())
    except FormatError as e:
        return _fail(e)
    return redirect(url_for("tournament.round_page", stage=p.stage, rnd=p.round))  # type: ignore[return-value]


def _games_from_form() -> list[dict[str, Any]]:
    games = []
    for i in range(1, 8):
        a, b = request.form.get(f"a{i}", "").strip(), request.form.get(f"b{i}", "").strip()
        if not a and not b:
            continue
        try:
            pa, pb = float(a), float(b)
        except ValueError:
            raise FormatError(_("game %(n)d: points must be numbers", n=i)) from None
        winner = request.form.get(f"w{i}") or ("a" if pa > pb else "b" if pb > pa else "draw")
        games.append({"winner": winner, "a_points": pa, "b_points": pb})
    return games


@bp.post("/pairings/<pid>/result")
@role_required("head", "referee")
def result(pid: str) -> Response:
    """A result typed at the desk (a table without a node): provisional like any other."""
    try:
        p = store().record_result(pid, _games_from_form(), source="desk", by=_by())
    except FormatError as e:
        return _fail(e)
    return redirect(url_for("tournament.round_page", stage=p.stage, rnd=p.round))  # type: ignore[return-value]


@bp.post("/pairings/<pid>/correct")
@role_required("head")
def correct(pid: str) -> Response:
    try:
        p = store().correct_result(
            pid, _games_from_form(), by=_by(), reason=request.form.get("reason", "")
        )
    except FormatError as e:
        return _fail(e)
    return redirect(url_for("tournament.round_page", stage=p.stage, rnd=p.round))  # type: ignore[return-value]


# -- the A4 sheets ------------------------------------------------------------------------


def _pdf(template: str, filename: str, **ctx: Any) -> Response:
    from evidence.report import print_pdf

    page = render_template(template, **ctx)
    if request.args.get("html"):
        return Response(page, mimetype="text/html")
    pdf = print_pdf(page)
    return Response(
        pdf,
        mimetype="application/pdf",
        headers={"Content-Disposition": f'inline; filename="{filename}"'},
    )


@bp.get("/rounds/<int:stage>/<int:rnd>/pairings.pdf")
@login_required
def pairings_pdf(stage: int, rnd: int) -> Response:
    pairs, byes, seed = _round(stage, rnd)
    st = store()
    return _pdf(
        "tournament_print.html", f"pairings-s{stage}r{rnd}.pdf", sheet="pairings", name=st.name(),
        fmt=st.format, stage=stage, rnd=rnd, seed=seed, pairs=pairs, byes=byes, num=_num,
    )  # fmt: skip


@bp.get("/rounds/<int:stage>/<int:rnd>/scoresheets.pdf")
@login_required
def scoresheets_pdf(stage: int, rnd: int) -> Response:
    pairs, byes, seed = _round(stage, rnd)
    st = store()
    fmt = st.format
    return _pdf(
        "tournament_print.html", f"scoresheets-s{stage}r{rnd}.pdf", sheet="scores", name=st.name(),
        fmt=fmt, stage=stage, rnd=rnd, seed=seed, pairs=pairs, byes=byes, num=_num,
        games=range(1, fmt.stage(stage).games + 1 + (1 if fmt.stage(stage).extra_game else 0)),
    )  # fmt: skip


@bp.get("/standings.pdf")
@login_required
def standings_pdf() -> Response:
    ctx = _context()
    if ctx["fmt"] is None:
        abort(404, "no tournament set up")
    return _pdf("tournament_print.html", "standings.pdf", sheet="standings", **ctx)
