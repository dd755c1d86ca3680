"""Fault 2: the server parked request bodies of up to 1 GiB on disk before any login, and the
retention pass then deleted evidence to free the disk. Now a body is bounded from its headers
(16 KiB without a login, 4 MiB with one) before it is read, and a disk filled by anything but
evidence costs no evidence: retention says so loudly instead. Real connections on loopback."""

from __future__ import annotations

import shutil
import socket
import threading
import time
from pathlib import Path

from evidence import EvidenceStore
from tests.dashboard.conftest import PASSWORD
from tests.security.conftest import Browser, Served, seeded_data

CHUNK = b"x" * 65536


def send_until_answered(port: int, head: bytes, body_chunks: int, cookie: str = "") -> bytes:
    """Send ``head`` then up to ``body_chunks`` 64 KiB body chunks; the first bytes of the
    answer (b"" if none came within 5 s of the last chunk)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        if cookie:
            head = head.replace(b"\r\n\r\n", f"\r\nCookie: {cookie}\r\n\r\n".encode(), 1)
        s.sendall(head)
        s.setblocking(False)
        for _ in range(body_chunks):
            try:
                got = s.recv(4096)
                if got:
                    return got
            except BlockingIOError:
                pass
            try:
                s.sendall(CHUNK)
            except (BrokenPipeError, ConnectionResetError, BlockingIOError):
                break
        s.settimeout(5)
        try:
            return s.recv(4096)
        except (TimeoutError, ConnectionResetError):
            return b""


def post_head(path: str, length: int) -> bytes:
    return (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {length}\r\n"
        "Content-Type: application/x-www-form-urlencoded\r\n\r\n"
    ).encode()


def test_huge_unauthenticated_bodies_are_refused_before_they_are_read(tmp_path: Path) -> None:
    with Served(seeded_data(tmp_path)) as srv:
        # a 1 GiB upload announced by Content-Length: refused at once, after 1 MiB at most
        answer = send_until_answered(srv.port, post_head("/login", (1 << 30) - 1), body_chunks=16)
        assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
        assert b"without a login" in answer
        # the same without a length (chunked): cut off once past the limit
        chunked = (
            b"POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n"
            + b"".join(b"10000\r\n" + CHUNK + b"\r\n" for _ in range(2))
        )
        answer = send_until_answered(srv.port, chunked, body_chunks=16)
        assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
        # a small login form still works
        assert Browser(srv.url).login("ref1", PASSWORD)[0] == 302


def test_a_referee_may_send_more_but_not_unbounded(tmp_path: Path) -> None:
    with Served(seeded_data(tmp_path)) as srv:
        b = Browser(srv.url)
        assert b.login("ref1", PASSWORD)[0] == 302
        cookie = b.cookie_header()
        path = "/api/tables/t1/violations"
        anon = send_until_answered(srv.port, post_head(path, 100_000), 2)
        assert anon.startswith(b"HTTP/1.1 413") and b"without a login" in anon
        # 100 kB with a login passes the server's bound (the app's own JSON limit answers)
        referee = send_until_answered(srv.port, post_head(path, 100_000), 2, cookie=cookie)
        assert referee.startswith(b"HTTP/1.1 413") and b"without a login" not in referee
        huge = send_until_answered(srv.port, post_head(path, (1 << 30) - 1), 16, cookie=cookie)
        assert huge.startswith(b"HTTP/1.1 413"), huge[:200]


def test_a_full_disk_costs_no_evidence_and_is_reported(tmp_path: Path) -> None:
    data = seeded_data(tmp_path)
    with EvidenceStore(data, durable=False) as store:
        shas = [store.add_media(f"frame {n}".encode(), table="t1") for n in range(5)]
        files = [store.media_path(s) for s in shas]
    assert all(f is not None and f.exists() for f in files)
    free_mb = shutil.disk_usage(data).free // (1 << 20)
    # the disk is "full" from the server's point of view: not because of evidence
    with Served(data, "--min-free-mb", str(free_mb + 100_000)) as srv:
        assert srv.proc.stderr is not None
        seen: list[str] = []

        def read() -> None:
            assert srv.proc.stderr is not None
            for line in srv.proc.stderr:
                seen.append(line)
                if "DISK LOW" in line:
                    return

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        reader.join(timeout=30)
        assert any("DISK LOW" in line for line in seen), "".join(seen)[-2000:]
        time.sleep(0.5)  # the pass that said so has run its prune
        assert all(f is not None and f.exists() for f in files), "evidence was deleted"
