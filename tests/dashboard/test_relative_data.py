"""Blocker: ``tablescan serve --data store80`` (a relative path, as the README writes it) must
serve the same Chinese pages and evidence frames as an absolute one. Flask-Babel and
``send_file`` resolve relative paths against the package folder, not the working directory."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
from pathlib import Path

from tests.dashboard.conftest import PASSWORD
from tests.security.conftest import ENV, Browser, free_port, seeded_data


def _serve(cwd: Path, data: str) -> tuple[subprocess.Popen[str], str]:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "tablescan", "serve", "--data", data, "--port", str(port)],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
    )
    timer = threading.Timer(60, proc.kill)
    timer.start()
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("serving the dashboard"):
            break
    timer.cancel()
    import socket
    import time

    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.05)
    return proc, f"http://127.0.0.1:{port}"


def test_relative_data_serves_chinese_pages_and_frames(tmp_path: Path) -> None:
    from evidence import EvidenceStore

    data = seeded_data(tmp_path / "store80")
    with EvidenceStore(data, durable=False) as store:
        sha = store.add_media(b"frame bytes", table="t1", seq=3)
    proc, url = _serve(tmp_path, "store80")
    try:
        b = Browser(url)
        status, _ = b.login("head1", PASSWORD)
        assert status == 302
        _s, _h, page = b.request("/tables/t1")
        assert '<html lang="zh-CN">' in page
        assert "比赛" in page or "牌桌" in page, "the page is Chinese, from the catalog"
        assert "<th>Set that stood</th>" not in page, "no English heading under lang=zh-CN"
        assert re.search(r'id="lang-switch">English<', page)
        status, _h, body = b.request(f"/api/media/{sha}")
        assert status == 200, body
    finally:
        proc.terminate()
        _out, err = proc.communicate(timeout=10)
    assert "FileNotFoundError" not in err
