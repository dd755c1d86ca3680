"""Request JSON parsed within bounds, for every endpoint (``app.json``) and with a clear 400.

Flask's own ``get_json`` calls ``json.loads``: a 30,000-deep body raised ``RecursionError``
(not a ``ValueError``, so a 500), a lone surrogate passed and failed later. ``BoundedJSON`` is
the app's JSON provider: its ``loads`` is ``engine.boundedjson.parse``; ``payload()`` answers
a body it refuses with ``400 {"error": "request body: <problem>"}``; ``json_errors`` makes a
blueprint's HTTP errors (a body over the size limit: 413) JSON lines too, not HTML pages.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, abort, current_app, jsonify, request
from flask.json.provider import DefaultJSONProvider
from werkzeug.exceptions import HTTPException

from engine.boundedjson import BadJson, parse

MAX_BODY = 4 << 20  # the serving limit for a logged-in request (dashboard/serving.py)


class BoundedJSON(DefaultJSONProvider):
    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        return parse(s, max_bytes=MAX_BODY)


def payload() -> dict[str, Any]:
    """The request's JSON object (or its form, as a dict); a bad JSON body is a 400 naming
    its problem in one line."""
    if not request.is_json:
        return request.form.to_dict()
    try:
        data = parse(request.get_data(cache=True), max_bytes=MAX_BODY)
    except BadJson as e:
        current_app.extensions["tablescan.counters"]["api_refused"] += 1
        current_app.logger.warning("API refused %s: request body: %s", request.path, e)
        refused = jsonify(error=f"request body: {e}")
        refused.status_code = 400
        abort(refused)
    return data if isinstance(data, dict) else {}


def json_errors(bp: Blueprint) -> None:
    """Every HTTP error of ``bp``'s endpoints as ``{"error": "<one line>"}`` with its status."""

    @bp.errorhandler(HTTPException)
    def _json_http_error(e: HTTPException) -> Response:
        if e.response is not None:
            return e.response  # type: ignore[return-value]
        resp = jsonify(error=f"{e.name}: {e.description}".replace("\n", " "))
        resp.status_code = e.code or 500
        return resp
