"""Login sessions, roles and CSRF.

Every POST needs the session's CSRF token (form ``csrf_token`` or header ``X-CSRF-Token``);
every ``/api/`` call needs a logged-in session (401 otherwise, checked before anything else).
Sessions are Flask's signed cookies (HttpOnly, SameSite=Strict), keyed by a secret kept in the
data directory so a restart does not log the referees out.
"""

from __future__ import annotations

import hmac
import logging
import secrets
import time
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar, cast

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

MAX_FAILURES, LOCKOUT_S = 5, 60.0


def csrf_token() -> str:
    token = session.get("csrf")
    if not token:
        token = session["csrf"] = secrets.token_urlsafe(32)
    return str(token)


def users() -> UserStore:
    return cast(UserStore, current_app.extensions["dashboard.users"])


def current_user() -> User | None:
    if "user" not in g:
        name = session.get("user")
        g.user = users().get(name) if isinstance(name, str) else None
    return cast(User | None, g.user)


def before_request() -> Response | None:
    """App-wide: API calls need a session (401); every POST needs the CSRF token (400)."""
    if request.path.startswith("/api/") and current_user() is None:
        return cast(Response, (jsonify(error="login required"), 401))
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


def _failures() -> dict[str, list[float]]:
    """Recent failed logins per user name (per app, in memory)."""
    return cast(dict[str, list[float]], current_app.extensions.setdefault("login_failures", {}))


def _locked(name: str) -> bool:
    now = time.time()
    recent = [t for t in _failures().get(name, []) if now - t < LOCKOUT_S]
    _failures()[name] = recent
    return len(recent) >= MAX_FAILURES


@bp.route("/login", methods=["GET", "POST"])
def login() -> Any:
    error = None
    if request.method == "POST":
        name = request.form.get("username", "")
        password = request.form.get("password", "")
        user = None if _locked(name) else users().authenticate(name, password)
        if user is None:
            _failures().setdefault(name, []).append(time.time())
            error = (
                "Wrong user name or password."
                if not _locked(name)
                else ("Too many failed attempts; wait a minute.")
            )
            log.warning("failed login for %r from %s", name, request.remote_addr)
        else:
            _failures().pop(name, None)
            session.clear()  # no session fixation: a fresh session and CSRF token
            session["user"] = user.name
            session.permanent = True
            csrf_token()
            target = request.args.get("next") or ""
            if not target.startswith("/") or target.startswith("//"):
                target = url_for("pages.hall")
            return redirect(target)
    return render_template("login.html", error=error), (401 if error else 200)


@bp.post("/logout")
def logout() -> Any:
    session.clear()
    return redirect(url_for("auth.login"))
