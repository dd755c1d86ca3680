"""Fault 5: a copied cookie outlived logout and password resets; ``next`` led off-site; the
login lock could be raced (41 guesses a window) and abused to lock the head referee out.
All against a real ``tablescan serve`` on loopback."""

from __future__ import annotations

import math
import subprocess
import sys
import threading
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.dashboard.conftest import PASSWORD
from tests.security.conftest import ENV, ROOT, Browser, Served, seeded_data


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    data = seeded_data(tmp_path_factory.mktemp("sessions"))
    with Served(data) as srv:
        srv.data = data  # type: ignore[attr-defined]
        yield srv


def violation(cookie: str, csrf: str, url: str) -> int:
    """POST a violation with a bare copied cookie (an attacker's replay); the status."""
    raw = Browser(url)
    status, _h, _b = raw.request(
        "/api/tables/t1/violations",
        {"seat": "1", "rule": "talking"},
        headers={"Cookie": cookie, "X-CSRF-Token": csrf},
    )
    return status


def test_copied_cookie_is_refused_after_logout(server: Served) -> None:
    b = Browser(server.url)
    assert b.login("ref1", PASSWORD)[0] == 302
    cookie, csrf = b.cookie_header(), b.csrf
    assert violation(cookie, csrf, server.url) == 201  # the cookie works while logged in
    status, _h, _ = b.request("/logout", {"csrf_token": csrf})
    assert status == 302
    assert violation(cookie, csrf, server.url) == 401


def user_add(data: Path, role: str, password: str) -> None:
    """``tablescan user add head1 --role ROLE`` as the operator runs it."""
    cmd = [sys.executable, "-m", "tablescan", "user", "--data", str(data), "add", "head1"]
    subprocess.run(
        [*cmd, "--role", role],
        input=password + "\n",
        cwd=ROOT,
        env=ENV,
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("role", ["head", "viewer"])  # a password reset; a role change
def test_password_or_role_change_ends_sessions(server: Served, role: str) -> None:
    b = Browser(server.url)
    assert b.login("head1", PASSWORD)[0] == 302
    cookie = b.cookie_header()
    assert Browser(server.url).request("/api/tables", headers={"Cookie": cookie})[0] == 200
    data = server.data  # type: ignore[attr-defined]
    new_pw = PASSWORD if role == "viewer" else "another good password"
    user_add(data, role, new_pw)
    assert Browser(server.url).request("/api/tables", headers={"Cookie": cookie})[0] == 401
    user_add(data, "head", PASSWORD)  # head1 as it was, for the other tests


def browser_target(base: str, location: str) -> str:
    """Where a browser goes: it drops tabs and newlines and reads backslashes as slashes."""
    cleaned = "".join(c for c in location if c not in "\t\n\r").replace("\\", "/")
    return urllib.parse.urljoin(base + "/login", cleaned)


@pytest.mark.parametrize(
    "next_",
    [
        "/\t/evil.example/",
        "//evil.example/",
        "/\\evil.example/",
        "https://evil.example/",
        "/\n/evil.example/",
        " //evil.example/",
        "/%09/evil.example/",
    ],
)
def test_next_never_leaves_the_site(server: Served, next_: str) -> None:
    status, location = Browser(server.url).login("view1", PASSWORD, next_=next_)
    assert status == 302
    target = urllib.parse.urlsplit(browser_target(server.url, location))
    assert target.netloc == f"127.0.0.1:{server.port}", location


def test_next_to_a_page_of_the_site_is_kept(server: Served) -> None:
    status, location = Browser(server.url).login("view1", PASSWORD, next_="/tables/t1?x=1")
    assert status == 302 and location.endswith("/tables/t1?x=1")


def test_forty_parallel_guesses_get_five_tries_then_the_user_gets_in(server: Served) -> None:
    forms = [Browser(server.url) for _ in range(40)]
    tokens = [b.login_form() for b in forms]
    statuses: list[int] = []
    go = threading.Barrier(len(forms))

    def guess(b: Browser, token: str, n: int) -> None:
        go.wait(timeout=30)
        form = {"username": "ref1", "password": f"guess-{n:04d}", "csrf_token": token}
        statuses.append(b.request("/login", form)[0])

    threads = [
        threading.Thread(target=guess, args=(b, t, n))
        for n, (b, t) in enumerate(zip(forms, tokens, strict=True))
    ]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    elapsed = time.monotonic() - t0
    assert len(statuses) == 40
    tried = statuses.count(401)  # a password was checked (and wrong)
    # five free tries, then one more per back-off window (1 s, 2 s, 4 s ...) that passed
    allowed = 5 + math.floor(math.log2(elapsed + 1))
    assert tried <= allowed, (tried, elapsed)
    assert statuses.count(429) == 40 - tried  # the rest were refused without a check
    # the real referee is not locked out for long: after the back-off it gets in
    b = Browser(server.url)
    status, _loc = b.login("ref1", PASSWORD)
    deadline = time.monotonic() + 40
    while status == 429 and time.monotonic() < deadline:
        time.sleep(1.0)
        status, _loc = b.login("ref1", PASSWORD)
    assert status == 302
