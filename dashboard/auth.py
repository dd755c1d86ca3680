"""Login sessions, roles and CSRF.

Every POST needs the session's CSRF token (form ``csrf_token`` or header ``X-CSRF-Token``);
every ``/api/`` call needs a logged-in session (401 otherwise, checked before anything else).
The cookie (Flask's signed one: HttpOnly, SameSite=Strict) carries only a random session id
and the CSRF token; who is logged in is the server's ``sessions`` table (``dashboard.users``),
so logout, a password reset or a role change ends the session even in a copied cookie.
Login tries are limited per account and per client, atomically in SQLite, with a back-off that
grows 1, 2, 4 ... s up to 30 s (never a permanent lock); an account's back-off holds only
clients that failed themselves, so strangers' guesses never lock the real user out. After
login, ``next`` is followed only to a path on this site.
"""

from __future__ import annotations

import hmac
import logging
import math
import secrets
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar, cast
from urllib.parse import urlsplit

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    g,
    jsonify,
    redirect,
    render_template,
    request,
    session,
    url_for,
)

from dashboard.users import User, UserStore

log = logging.getLogger(__name__)
bp = Blueprint("auth", __name__)
F = TypeVar("F", bound=Callable[..., Any])

ACCOUNT_FREE_TRIES, CLIENT_FREE_TRIES = 5, 20
ANON_BODY_MAX = 16 * 1024  # as dashboard.serving.ANON_BODY_MAX


def csrf_token() -> str:
    token = session.get("csrf")
    if not token:
        token = session["csrf"] = secrets.token_urlsafe(32)
    return str(token)


def users() -> UserStore:
    return cast(UserStore, current_app.extensions["dashboard.users"])


def current_user() -> User | None:
    if "user" not in g:
        sid = session.get("sid")
        g.user = users().session_user(sid) if isinstance(sid, str) else None
    return cast(User | None, g.user)


def before_request() -> Response | None:
    """App-wide: API calls need a session (401); a body is small without a login (413, before
    it is read; ``dashboard.serving`` enforces it before waitress buffers it); every POST
    needs the CSRF token (400)."""
    if request.path.startswith("/api/") and current_user() is None:
        return cast(Response, (jsonify(error="login required"), 401))
    if (request.content_length or 0) > ANON_BODY_MAX and current_user() is None:
        abort(413, f"request body over {ANON_BODY_MAX} bytes without a login")
    if request.method == "POST":
        sent = request.headers.get("X-CSRF-Token") or request.form.get("csrf_token") or ""
        expected = session.get("csrf") or ""
        if not expected or not hmac.compare_digest(str(sent), str(expected)):
            current_app.extensions["tablescan.counters"]["csrf_refused"] += 1
            log.warning("refused POST %s: missing or wrong CSRF token", request.path)
            if request.path.startswith("/api/"):
                return cast(Response, (jsonify(error="missing or invalid CSRF token"), 400))
            abort(400, "missing or invalid CSRF token")
    return None


def login_required(f: F) -> F:
    @wraps(f)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if current_user() is None:
            return redirect(url_for("auth.login", next=request.full_path))
        return f(*args, **kwargs)

    return cast(F, wrapper)


def role_required(*roles: str) -> Callable[[F], F]:
    def deco(f: F) -> F:
        @wraps(f)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            user = current_user()
            if user is None:
                if request.path.startswith("/api/"):
                    return jsonify(error="login required"), 401
                return redirect(url_for("auth.login", next=request.full_path))
            if user.role not in roles:
                if request.path.startswith("/api/"):
                    return jsonify(error=f"role {user.role} may not do this"), 403
                abort(403, f"role {user.role} may not do this")
            return f(*args, **kwargs)

        return cast(F, wrapper)

    return deco


def safe_next(target: str | None) -> str | None:
    """``target`` if it is a plain path on this site, else None. Browsers drop tabs and
    newlines and read ``\\`` as ``/``, so ``/%09/evil.example/`` is ``//evil.example/``: any
    control character, space or backslash, and anything with a scheme or host, is refused."""
    if not target or not target.startswith("/") or len(target) > 2000:
        return None
    if any(ord(c) < 0x21 or ord(c) == 0x7F or c == "\\" for c in target):
        return None
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or target.startswith("//"):
        return None
    return target


@bp.route("/login", methods=["GET", "POST"])
def login() -> Any:
    error, status = None, 200
    if request.method == "POST":
        name = request.form.get("username", "")[:64]
        password = request.form.get("password", "")[:1024]
        account, client = f"user:{name}", f"client:{request.remote_addr}"
        pair = f"{account} {client}"  # the account as tried from this client
        wait = users().login_attempt(
            [(pair, ACCOUNT_FREE_TRIES), (client, CLIENT_FREE_TRIES)],
            shared=[(account, ACCOUNT_FREE_TRIES)],  # holds only clients that failed themselves
        )
        user = None if wait else users().authenticate(name, password)
        if user is None:
            if wait:
                error, status = (
                    f"Too many failed attempts; try again in {math.ceil(wait)} s.",
                    429,
                )
            else:
                error, status = "Wrong user name or password.", 401
            current_app.extensions["tablescan.counters"]["login_refused"] += 1
            log.warning("failed login for %r from %s", name, request.remote_addr)
        else:
            users().login_succeeded(account, client, pair=pair)
            old = session.get("sid")
            if isinstance(old, str):
                users().end_session(old)
            session.clear()  # no session fixation: a fresh session id and CSRF token
            session["sid"] = users().new_session(user.name)
            session.permanent = True
            csrf_token()
            return redirect(safe_next(request.args.get("next")) or url_for("pages.hall"))
    resp = current_app.make_response((render_template("login.html", error=error), status))
    if status == 429:
        resp.headers["Retry-After"] = str(math.ceil(wait))
    return resp


@bp.post("/logout")
def logout() -> Any:
    sid = session.get("sid")
    if isinstance(sid, str):
        users().end_session(sid)  # the id is dead on the server: a copied cookie is useless
    session.clear()
    return redirect(url_for("auth.login"))
