"""The JSON API (the HTTP contract outside tools use). Every call needs a session (the app's
before_request answers 401 first); every POST needs the CSRF token; ruling and correcting need
the head or referee role. Decisions and corrections become match-record events (``ruling``,
``correction``) the store chains with who and when; the table's one judge (its node, or the
dashboard's desk referee) re-judges from them and stores its rulings."""

from __future__ import annotations

import math
import shutil
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request, send_file, stream_with_context
from flask_babel import gettext

from dashboard.auth import current_user, role_required
from dashboard.hub import DecisionWaiting, Hub
from dashboard.jsonbody import json_errors, payload
from dashboard.sse import hall_stream, table_stream
from engine.cards import CardError, format_cards, parse_cards
from evidence import EvidenceStore, StoreError
from evidence.live import LiveFiles

bp = Blueprint("api", __name__, url_prefix="/api")
json_errors(bp)  # a 413 (body too large) or any HTTP error: one JSON line
DECISIONS = {
    "uphold": "upheld",
    "upheld": "upheld",
    "dismiss": "dismissed",
    "dismissed": "dismissed",
}


def hub() -> Hub:
    return current_app.extensions["tablescan.hub"]  # type: ignore[no-any-return]


def _store() -> EvidenceStore:
    return hub().store


def _table_or_404(tid: str) -> Any:
    table = hub().tables.get(tid)
    if table is None:
        return None
    return table


def _payload() -> dict[str, Any]:
    return payload()  # bounded; a bad JSON body is a 400 naming its problem


def _bad(message: str, status: int = 400) -> tuple[Response, int]:
    current_app.extensions["tablescan.counters"]["api_refused"] += 1
    current_app.logger.warning("API refused %s: %s", request.path, message)
    return jsonify(error=message), status


@bp.get("/tables")
def tables() -> Any:
    return jsonify(hub().summary())


def hall_queue(h: Hub) -> list[dict[str, Any]]:
    """``GET /api/violations``: every table's open violations and open camera prompts
    (``needs_referee``), newest first (by when the play concerned was stored), each with its
    table, the table's hall link (``online``/``offline``/``late`` at the desk, else None) and
    the URL of the table's own queue, where the referee rules it."""
    links = {t["id"]: t.get("link") for t in h.summary()}
    items: list[dict[str, Any]] = []
    for tid, table in sorted(h.tables.items()):
        with table.lock:
            view, wall = table.view, table.fold.wall
            seats = view.get("seats") or []

            def seat_name(seat: Any, seats: list[Any] = seats) -> str | None:
                ok = isinstance(seat, int) and 0 <= seat < len(seats)
                return str(seats[seat].get("name")) if ok else None

            base = {"table": tid, "link": links.get(tid), "url": f"/tables/{tid}/violations"}
            waiting = h.waiting(tid)  # the desk: decisions sent, the table not yet showing them
            for v in view.get("violations", []):
                if (v.get("status") or "open") != "open":
                    continue
                seqs = [s for s in (v.get("at_seq"), v.get("proven_by_seq")) if isinstance(s, int)]
                seq = max(seqs) if seqs else None
                items.append(
                    {
                        **base,
                        "kind": "violation",
                        "id": v.get("id"),
                        "rule": v.get("rule"),
                        "seat": v.get("seat"),
                        "seat_name": seat_name(v.get("seat")),
                        "hand": v.get("hand"),
                        "how": v.get("how"),
                        "penalty": v.get("penalty"),
                        "provisional": bool(v.get("provisional")),
                        "waiting": waiting.get(str(v.get("id"))),
                        "seq": seq,
                        "at": wall.get(seq) if seq is not None else None,
                    }
                )
            for e in view.get("needs_referee", []):
                target = table.fold.events.get(e.get("ref"))
                seat = target.get("seat") if target else None
                items.append(
                    {
                        **base,
                        "kind": "needs_referee",
                        "id": f"seq:{e.get('ref')}",
                        "ref": e.get("ref"),
                        "reason": e.get("reason"),
                        "seat": seat,
                        "seat_name": seat_name(seat),
                        "hand": view.get("hand"),
                        "type": target.get("type") if target else None,
                        "waiting": waiting.get(f"seq:{e.get('ref')}"),
                        "seq": e.get("seq"),
                        "at": wall.get(e.get("seq")),
                    }
                )
    items.sort(key=lambda x: (-(x["at"] or 0.0), -(x["seq"] or 0)))
    return items


@bp.get("/violations")
def hall_violations() -> Any:
    return jsonify(hall_queue(hub()))


@bp.get("/tables/<tid>/waiting")
def waiting(tid: str) -> Any:
    """At the hall desk: the rulings sent to ``tid`` that its record does not show yet, by
    what they rule (``{ref: {decision, by, note, at}}``; ``{}`` elsewhere)."""
    return jsonify(hub().waiting(tid))


@bp.get("/tables/<tid>/state")
def state(tid: str) -> Any:
    table = _table_or_404(tid)
    if table is None:
        return _bad(f"no table {tid!r} on this node", 404)
    return Response(table.state_json(), mimetype="application/json")


def _written(tid: str, seq: int) -> Response:
    """``{"seq", "state"}`` after a write: the view serialised once, by the hub."""
    body = f'{{"seq":{seq},"state":{hub().state_json(tid)}}}'
    return Response(body, status=201, mimetype="application/json")


def _sse(body: Any) -> Response:
    resp = Response(stream_with_context(body), mimetype="text/event-stream")
    resp.headers["Cache-Control"] = "no-cache"
    resp.headers["X-Accel-Buffering"] = "no"
    return resp


@bp.get("/tables/<tid>/stream")
def stream(tid: str) -> Any:
    if _table_or_404(tid) is None:
        return _bad(f"no table {tid!r} on this node", 404)
    raw = request.headers.get("Last-Event-ID") or request.args.get("last_event_id")
    last = int(raw) if raw and len(raw) < 19 and raw.lstrip("-").isdigit() else None
    ping = float(current_app.config["SSE_PING_S"])
    return _sse(table_stream(hub(), tid, last, ping))


@bp.get("/hall/witness/<tid>")
def hall_witness(tid: str) -> Any:
    """What the desk witnessed for table ``tid`` up to row ``upto`` (optional): the pinned
    key, every signed head with the desk's receive time, the alarms (``evidence.witness``)."""
    from evidence.witness import WitnessError, witnessed

    upto = request.args.get("upto")
    if upto is not None and not upto.isdigit():
        return _bad(f"upto {upto[:40]!r}: expected a row number")
    try:
        return jsonify(witnessed(_store().data_dir, tid, int(upto) if upto else None))
    except WitnessError as e:
        return _bad(str(e), 500)


@bp.post("/hall/witness/<tid>/confirm")
@role_required("head", "referee")
def hall_witness_confirm(tid: str) -> Any:
    """A referee confirms the key the desk pinned for ``tid``: ``key_id`` as read on the
    table's set-up sheet (``tablescan key``). Another id is refused and alarmed."""
    from evidence.signing import parse_key_id
    from evidence.witness import WitnessError

    desk = getattr(hub(), "desk", None)
    if desk is None:
        return _bad("not a hall desk: nothing to confirm here", 404)
    try:
        fingerprint = parse_key_id(str(_payload().get("key_id", "")))
        user = current_user()
        assert user is not None
        desk.witness.log.confirm(tid, fingerprint, user.name)
    except WitnessError as e:
        return _bad(str(e), 409)
    except ValueError as e:
        return _bad(str(e))
    return jsonify(ok=True, key_id=fingerprint)


@bp.get("/hall/stream")
def hall() -> Any:
    return _sse(hall_stream(hub(), float(current_app.config["SSE_PING_S"])))


@bp.post("/tables/<tid>/rulings")
@role_required("head", "referee")
def rulings(tid: str) -> Any:
    """Uphold or dismiss a flagged violation (``violation``: its id), or settle a
    ``needs_referee`` prompt (``ref``: ``seq:<n>``, ``decision``: ``upheld``)."""
    table = _table_or_404(tid)
    if table is None:
        return _bad(f"no table {tid!r} on this node", 404)
    data = _payload()
    ref = str(data.get("violation") or data.get("ref") or "")
    decision = DECISIONS.get(str(data.get("decision", "")).lower())
    if decision is None:
        return _bad("decision: expected 'uphold' or 'dismiss'")
    known = {v.get("id") for v in table.view.get("violations", [])}
    prompts = {f"seq:{e['ref']}" for e in table.view.get("needs_referee", [])}
    if ref not in known and ref not in prompts:
        return _bad(f"violation {ref!r}: no such violation or prompt on table {tid}", 404)
    user = current_user()
    assert user is not None
    if decision == "dismissed" and not str(data.get("note") or "").strip():
        # a dismissal clears a player: the record says why
        return _bad(str(gettext("Dismissing needs a note saying why (it goes in the record).")))
    event = {"type": "ruling", "ref": ref, "decision": decision, "by": user.name}
    if data.get("note"):
        event["note"] = str(data["note"])[:500]
    try:
        seq = hub().append(tid, event)
    except DecisionWaiting as e:
        msg = gettext(
            "A decision (%(decision)s) on this violation was sent and is waiting for the table;"
            " a second one is refused until the table's record shows the first.",
            decision=_decision_word(e.decision),
        )
        return _bad(str(msg), 409)
    except StoreError as e:
        return _bad(str(e))
    if seq < 0:  # the hall desk: sent, the table has not taken it yet (re-sent until it does)
        body = {"seq": None, "pending": True, "waiting": hub().waiting(tid).get(ref)}
        return jsonify(body), 202
    return _written(tid, seq)


def _decision_word(decision: str) -> str:
    return str(gettext("upheld") if decision == "upheld" else gettext("dismissed"))


@bp.post("/tables/<tid>/match")
@role_required("head", "referee")
def match_control(tid: str) -> Any:
    """A referee starts the next hand (``action: start_hand``: the next banker and that
    side's level as the judge's outcome gives them, unless ``banker`` is given), ends the hand
    in play (``end_hand``), enters a Gouji 进贡/还贡 seen handed over (``tribute``: an
    ``exchange`` event, ``_tribute_body``) or ends the match (``end_match``): a record event
    the table's node takes in as its own next deal, deal end, tribute or match end. A head
    referee reopens a finished match (``reopen_match``, optional ``note``: ``match_reopen``),
    after which the next hand may start."""
    table = _table_or_404(tid)
    if table is None:
        return _bad(f"no table {tid!r} on this node", 404)
    data, view = _payload(), table.view
    action = str(data.get("action", ""))
    user = current_user()
    assert user is not None
    match = view.get("match") or {}
    if action == "reopen_match":  # a finished match, reopened by a head referee (issue 30)
        if user.role != "head":
            return _bad("only a head referee can reopen a finished match", 403)
        if "seats" not in view or not match.get("over"):
            return _bad(f"table {tid}: no finished match to reopen")
        reopen: dict[str, Any] = {"type": "match_reopen", "by": user.name}
        if str(data.get("note") or "").strip():
            reopen["note"] = str(data["note"]).strip()[:500]
        try:
            return _written(tid, hub().append(tid, reopen))
        except StoreError as e:
            return _bad(str(e))
    if "seats" not in view or match.get("over"):
        return _bad(f"table {tid}: no match in progress")
    playing = view.get("status") == "playing"
    meta = {"by": user.name}
    if action == "end_match":
        event: dict[str, Any] = {"type": "match_end", "reason": "referee", "by": user.name}
    elif action == "end_hand" and playing:
        event = {"type": "hand_end", "reason": "referee", "meta": meta}
    elif action == "tribute" and playing:
        body = _tribute_body(data)
        if isinstance(body, str):
            return _bad(body)
        event = {"type": "exchange", **body, "by": user.name}
    elif action == "start_hand" and not playing:
        raw = data.get("banker", match.get("next_banker"))
        try:
            banker = None if raw in (None, "") else int(raw)
        except (TypeError, ValueError):
            return _bad(f"banker: {raw!r} is not a seat number")
        if banker is not None and not 0 <= banker < len(view["seats"]):
            return _bad(f"banker: seat {banker} is not at table {tid}")
        team = view["seats"][banker]["team"] if banker is not None else None
        teams = view.get("teams") or []
        level = teams[team]["level"] if isinstance(team, int) and team < len(teams) else None
        level = str(level or view.get("level") or "2")
        hand = int(view.get("hand") or 0) + 1
        event = {"type": "hand_start", "hand": hand, "banker": banker, "level": level, "meta": meta}
    else:
        state = "a hand is in play" if playing else "no hand is in play"
        return _bad(
            f"action {action!r}: not possible now ({state}); expected start_hand, "
            "end_hand, tribute or end_match"
        )
    try:
        seq = hub().append(tid, event)
    except StoreError as e:
        return _bad(str(e))
    return _written(tid, seq)


def _tribute_body(data: dict[str, Any]) -> dict[str, Any] | str:
    """A Gouji 进贡/还贡 the referee saw handed over (``seat``, ``to``, ``cards``, optional
    ``count``, ``kind`` jin or huan): the record's ``exchange`` fields (``what`` tribute, or
    return for huan; ``cards`` null when none were seen; ``count`` their number unless given),
    or what is wrong. The schema and the judge check the rest (a count that disagrees with
    the cards, a sheet without tribute: an error ruling)."""
    kind = str(data.get("kind") or "jin")
    if kind not in ("jin", "huan"):
        return f"kind: {kind!r} is not jin (进贡) or huan (还贡)"
    body: dict[str, Any] = {"what": "return" if kind == "huan" else "tribute"}
    for key in ("seat", "to", "count"):
        raw = data.get(key)
        if raw in (None, "") and key == "count":
            continue
        try:
            body[key] = int(str(raw))
        except ValueError:
            return f"{key}: {raw!r} is not a number"
    cards = data.get("cards", [])
    if isinstance(cards, str):
        cards = cards.replace(",", " ").split()
    if cards is not None and not isinstance(cards, list):
        return f"cards: expected a list of cards, got {cards!r}"
    body["cards"] = [str(c).upper() for c in cards] if cards else None  # null: face-down
    if "count" not in body:
        if body["cards"] is None:
            return "count: needed when the cards were not seen"
        body["count"] = len(body["cards"])  # the record's exchange always says how many
    return body


@bp.post("/tables/<tid>/corrections")
@role_required("head", "referee")
def corrections(tid: str) -> Any:
    """Fix a misread event: ``ref`` (its seq), the corrected ``cards`` (and/or ``seat``), or
    ``delete``; ``why`` is kept in the audit log. The engine re-judges from there."""
    table = _table_or_404(tid)
    if table is None:
        return _bad(f"no table {tid!r} on this node", 404)
    data = _payload()
    try:
        ref = int(data.get("ref", ""))
    except (TypeError, ValueError):
        return _bad("ref: expected the seq of the event to correct")
    target = table.fold.events.get(ref)
    if target is None or target["type"] == "correction":
        return _bad(f"ref {ref}: no correctable event with that seq on table {tid}", 404)
    user = current_user()
    assert user is not None
    event: dict[str, Any] = {"type": "correction", "ref": ref, "by": user.name}
    event["why"] = str(data.get("why") or "misread")[:500]
    if str(data.get("delete", "")).lower() in ("1", "true", "yes"):
        event["delete"] = True
    if data.get("cards") not in (None, ""):
        try:
            event["cards"] = format_cards(parse_cards(data["cards"])).split()
        except CardError as e:
            return _bad(f"cards: {e}")
    if data.get("seat") not in (None, ""):
        try:
            event["seat"] = int(data["seat"])
        except (TypeError, ValueError):
            return _bad("seat: expected a seat index")
    if len(event) <= 4:
        return _bad("nothing to correct: give cards, seat or delete")
    try:
        seq = hub().append(tid, event)
    except StoreError as e:
        return _bad(str(e))
    return _written(tid, seq)


MAX_PIXEL = 16384  # no camera frame is wider or taller
REFEREE_RULES = ("time_limit", "take_back", "talking", "wrong_declare", "peeking", "conduct")


@bp.post("/tables/<tid>/violations")
@role_required("head", "referee")
def violations(tid: str) -> Any:
    """Enter a violation the camera cannot see (time limit, 悔牌, talking...): ``seat``,
    ``rule`` (lower_snake_case id), ``note``, optional ``at`` (the seq concerned). It becomes a
    ``violation`` record event, scored per profile like any engine-found violation."""
    table = _table_or_404(tid)
    if table is None:
        return _bad(f"no table {tid!r} on this node", 404)
    data = _payload()
    user = current_user()
    assert user is not None
    try:
        seat = int(data.get("seat", ""))
    except (TypeError, ValueError):
        return _bad("seat: expected the offending seat's index")
    if not 0 <= seat < len(table.view.get("seats", [])):
        return _bad(f"seat {seat}: not a seat at table {tid}")
    event: dict[str, Any] = {"type": "violation", "seat": seat, "by": user.name}
    event["rule"] = str(data.get("rule") or "")
    if data.get("note"):
        event["note"] = str(data["note"])[:500]
    if data.get("at") not in (None, ""):
        try:
            event["at"] = int(data["at"])
        except (TypeError, ValueError):
            return _bad("at: expected the seq the violation concerns")
    try:
        seq = hub().append(tid, event)
    except StoreError as e:  # the record schema names a bad rule id or field
        return _bad(str(e))
    return _written(tid, seq)


@bp.post("/tables/<tid>/calibration")
@role_required("head", "referee")
def calibration(tid: str) -> Any:
    """Save the four table corners (image pixels, TL TR BR BL) dragged on the calibration page."""
    if tid not in hub().tables:  # also an id like '..': never a path, never a 500
        return _bad(f"no table {tid[:64]!r} on this node")
    data = _payload()
    points = data.get("points")
    try:
        pts = [[float(x), float(y)] for x, y in points]  # type: ignore[union-attr]
        if len(pts) != 4:
            raise ValueError
    except (TypeError, ValueError):
        return _bad("points: expected four [x, y] image points (TL, TR, BR, BL)")
    if not all(math.isfinite(v) and 0 <= v <= MAX_PIXEL for p in pts for v in p):
        return _bad(f"points: each x and y must be a number of image pixels 0-{MAX_PIXEL}")
    user = current_user()
    assert user is not None
    cal = {"method": "points", "points": pts}
    LiveFiles(_store().data_dir).put_calibration(tid, cal)
    _store().append_action(tid, {"action": "calibration", "by": user.name, **cal})
    return jsonify(cal), 201


@bp.get("/tables/<tid>/frame.jpg")
def frame(tid: str) -> Any:
    try:
        jpeg = LiveFiles(_store().data_dir).frame(tid)
    except StoreError as e:
        return _bad(str(e), 404)
    if jpeg is None:
        return _bad(f"table {tid}: no live frame yet", 404)
    resp = Response(jpeg, mimetype="image/jpeg")
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.get("/media/<ident>")
def media(tid: str | None = None, ident: str = "") -> Any:
    sha = _store().resolve_media(ident)
    path = _store().media_path(sha) if sha else None
    if path is None:
        return _bad(f"evidence {ident!r}: not stored (or pruned)", 404)
    return send_file(path, max_age=3600)


@bp.get("/tables/<tid>/export")
def export(tid: str) -> Any:
    """The table's latest match (or ``?hand=H`` of it) as a verifiable evidence bundle."""
    import io
    import tempfile

    from evidence.export import export_bundle

    hand = request.args.get("hand", type=int)
    # dispute report (issue 19): ?violation=ID&format=html answers the bundle's report.html
    from flask_babel import get_locale

    loc = get_locale()  # the page's language, as dashboard.i18n chooses it
    lang = "en" if loc is not None and loc.language == "en" else "zh"
    vid, fmt = request.args.get("violation"), request.args.get("format", "zip")
    with tempfile.TemporaryDirectory() as tmp:
        out = f"{tmp}/bundle.zip"
        try:
            export_bundle(_store(), tid, out, hand=hand, lang=lang, violation=vid)
        except StoreError as e:
            return _bad(str(e), 404)
        if fmt == "html":  # the report as it is inside the bundle (the bundle proves it)
            import zipfile

            with zipfile.ZipFile(out) as zf:
                return Response(zf.read("report.html"), mimetype="text/html")
        with open(out, "rb") as f:
            data = io.BytesIO(f.read())
    name = f"{tid}{f'-hand{hand}' if hand else ''}-evidence.zip"
    return send_file(data, mimetype="application/zip", as_attachment=True, download_name=name)


@bp.get("/health")
def health() -> Any:
    return jsonify(health_report())


def health_report() -> dict[str, Any]:
    store = _store()
    live = LiveFiles(store.data_dir)
    disk = shutil.disk_usage(store.data_dir)
    counters = dict(current_app.extensions["tablescan.counters"])
    counters["store_refused"] = store.rejected
    note = live.disk() or {}
    return {
        "disk_free_bytes": disk.free,
        "disk_total_bytes": disk.total,
        "disk_low": bool(note.get("low")),  # the retention pass says DISK LOW
        "disk_min_free_bytes": note.get("min_free_bytes"),
        "counters": counters,
        "tables": [
            {
                "id": tid,
                "seq": t.seq,
                "engine": t.engine,
                "errors": len(t.errors),
                "node": live.health(tid),
            }
            for tid, t in sorted(hub().tables.items())
        ],
    }
