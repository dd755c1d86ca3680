"""Languages of the referee desk: Chinese (zh_CN) first, English one switch away.

Flask-Babel with gettext catalogs (``dashboard/translations/<lang>/LC_MESSAGES/messages.po``).
The ``.po`` files are the source; they are compiled to ``.mo`` at app start into the data
directory (only when stale), so a fresh checkout or ``pip install -e .`` needs no build step.

Which language a page is in: the user's saved choice (a tiny ``prefs.sqlite`` next to the
users, so the users table stays untouched), else the ``tablescan_lang`` cookie, else the
browser's ``Accept-Language``, else zh_CN. The broadcast overlay takes ``?lang=`` and is
Chinese otherwise (an OBS browser source's Accept-Language says nothing about the audience).

The pages' JavaScript gets its strings from the same catalog: ``js_catalog()`` (every msgid
the catalog locates in ``static/*.js``, translated) is put in each page as a JSON data block.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from functools import cache
from pathlib import Path
from typing import Any

from babel import Locale
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from flask import (
    Blueprint,
    Flask,
    abort,
    current_app,
    g,
    jsonify,
    make_response,
    redirect,
    request,
    url_for,
)
from flask_babel import Babel, get_locale, gettext
from flask_babel import lazy_gettext as _l
from werkzeug.wrappers import Response

from engine import names

LANGS = ("zh_CN", "en")
DEFAULT = "zh_CN"
COOKIE = "tablescan_lang"
SOURCE = Path(__file__).with_name("translations")
HTML_LANG = {"zh_CN": "zh-CN", "en": "en"}

bp = Blueprint("i18n", __name__)

#: Every rule id a referee can see, by the name the sheets use (zh) and in English: one table
#: for the dashboard and the CLI (``engine.names``).
RULE_NAMES: dict[str, tuple[str, str]] = names.RULES

#: Strings other modules show (roles, login errors): named here so the catalogs hold them.
SHOWN_ELSEWHERE = (
    _l("head"),
    _l("referee"),
    _l("viewer"),
    _l("Wrong user name or password."),
    _l("Too many failed attempts; wait a minute."),
)


# -- catalogs ------------------------------------------------------------------------------


def compile_catalogs(out_dir: Path, src_dir: Path = SOURCE) -> Path:
    """``<src>/<lang>/LC_MESSAGES/messages.po`` → ``<out>/…/messages.mo``, when stale."""
    for lang in LANGS:
        po = src_dir / lang / "LC_MESSAGES" / "messages.po"
        # Flask-Babel looks the catalog up by the parsed locale's name (zh_CN → zh_Hans_CN)
        mo = out_dir / str(Locale.parse(lang)) / "LC_MESSAGES" / "messages.mo"
        if mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
            continue
        mo.parent.mkdir(parents=True, exist_ok=True)
        with po.open("rb") as f:
            catalog = read_po(f, locale=lang)
        tmp = mo.with_suffix(".tmp")
        with tmp.open("wb") as f:
            write_mo(f, catalog)
        tmp.replace(mo)
    return out_dir


@cache
def js_msgids(src_dir: Path = SOURCE) -> tuple[str, ...]:
    """The msgids the catalog locates in the pages' JavaScript."""
    with (src_dir / DEFAULT / "LC_MESSAGES" / "messages.po").open("rb") as f:
        catalog = read_po(f)
    return tuple(
        str(m.id)
        for m in catalog
        if m.id and isinstance(m.id, str) and any(loc.endswith(".js") for loc, _ in m.locations)
    )


def js_catalog() -> dict[str, Any]:
    """What the pages' JavaScript needs: its strings and the rule names, in the page's language."""
    return {
        "lang": lang(),
        "messages": {mid: gettext(mid) for mid in js_msgids()},
        "rules": {rid: rule_name(rid) for rid in RULE_NAMES},
        "names": {
            "suits": {s: names.suit_name(s, lang()) for s in names.SUITS},
            "jokers": {j: names.card_name(j, lang()) for j in names.JOKERS},
        },
    }


def rule_name(rule: str) -> str:
    """A rule by its sheet's name in the page's language."""
    return names.rule_name(rule, lang())


# -- choosing the language -------------------------------------------------------------------


def _prefs_path() -> Path:
    return Path(current_app.config["TABLESCAN_DATA_DIR"]) / "prefs.sqlite"


def _open_prefs() -> sqlite3.Connection:
    db = sqlite3.connect(_prefs_path())
    db.execute("CREATE TABLE IF NOT EXISTS lang (user TEXT PRIMARY KEY, lang TEXT NOT NULL)")
    return db


def saved_lang(user: str) -> str | None:
    with closing(_open_prefs()) as db:
        row = db.execute("SELECT lang FROM lang WHERE user = ?", (user,)).fetchone()
    return str(row[0]) if row and row[0] in LANGS else None


def save_lang(user: str, code: str) -> None:
    with closing(_open_prefs()) as db, db:
        db.execute("INSERT OR REPLACE INTO lang (user, lang) VALUES (?, ?)", (user, code))


def _normal(code: str | None) -> str | None:
    if not code:
        return None
    code = code.replace("-", "_")
    if code in LANGS:
        return code
    if code.lower() in ("zh", "zh_cn", "zh_hans"):
        return "zh_CN"
    if code.lower().startswith("en"):
        return "en"
    return None


def select_locale() -> str:
    if "tablescan_lang" in g:
        return str(g.tablescan_lang)
    chosen: str | None = None
    if request.blueprint == "overlay":
        chosen = _normal(request.args.get("lang")) or DEFAULT
    else:
        from dashboard.auth import current_user

        user = current_user()
        chosen = saved_lang(user.name) if user is not None else None
        chosen = chosen or _normal(request.cookies.get(COOKIE))
        if chosen is None:
            best = request.accept_languages.best_match(["zh-CN", "en"])
            chosen = _normal(best) or DEFAULT
    g.tablescan_lang = chosen
    return chosen


def lang() -> str:
    """The page's language as one of ``LANGS``."""
    loc = get_locale()
    return "en" if loc is not None and loc.language == "en" else DEFAULT


def html_lang() -> str:
    return HTML_LANG.get(lang(), "zh-CN")


@bp.post("/lang")
def switch() -> Response:
    """Switch the language (form field ``lang``); remembered for the user and in a cookie."""
    code = _normal(request.form.get("lang"))
    if code is None:
        abort(400, f"lang: expected one of {', '.join(LANGS)}")
    from dashboard.auth import current_user

    user = current_user()
    if user is not None:
        save_lang(user.name, code)
    target = request.form.get("next") or ""
    if not target.startswith("/") or target.startswith("//"):
        target = url_for("pages.hall")
    resp = make_response(redirect(target))
    resp.set_cookie(COOKIE, code, max_age=400 * 24 * 3600, samesite="Strict", httponly=True)
    return resp


@bp.get("/api/tables/<tid>/rules")
def table_rules(tid: str) -> Any:
    """Each rule by its name in the page's language, with the table's sheet quotes for it."""
    from dashboard.api import hub

    table = hub().tables.get(tid)
    if table is None:
        return jsonify(error=f"no table {tid!r} on this node"), 404
    view = table.view
    cites = profile_cites(str(view.get("game") or ""), str(view.get("profile") or ""))
    out = {}
    for rid in RULE_NAMES:
        keys = {rid, f"penalties.{rid}", *names.CITE_KEYS.get(rid, ())}
        quotes = [q for k, q in cites.items() if k in keys or k.startswith(f"{rid}.")]
        out[rid] = {"name": rule_name(rid), "cites": quotes}
    return jsonify(profile=view.get("profile"), rules=out)


@cache
def profile_cites(game: str, profile: str) -> dict[str, str]:
    """A profile's citations, ``{key: quote}`` (empty when it cannot be loaded)."""
    from engine.games import GAMES

    try:
        rules = GAMES[game].load_rules(profile)
    except Exception:  # an unknown profile has no quotes to show, never a broken page
        return {}
    raw = getattr(rules, "cites", None) or getattr(rules, "cite", None) or {}
    return {str(k): str(v) for k, v in (raw.items() if isinstance(raw, dict) else raw)}


def init_app(app: Flask, data_dir: Path) -> None:
    """Babel on the app: catalogs compiled into the data directory, the locale chosen above."""
    out = compile_catalogs(data_dir / "cache" / "translations")
    app.config.setdefault("TABLESCAN_DATA_DIR", str(data_dir))
    app.config["BABEL_TRANSLATION_DIRECTORIES"] = str(out)
    app.config["BABEL_DEFAULT_LOCALE"] = DEFAULT
    Babel(app, locale_selector=select_locale)
    app.context_processor(
        lambda: {
            "html_lang": html_lang,
            "js_catalog": js_catalog,
            "lang": lang,
            "rule_name": rule_name,
        }
    )
    app.register_blueprint(bp)
