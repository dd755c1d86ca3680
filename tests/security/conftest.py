"""Shared fixtures: the integration suite's short rendered hand (a real ``tablescan run`` can
judge it with the renderer's own labels) and helpers to start real processes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.integration.conftest import hand_clip  # noqa: F401  (re-exported fixture)

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def tablescan(*args: str, **kw: object) -> subprocess.Popen[str]:
    """``python -m tablescan ARGS`` as a real subprocess (stdout/stderr piped, text)."""
    return subprocess.Popen(
        [sys.executable, "-m", "tablescan", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
        **kw,  # type: ignore[call-overload]
    )


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Served:
    """A real ``tablescan serve`` on a free loopback port, stopped (SIGTERM, then SIGKILL) on
    exit; ``url`` once it printed that it serves."""

    def __init__(self, data: Path, *extra: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc = tablescan("serve", "--data", str(data), "--port", str(self.port), *extra)

    def __enter__(self) -> Served:
        import threading

        assert self.proc.stdout is not None
        timer = threading.Timer(60, self.proc.kill)
        timer.start()
        try:
            for line in self.proc.stdout:
                if line.startswith("serving the dashboard"):
                    break
            else:
                raise AssertionError(
                    "serve ended: " + (self.proc.stderr.read() if self.proc.stderr else "")
                )
            import socket
            import time

            deadline = time.monotonic() + 30
            while True:  # the line is printed just before the port is bound
                try:
                    socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                    break
                except OSError:
                    if time.monotonic() > deadline or self.proc.poll() is not None:
                        raise
                    time.sleep(0.05)
        finally:
            timer.cancel()
        return self

    def __exit__(self, *exc: object) -> None:
        self.proc.terminate()
        try:
            self.proc.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.communicate(timeout=10)


def seeded_data(data: Path, events: int = 12) -> Path:
    """A data folder with table t1's first ``events`` events and users head1/ref1/view1."""
    from dashboard.users import UserStore
    from evidence import EvidenceStore
    from tests.dashboard.conftest import FAST_HASH, PASSWORD, match_record

    with EvidenceStore(data, durable=False) as store:
        for e in match_record()[:events]:
            store.append_event("t1", e)
    users = UserStore(data)
    users.add("head1", "head", PASSWORD, n=FAST_HASH)
    users.add("ref1", "referee", PASSWORD, n=FAST_HASH)
    users.add("view1", "viewer", PASSWORD, n=FAST_HASH)
    users.close()
    return data


class Browser:
    """A cookie-keeping HTTP client that does not follow redirects (to see ``Location``)."""

    def __init__(self, url: str) -> None:
        import http.cookiejar
        import urllib.request

        class NoRedirect(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *a: object, **k: object) -> None:
                return None

        self.url = url
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(self.jar), NoRedirect()
        )
        self.csrf = ""

    def request(
        self,
        path: str,
        data: dict[str, str] | bytes | None = None,
        headers: dict[str, str] | None = None,
        timeout: float = 20.0,
    ) -> tuple[int, dict[str, str], str]:
        import urllib.error
        import urllib.parse
        import urllib.request

        body = urllib.parse.urlencode(data).encode() if isinstance(data, dict) else data
        req = urllib.request.Request(self.url + path, data=body, headers=headers or {})
        try:
            with self.opener.open(req, timeout=timeout) as resp:
                return resp.status, dict(resp.headers), resp.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, dict(e.headers), e.read().decode()

    def login_form(self) -> str:
        import re

        _s, _h, page = self.request("/login")
        m = re.search(r'name="csrf_token" value="([^"]+)"', page)
        assert m is not None
        return m.group(1)

    def login(self, user: str, password: str, next_: str | None = None) -> tuple[int, str]:
        """Post the login form; returns (status, Location) and keeps the CSRF token."""
        import re
        import urllib.parse

        token = self.login_form()
        path = "/login" + (f"?next={urllib.parse.quote(next_, safe='')}" if next_ else "")
        status, headers, _ = self.request(
            path, {"username": user, "password": password, "csrf_token": token}
        )
        if status == 302:
            _s, _h, page = self.request("/")
            m = re.search(r'<meta name="csrf-token" content="([^"]+)">', page)
            self.csrf = m.group(1) if m else ""
        return status, headers.get("Location", "")

    def cookie_header(self) -> str:
        return "; ".join(f"{c.name}={c.value}" for c in self.jar)
