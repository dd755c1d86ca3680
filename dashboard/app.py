"""The Flask app factory: ``create_app(data_dir)`` wires the store, the users, the live hub and
the blueprints. ``tablescan serve`` runs it under waitress; tests use its test client."""

from __future__ import annotations

import os
import secrets
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Any

from flask import Flask

from dashboard import (
    api,
    auth,
    clips,
    corrections,
    i18n,
    operator,
    overlay,
    pages,
    results,
    tournament,
)
from dashboard.hub import Hub
from dashboard.jsonbody import BoundedJSON
from dashboard.users import UserStore
from evidence import EvidenceStore

#: seconds between an SSE stream's keep-alive pings; also how soon a stream whose client left
#: frees its thread and its slot (the next ping fails)
SSE_PING_S = 5.0


def _secret_key(data_dir: Path) -> bytes:
    """A per-node random key, kept (0600) so sessions survive a restart."""
    path = data_dir / "session.key"
    if not path.exists():
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(secrets.token_bytes(32))
    return path.read_bytes()


def create_app(
    data_dir: str | os.PathLike[str],
    *,
    hub: Hub | None = None,
    start_hub: bool = True,
    **config: Any,
) -> Flask:
    # Absolute once, here: Flask-Babel and send_file resolve a relative path against the
    # package folder (dashboard/), not the working directory, and would find no catalog or frame.
    data = Path(data_dir).resolve()
    data.mkdir(parents=True, exist_ok=True)
    app = Flask(__name__)
    app.json = BoundedJSON(app)  # request JSON within bounds everywhere (dashboard.jsonbody)
    app.config.update(
        SECRET_KEY=_secret_key(data),
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Strict",
        SESSION_COOKIE_NAME="tablescan_session",
        PERMANENT_SESSION_LIFETIME=timedelta(hours=14),
        SSE_PING_S=SSE_PING_S,
        OVERLAY_DELAY_S=overlay.MIN_DELAY_S,
        OVERLAY_MIN_DELAY_S=overlay.MIN_DELAY_S,
        MAX_CONTENT_LENGTH=64 * 1024,
    )
    app.config.update(config)
    app.config["TABLESCAN_DATA_DIR"] = str(data)
    i18n.init_app(app, data)
    if hub is None:
        hub = Hub(EvidenceStore(data))
    app.extensions["tablescan.hub"] = hub
    app.extensions["dashboard.users"] = UserStore(data)
    app.extensions["tablescan.counters"] = Counter[str]()
    app.before_request(auth.before_request)
    app.context_processor(lambda: {"csrf_token": auth.csrf_token, "user": auth.current_user()})
    for bp in (
        auth.bp,
        api.bp,
        pages.bp,
        overlay.bp,
        corrections.bp,
        clips.bp,
        operator.bp,
        tournament.bp,
        results.bp,
    ):
        app.register_blueprint(bp)

    @app.after_request
    def security_headers(resp: Any) -> Any:
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        resp.headers.setdefault("Referrer-Policy", "no-referrer")
        resp.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline';"
            " script-src 'self'; frame-ancestors 'none'",
        )
        return resp

    if start_hub:
        hub.start()
        results.start_feed(app, lambda: hub.stopped)  # a tournament's results, as tables end
    return app
