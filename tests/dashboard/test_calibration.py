"""The calibration page in real Chromium: the live frame, the ArUco markers found in it (found
server-side), the seat areas from the table's own config (the node's ``layout.json``), and the
corners saved back; a bad save is a one-line 400 and never stops the next node start. Beside
it, what the technician checks next: "camera lost" on the health and table pages (from the
node's live health) and DISK LOW when the retention pass found the disk under its floor."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from flask import Flask
from flask.testing import FlaskClient
from playwright.sync_api import sync_playwright

from dashboard.desk import register
from dashboard.hub import Hub
from evidence import EvidenceStore
from evidence.live import LiveFiles
from evidence.retention import RetentionLoop
from tablescan.cli import main as tablescan
from tablescan.config import TableConfig, load_config
from tablescan.wiring import dashboard_calibration, layout_json
from tests.dashboard.browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, LiveServer
from tests.dashboard.conftest import PASSWORD, login
from vision.calibration import draw_marker

W, H, SIDE = 960, 600, 90
CENTRES = [(120, 100), (840, 110), (830, 500), (130, 490)]  # markers 0-3: TL, TR, BR, BL


def marker_frame() -> bytes:
    """A grey table with the four corner markers (white border round each, as printed)."""
    image = np.full((H, W, 3), 90, np.uint8)
    for mid, (cx, cy) in enumerate(CENTRES):
        m = cv2.cvtColor(draw_marker("DICT_4X4_50", mid, SIDE), cv2.COLOR_GRAY2BGR)
        pad = 20
        image[
            cy - SIDE // 2 - pad : cy + SIDE // 2 + pad, cx - SIDE // 2 - pad : cx + SIDE // 2 + pad
        ] = 255
        image[cy - SIDE // 2 : cy + SIDE // 2, cx - SIDE // 2 : cx + SIDE // 2] = m
    return bytes(cv2.imencode(".jpg", image)[1].tobytes())


@pytest.fixture
def table(tmp_path: Path) -> TableConfig:
    path = tmp_path / "conf" / "t1.toml"
    path.parent.mkdir()
    assert tablescan(["setup", "--game", "80-points", "--seats", "4", "-o", str(path)]) == 0
    return load_config(path)


@pytest.fixture
def site(data: Path, store: EvidenceStore, hub: Hub, table: TableConfig) -> Hub:
    register(store, "t1", by="test")
    hub.poll()
    live = LiveFiles(data)
    live.put_frame("t1", marker_frame())
    live.put_layout("t1", layout_json(table))  # what the node shares at start
    return hub


def post(c: FlaskClient, csrf: str, url: str, body: str) -> tuple[int, str]:
    r = c.post(url, data=body, content_type="application/json", headers={"X-CSRF-Token": csrf})
    return r.status_code, r.get_data(as_text=True)


def test_bad_calibration_posts_are_one_line_400s(app: Any, site: Hub, data: Path) -> None:
    c = app.test_client()
    csrf = login(c)
    nan = '{"points": [[NaN, 1], [2, 3], [4, 5], [6, 7]]}'
    for url, body, why in [
        ("/api/tables/t1/calibration", nan, "NaN is not JSON"),  # refused as the body is read
        (
            "/api/tables/t1/calibration",
            '{"points": [[1e999, 1], [2, 3], [4, 5], [6, 7]]}',
            "1e999 is out of range",
        ),
        ("/api/tables/t1/calibration", '{"points": [[-5, 1], [2, 3], [4, 5], [6, 7]]}', "points"),
        (
            "/api/tables/nope/calibration",
            '{"points": [[1, 1], [2, 3], [4, 5], [6, 7]]}',
            "no table",
        ),
        (
            "/api/tables/%2E%2E/calibration",
            '{"points": [[1, 1], [2, 3], [4, 5], [6, 7]]}',
            "no table",
        ),
    ]:
        status, text = post(c, csrf, url, body)
        error = json.loads(text)["error"]
        assert status == 400 and why in error and "\n" not in error, (url, status, text)
    assert LiveFiles(data).calibration("t1") is None  # nothing was saved
    assert not (data / "live" / "nope").exists()


def test_a_bad_saved_calibration_never_stops_the_node(
    data: Path, table: TableConfig, caplog: pytest.LogCaptureFixture
) -> None:
    live = LiveFiles(data)
    for points in ([[float("nan"), 1], [2, 3], [4, 5], [6, 7]], [[1, 1]] * 4, "x", [[1, 2]]):
        live.put_calibration("t1", {"method": "points", "points": points})
        assert dashboard_calibration(data, table) == table  # the config's own calibration
    assert "ignored" in caplog.text
    good = [[10, 12], [620, 15], [630, 470], [8, 460]]
    live.put_calibration("t1", {"method": "points", "points": good})
    assert dashboard_calibration(data, table).calibration.points == tuple(map(tuple, good))


@pytest.fixture
def browser_page(app: Any, site: Hub) -> Iterator[Any]:
    server = LiveServer(app)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    errors: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(server.url + "/login")
        page.fill("input[name=username]", "ref1")
        page.fill("input[name=password]", PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_url(server.url + "/")
        yield page, server.url
        browser.close()
    server.close()
    assert errors == [], errors


def test_calibration_page_shows_markers_config_areas_and_saves_them(
    browser_page: Any, data: Path, table: TableConfig
) -> None:
    page, url = browser_page
    page.goto(url + "/tables/t1/calibration")
    page.wait_for_selector("circle.handle[data-i='0']")
    assert "All four corner markers found" in page.inner_text("#markers-msg")
    assert len(page.query_selector_all("polygon.marker")) == 4
    assert "config" in page.inner_text("#layout-msg")
    seats = [a for a in table.areas if a.kind == "seat"]
    labels = page.text_content("#overlay") or ""
    assert all(f"seat {a.seat}" in labels for a in seats) and "centre" in labels
    assert len(page.query_selector_all("polygon[fill-opacity]")) == len(table.areas)
    page.click("#use-markers")
    page.click("#save")
    page.wait_for_selector("#calib-msg >> text=Saved")
    saved = LiveFiles(data).calibration("t1")
    assert saved is not None
    for (x, y), (cx, cy) in zip(saved["points"], CENTRES, strict=True):
        assert abs(x - cx) < 3 and abs(y - cy) < 3  # the corners sit on the marker centres
    page.screenshot(path=str(ARTIFACTS / "calibration-markers.png"), full_page=True)
    assert dashboard_calibration(data, table).calibration.method == "points"


LOST = {"camera": "lost", "lost_for_s": 3.4, "losses": 1, "reconnects": 0, "frames": 120,
        "dropped": 2, "missed": 85, "last_error": "read failed"}  # fmt: skip


def test_retention_notes_a_low_disk_for_the_health_api(
    app: Flask, site: Any, store: EvidenceStore, data: Path
) -> None:
    RetentionLoop(store, max_age_s=None, min_free_bytes=1 << 60).run_once()  # no disk has that
    c = app.test_client()
    login(c)
    h = c.get("/api/health").get_json()
    assert h["disk_low"] is True and h["disk_min_free_bytes"] == 1 << 60
    RetentionLoop(store, max_age_s=None, min_free_bytes=1).run_once()
    assert c.get("/api/health").get_json()["disk_low"] is False


def test_camera_lost_and_disk_low_show_on_the_pages(
    browser_page: Any, store: EvidenceStore, data: Path
) -> None:
    page, url = browser_page
    live = LiveFiles(data)
    live.put_health("t1", {"fps": 12.0, "source": "http://cam/stream", "camera": LOST})
    RetentionLoop(store, max_age_s=None, min_free_bytes=1 << 60).run_once()
    page.goto(url + "/health")
    page.wait_for_selector("#disk-low")
    text = page.inner_text("#health")
    assert "camera lost (3 s)" in text and "2 / 85" in text
    page.screenshot(path=str(ARTIFACTS / "health-camera-lost.png"), full_page=True)
    page.goto(url + "/tables/t1")
    banner = page.wait_for_selector("#camera-state:not([hidden])")
    assert banner is not None and "camera lost" in banner.inner_text()
    page.screenshot(path=str(ARTIFACTS / "table-camera-lost.png"), full_page=True)
    live.put_health("t1", {"fps": 12.0, "camera": {**LOST, "camera": "ok", "reconnects": 1}})
    page.wait_for_selector("#camera-state[hidden]", state="attached", timeout=5000)
    page.goto(url + "/health")
    page.wait_for_selector(".metric >> text=camera ok (back 1×)")
