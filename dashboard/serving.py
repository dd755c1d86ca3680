"""The dashboard under waitress, hardened: ``make_server`` for ``tablescan serve`` and
``BackgroundServer`` (``make demo``, the browser tests and the bench) share one configuration.

What it bounds, and why:

* **Request bodies, before they are buffered.** waitress parks a body on disk until it is
  complete, before the app (and its login check) sees it. Our parser looks at the headers
  first: without a live session a body may have ``ANON_BODY_MAX`` bytes (a login form), with
  one ``BODY_MAX``; over that the answer is 413 at once and nothing more is read.
* **Slow and half-open requests.** A request whose headers and body are not all in within
  ``REQUEST_DEADLINE_S`` is closed; idle keep-alive connections go after ``IDLE_S``; the
  connection limit is far above what loopback clients need, so ~100 half-open sockets
  (slowloris) cannot stop a referee from connecting.
* **Streams never starve pages.** Every SSE stream holds a worker thread for its life, so at
  most ``threads - PAGE_THREADS`` streams are open at once (a page always finds a thread),
  at most ``STREAMS_PER_TOKEN`` per overlay link and ``STREAMS_PER_SESSION`` per login; over
  that a stream gets 503 with ``Retry-After``. waitress tells the app when a stream's client
  went away (``waitress.client_disconnected``, via ``channel_request_lookahead``), so the
  overlay stream ends within a second of its client closing.

waitress's loop is not thread-safe: closing its sockets from another thread races its
``select`` (EBADF) and leaves client sockets open, so ``BackgroundServer.close`` asks the
loop's own thread to close the clients, lets the workers finish, then ends the loop.
"""

from __future__ import annotations

import logging
import re
import resource
import threading
import time
import types
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from http.cookies import CookieError, SimpleCookie
from typing import Any
from urllib.parse import parse_qs

from waitress.channel import HTTPChannel
from waitress.parser import HTTPRequestParser
from waitress.utilities import RequestEntityTooLarge

log = logging.getLogger(__name__)

ANON_BODY_MAX = 16 * 1024  # a login form, with room to spare
BODY_MAX = 4 * 1024 * 1024  # a logged-in referee (the app's own JSON limit is smaller)
REQUEST_DEADLINE_S = 10.0  # headers and body of one request, from its first byte
IDLE_S = 30.0  # a keep-alive connection with nothing to do
CONNECTION_LIMIT = 1000
PAGE_THREADS = 8  # threads streams may never take
STREAMS_PER_TOKEN = 4  # an OBS scene with a few browser sources
STREAMS_PER_SESSION = 8  # a referee's tabs: the hall and some tables
STREAM_PATH = re.compile(
    r"^/(api/tables/[^/]+/stream|api/hall/stream|overlay/[^/]+/(?:preview-)?stream)$"
)
#: the streams an overlay link opens (OBS, no login), counted by its token; every other stream,
#: the operator panel's undelayed preview included, is a login's and counted by its cookie
LINK_STREAM = re.compile(r"^/overlay/[^/]+/stream$")

Authorised = Callable[[dict[str, str]], bool]


def session_checker(app: Any) -> Authorised:
    """``headers → bool``: does the request carry a live login session (signed cookie whose
    session id the users table still holds)? Runs in waitress's loop, before any body."""
    serializer = app.session_interface.get_signing_serializer(app)
    name = app.config["SESSION_COOKIE_NAME"]
    users = app.extensions["dashboard.users"]
    max_age = app.permanent_session_lifetime.total_seconds()

    def authorised(headers: dict[str, str]) -> bool:
        raw = headers.get("COOKIE", "")
        if not raw or serializer is None:
            return False
        try:
            morsel = SimpleCookie(raw).get(name)
            if morsel is None:
                return False
            value = serializer.loads(morsel.value, max_age=max_age)
        except (CookieError, ValueError, TypeError, Exception):  # itsdangerous BadSignature
            return False
        sid = value.get("sid") if isinstance(value, dict) else None
        return isinstance(sid, str) and users.session_user(sid) is not None

    return authorised


class BoundedParser(HTTPRequestParser):  # type: ignore[misc]
    """waitress's parser, with a body limit chosen from the headers (login or not) and
    enforced before the body is read, and the time its first byte came."""

    authorised: Authorised = staticmethod(lambda _h: False)
    anon_max = ANON_BODY_MAX

    def __init__(self, adj: Any) -> None:
        super().__init__(adj)
        self.started = time.monotonic()
        self.body_limit: int | None = None

    def received(self, data: bytes) -> int:
        n: int = super().received(data)
        error: Any = getattr(self, "error", None)
        if self.headers_finished and (error is None or isinstance(error, RequestEntityTooLarge)):
            if self.body_limit is None:
                anon = not type(self).authorised(self.headers)
                self.body_limit = self.anon_max if anon else int(self.adj.max_request_body_size)
            size = max(int(self.content_length or 0), int(self.body_bytes_received or 0))
            if size > self.body_limit:
                who = "without a login" if self.body_limit == self.anon_max else "per request"
                self.error = RequestEntityTooLarge(
                    f"request body over {self.body_limit} bytes {who}"
                )
                self.completed = True
        return n


def _bounded_channel(authorised: Authorised) -> type[HTTPChannel]:
    parser = type("Parser", (BoundedParser,), {"authorised": staticmethod(authorised)})
    return type("BoundedChannel", (HTTPChannel,), {"parser_class": parser})


def _maintenance(server: Any, now: float) -> None:
    """waitress's idle sweep, plus: a request still incomplete after the deadline is closed
    (a slowloris client dribbling headers or a body keeps no connection for long)."""
    cutoff = now - server.adj.channel_timeout
    mono = time.monotonic()
    for channel in list(server.active_channels.values()):
        pending = getattr(channel, "request", None)
        if channel.requests:
            continue  # a worker is answering it
        if pending is not None and mono - getattr(pending, "started", mono) > REQUEST_DEADLINE_S:
            server.counters["slow_request_closed"] += 1
            channel.will_close = True
        elif channel.last_activity < cutoff:
            channel.will_close = True


def server_options(threads: int) -> dict[str, Any]:
    """waitress adjustments (see the module docstring)."""
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return {
        "threads": threads,
        "max_request_body_size": BODY_MAX,
        "channel_timeout": IDLE_S,
        "cleanup_interval": 1,
        "connection_limit": max(100, min(CONNECTION_LIMIT, soft - 64)),
        "channel_request_lookahead": 1,  # lets waitress see a stream's client leave
        "ident": "tablescan",
    }


def make_server(app: Any, host: str = "127.0.0.1", port: int = 0, threads: int = 48) -> Any:
    """A hardened waitress server for the Flask ``app`` (``.run()`` serves until closed)."""
    from waitress import create_server

    wsgi = StreamGate(app, max_streams=max(2, threads - PAGE_THREADS))
    server: Any = create_server(wsgi, host=host, port=port, **server_options(threads))
    if not hasattr(server, "channel_class"):  # pragma: no cover (several listen sockets)
        raise RuntimeError(f"{host}: bind one address")
    server.channel_class = _bounded_channel(session_checker(app))
    server.counters = app.extensions.setdefault("tablescan.counters", Counter())
    server.maintenance = types.MethodType(_maintenance, server)
    server.stream_gate = wsgi
    return server


class StreamGate:
    """WSGI middleware: counts open SSE streams (all, per overlay token, per login cookie)
    and answers 503 over the caps; a stream's slot is freed when waitress closes it."""

    def __init__(self, app: Any, *, max_streams: int) -> None:
        self.app = app
        self.max_streams = max_streams
        self._lock = threading.Lock()
        self.open: Counter[str] = Counter()
        self.total = 0

    def _key(self, environ: dict[str, Any]) -> tuple[str, int]:
        if LINK_STREAM.match(environ.get("PATH_INFO", "")):
            token = parse_qs(environ.get("QUERY_STRING", "")).get("token", [""])[0]
            return "token:" + token[:200], STREAMS_PER_TOKEN
        return "cookie:" + environ.get("HTTP_COOKIE", "")[:4096], STREAMS_PER_SESSION

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Iterable[bytes]:
        if not STREAM_PATH.match(environ.get("PATH_INFO", "")):
            return self.app(environ, start_response)  # type: ignore[no-any-return]
        key, per_key = self._key(environ)
        with self._lock:
            full = self.total >= self.max_streams
            if not full and self.open[key] < per_key:
                self.open[key] += 1
                self.total += 1
                granted = True
            else:
                granted = False
        if not granted:
            why = (
                f"too many open streams on this node ({self.max_streams})"
                if full
                else f"too many open streams for this link or login ({per_key}); close one"
            )
            counters = getattr(self.app, "extensions", {}).get("tablescan.counters")
            if counters is not None:
                counters["stream_refused"] += 1
            start_response(
                "503 Service Unavailable",
                [("Content-Type", "text/plain; charset=utf-8"), ("Retry-After", "5")],
            )
            return [why.encode()]
        try:
            body = self.app(environ, start_response)
        except BaseException:
            self._release(key)
            raise
        return _Released(body, lambda: self._release(key))

    def _release(self, key: str) -> None:
        with self._lock:
            self.total -= 1
            self.open[key] -= 1
            if self.open[key] <= 0:
                del self.open[key]


class _Released:
    """An app's response iterable that frees its stream slot once, on ``close``."""

    def __init__(self, body: Iterable[bytes], release: Callable[[], None]) -> None:
        self.body = body
        self._release: Callable[[], None] | None = release

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.body)

    def close(self) -> None:
        try:
            close = getattr(self.body, "close", None)
            if close is not None:
                close()
        finally:
            release, self._release = self._release, None
            if release is not None:
                release()


class BackgroundServer:
    """``make_server`` serving ``app`` on ``host:port`` (0: any free port) until ``close()``."""

    def __init__(self, app: Any, host: str = "127.0.0.1", port: int = 0, threads: int = 16):
        self.server: Any = make_server(app, host=host, port=port, threads=threads)
        self.url = f"http://{host}:{self.server.effective_port}"
        self.thread = threading.Thread(target=self.server.run, name="waitress", daemon=True)
        self.thread.start()

    def close(self, timeout: float = 5.0) -> None:
        server, trigger = self.server, self.server.trigger

        def close_clients() -> None:  # in the loop's thread: clients go, listener and trigger stay
            for channel in list(server._map.values()):
                if channel is not trigger and channel is not server:
                    channel.close()

        trigger.pull_trigger(close_clients)
        # workers (an SSE stream among them) see their client gone and finish; they may still
        # pull the trigger meanwhile, so the server (listener + trigger) closes last, which
        # empties the map and ends the loop
        server.task_dispatcher.shutdown(timeout=timeout)
        try:
            trigger.pull_trigger(server.close)
        except OSError:  # the loop already closed its trigger (and so stopped): close here
            server.close()
        self.thread.join(timeout)
