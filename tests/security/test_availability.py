"""Fault 6: ~100 half-open requests without a login, or 48 overlay streams from one leaked
token, locked every referee out (one 48-thread pool served pages and every stream, waitress
took at most 100 connections). Now streams are capped well below the threads, per link and
per login, slow requests are cut off, and a referee's page still loads. Real sockets, a real
``tablescan serve``, all bounded."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from dashboard.app import SSE_PING_S
from dashboard.serving import STREAMS_PER_SESSION, STREAMS_PER_TOKEN
from dashboard.users import UserStore
from tests.dashboard.conftest import PASSWORD
from tests.security.conftest import Browser, Served, seeded_data

PAGE_WITHIN_S = 5.0


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Served]:
    data = seeded_data(tmp_path)
    with Served(data) as srv:
        srv.data = data  # type: ignore[attr-defined]
        yield srv


def referee_page_loads(url: str) -> float:
    """Log in and load the hall and a table page; seconds it took (each request bounded)."""
    t0 = time.monotonic()
    b = Browser(url)
    assert b.login("ref1", PASSWORD)[0] == 302
    for path in ("/", "/tables/t1", "/api/tables/t1/state"):
        status, _h, _body = b.request(path, timeout=PAGE_WITHIN_S)
        assert status == 200, path
    return time.monotonic() - t0


def open_stream(port: int, token: str, stack: ExitStack) -> tuple[socket.socket, bytes]:
    s = stack.enter_context(socket.create_connection(("127.0.0.1", port), timeout=10))
    s.sendall(f"GET /overlay/t1/stream?token={token} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    return s, s.recv(200)


def test_half_open_requests_do_not_lock_referees_out(server: Served) -> None:
    with ExitStack() as stack:
        half_open = []
        for _ in range(150):  # more than waitress's old 100-connection limit
            s = stack.enter_context(socket.create_connection(("127.0.0.1", server.port)))
            s.sendall(b"GET /login HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")  # never finished
            half_open.append(s)
        assert referee_page_loads(server.url) < PAGE_WITHIN_S * 3
        # and the server does not keep them: each is closed after the request deadline
        half_open[0].settimeout(30)
        assert half_open[0].recv(100) == b""


def test_one_leaked_token_cannot_take_the_threads(server: Served) -> None:
    token = UserStore(server.data).new_overlay_token("t1")  # type: ignore[attr-defined]
    with ExitStack() as stack:
        answers = [open_stream(server.port, token, stack)[1] for _ in range(48)]
        ok = [a for a in answers if a.startswith(b"HTTP/1.1 200")]
        assert len(ok) == STREAMS_PER_TOKEN
        assert all(a.startswith(b"HTTP/1.1 503") for a in answers if a not in ok)
        assert referee_page_loads(server.url) < PAGE_WITHIN_S * 3
    # the streams' clients are gone: their slots come back at the streams' next ping (a loaded
    # machine may add a few seconds; the old 5 s deadline raced the 5 s ping)
    deadline = time.monotonic() + SSE_PING_S + 10
    while True:
        with ExitStack() as stack:
            got = [open_stream(server.port, token, stack)[1] for _ in range(STREAMS_PER_TOKEN)]
        if all(a.startswith(b"HTTP/1.1 200") for a in got) or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    assert all(a.startswith(b"HTTP/1.1 200") for a in got)


def test_many_links_cannot_take_the_page_threads(server: Served) -> None:
    users = UserStore(server.data)  # type: ignore[attr-defined]
    tokens = [users.new_overlay_token("t1") for _ in range(48)]
    with ExitStack() as stack:
        answers = [open_stream(server.port, t, stack)[1] for t in tokens]
        accepted = sum(a.startswith(b"HTTP/1.1 200") for a in answers)
        assert accepted <= 48 - 8  # eight threads are always kept for pages
        assert referee_page_loads(server.url) < PAGE_WITHIN_S * 3


def test_a_referees_closed_streams_free_their_threads(server: Served) -> None:
    b = Browser(server.url)
    assert b.login("ref1", PASSWORD)[0] == 302
    head = f"GET /api/tables/t1/stream HTTP/1.1\r\nHost: x\r\nCookie: {b.cookie_header()}\r\n\r\n"

    def streams(n: int) -> list[bytes]:
        with ExitStack() as stack:
            answers = []
            for _ in range(n):
                s = stack.enter_context(socket.create_connection(("127.0.0.1", server.port), 10))
                s.sendall(head.encode())
                answers.append(s.recv(200))
            return answers  # leaving the block closes every socket (the clients go)

    first = streams(STREAMS_PER_SESSION + 2)
    assert sum(a.startswith(b"HTTP/1.1 200") for a in first) == STREAMS_PER_SESSION
    assert all(a.startswith(b"HTTP/1.1 503") for a in first[STREAMS_PER_SESSION:])
    deadline = time.monotonic() + 12  # within two pings the slots are back
    while True:
        again = streams(STREAMS_PER_SESSION)
        if all(a.startswith(b"HTTP/1.1 200") for a in again) or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert all(a.startswith(b"HTTP/1.1 200") for a in again)
