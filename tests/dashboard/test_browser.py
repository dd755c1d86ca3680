"""The dashboard in real Chromium: login, a play on screen within 1 s of its event, uphold a
violation, correct a card and see the points move, the overlay on a transparent page, the
calibration and health pages. Screenshots go to artifacts/dashboard/ (git-ignored)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from dashboard.app import create_app
from dashboard.demo import render_frame
from dashboard.desk import register
from dashboard.hub import Hub
from dashboard.users import UserStore, overlay_link_id
from evidence import EvidenceStore
from evidence.live import LiveFiles
from tests.dashboard.browser import ARTIFACTS, CHROMIUM, CHROMIUM_ARGS, LiveServer
from tests.dashboard.conftest import FAST_HASH, PASSWORD, match_record

RECORD = match_record()
FIRST = 40  # events on the table before the browser arrives


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    data: Path = tmp_path_factory.mktemp("site")
    users = UserStore(data)
    users.add("ref1", "referee", PASSWORD, n=FAST_HASH)
    token = users.new_overlay_token("t1")
    store = EvidenceStore(data, durable=False)
    register(store, "t1", by="test")  # no node here: the dashboard's desk referee judges
    for e in RECORD[:FIRST]:
        if e.get("evidence") and e.get("cards"):
            store.add_media(render_frame(f"seq {e['seq']}", e["cards"]), name=e["evidence"])
        store.append_event("t1", e)
    live = LiveFiles(data)
    live.put_frame("t1", render_frame("live frame", ["AS", "KH"]))
    live.put_health("t1", {"fps": 14.8, "model_ms": 41.5, "queue": 2, "serial": {"state": "up"}})
    hub = Hub(store, poll_s=0.02)
    app = create_app(data, hub=hub, SSE_PING_S=2.0, OVERLAY_MIN_DELAY_S=0.0)
    server = LiveServer(app)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield {"url": server.url, "hub": hub, "browser": browser, "token": token, "data": data}
        browser.close()
    hub.stop()
    server.close()
    store.close()


@pytest.fixture(scope="module")
def page(site: dict[str, Any]) -> Iterator[Page]:
    browser: Browser = site["browser"]
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto(site["url"] + "/login")
    pg.screenshot(path=str(ARTIFACTS / "login.png"))
    pg.fill("input[name=username]", "ref1")
    pg.fill("input[name=password]", PASSWORD)
    pg.click("button[type=submit]")
    pg.wait_for_url(site["url"] + "/")
    yield pg
    context.close()
    assert errors == [], f"JavaScript errors on the pages: {errors}"


def test_login_lands_on_the_hall(site: dict[str, Any], page: Page) -> None:
    page.wait_for_selector("a.tcard >> text=Table t1")
    assert "3 open" in page.inner_text("a.tcard")
    page.screenshot(path=str(ARTIFACTS / "hall.png"), full_page=True)


def test_a_play_is_on_screen_within_one_second(site: dict[str, Any], page: Page) -> None:
    hub: Hub = site["hub"]
    page.goto(site["url"] + "/tables/t1")
    page.wait_for_selector(f'body[data-seq="{FIRST - 1}"]')
    worst = 0.0
    for e in RECORD[FIRST : FIRST + 6]:
        hub.store.append_event("t1", e)
        t0 = time.monotonic()
        if e["type"] == "play":
            page.wait_for_selector(f'.played[data-seq="{e["seq"]}"] .card', timeout=1000)
        else:
            page.wait_for_selector(f'body[data-seq="{e["seq"]}"]', timeout=1000)
        worst = max(worst, time.monotonic() - t0)
    assert worst < 1.0
    page.screenshot(path=str(ARTIFACTS / "table.png"), full_page=True)


def test_uphold_a_violation(site: dict[str, Any], page: Page) -> None:
    page.goto(site["url"] + "/tables/t1/violations")
    vid = "1:failed_throw:1:25"
    box = f'.viol[data-violation="{vid}"]'
    page.wait_for_selector(f"{box} .status.open")
    page.fill(f'{box} textarea[data-key="note-{vid}"]', "throw beaten by West's ace")
    page.screenshot(path=str(ARTIFACTS / "violations.png"), full_page=True)
    page.click(f'{box} button[data-act="upheld"]')
    page.wait_for_selector(f"{box} .status.upheld", timeout=3000)
    assert "upheld by ref1" in page.inner_text(box)
    assert "throw beaten by West" in page.inner_text(box)
    ruling = site["hub"].store.events("t1")[-1]
    assert (ruling["type"], ruling["ref"], ruling["decision"]) == ("ruling", vid, "upheld")


def test_correct_a_card_and_see_the_points_change(site: dict[str, Any], page: Page) -> None:
    hub: Hub = site["hub"]
    page.goto(site["url"] + "/tables/t1/corrections")
    page.wait_for_selector("#plays tbody tr[data-seq]")
    view = hub.tables["t1"].view
    play = next(p for p in view["plays"] if len(p["cards"]) == 1 and p["cards"][0][:-1] in "6789")
    before = page.inner_text("#score-strip")
    page.fill(f'input[data-key="fix-{play["seq"]}"]', "K" + play["cards"][0][-1])
    page.click(f'button[data-act="correct"][data-seq="{play["seq"]}"]')
    page.click("#preview:not([hidden]) #pv-confirm")  # a correction is previewed, then confirmed
    page.wait_for_function(
        "before => document.querySelector('#score-strip').innerText !== before", arg=before
    )
    assert page.inner_text("#score-strip") != before
    page.wait_for_selector("#audit tbody >> text=corrected seq")
    assert "ref1" in page.inner_text("#audit tbody")
    page.screenshot(path=str(ARTIFACTS / "corrections.png"), full_page=True)


def test_overlay_on_a_transparent_page(site: dict[str, Any]) -> None:
    browser: Browser = site["browser"]
    ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    ov = ctx.new_page()
    ov.goto(f"{site['url']}/overlay/t1?token={site['token']}&delay=0")
    ov.wait_for_selector("#ov[data-seq] [data-widget=score]")
    bg = ov.evaluate("getComputedStyle(document.body).backgroundColor")
    assert bg in ("rgba(0, 0, 0, 0)", "transparent")
    path = ARTIFACTS / "overlay.png"
    ov.screenshot(path=str(path), omit_background=True)
    png = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    assert png.shape[2] == 4 and png[700, 1270, 3] == 0  # an empty corner is see-through
    assert np.count_nonzero(png[:, :, 3]) > 1000  # and the widgets are drawn
    ctx.close()


def test_calibration_corners_drag_and_save(site: dict[str, Any], page: Page) -> None:
    page.goto(site["url"] + "/tables/t1/calibration")
    page.wait_for_selector("circle.handle[data-i='0']")
    assert len(page.query_selector_all("polygon")) >= 6  # table outline + 4 seats + centre
    before = page.inner_text("#corners")
    box = page.locator("circle.handle[data-i='0']").bounding_box()
    assert box is not None
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(cx, cy)
    page.mouse.down()
    page.mouse.move(cx + 40, cy + 30, steps=4)
    page.mouse.up()
    assert page.inner_text("#corners") != before
    page.click("#save")
    page.wait_for_selector("#calib-msg >> text=Saved")
    saved = LiveFiles(site["data"]).calibration("t1")
    assert saved is not None and saved["method"] == "points" and len(saved["points"]) == 4
    page.screenshot(path=str(ARTIFACTS / "calibration.png"), full_page=True)


def test_health_page_shows_the_node(site: dict[str, Any], page: Page) -> None:
    page.goto(site["url"] + "/health")
    page.wait_for_selector(".metric >> text=frames / s")
    text = page.inner_text("#health")
    for expected in ("14.8", "41.5", "QUEUE DEPTH", "up", "DISK FREE"):
        assert expected in text.upper() or expected in text
    page.screenshot(path=str(ARTIFACTS / "health.png"), full_page=True)


def test_head_referee_revokes_an_overlay_link_and_the_overlay_goes_blank(
    site: dict[str, Any],
) -> None:
    users = UserStore(site["data"])
    users.add("head1", "head", PASSWORD, n=FAST_HASH)
    leaked = users.new_overlay_token("t1")
    link = next(k for k in users.overlay_links("t1") if k.id == overlay_link_id(leaked))
    browser: Browser = site["browser"]
    ov_ctx = browser.new_context(viewport={"width": 1280, "height": 720})
    ov = ov_ctx.new_page()
    ov.goto(f"{site['url']}/overlay/t1?token={leaked}&delay=0")
    ov.wait_for_selector("#ov[data-seq] [data-widget=score]")
    head = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
    head.goto(site["url"] + "/login")
    head.fill("input[name=username]", "head1")
    head.fill("input[name=password]", PASSWORD)
    head.click("button[type=submit]")
    head.wait_for_url(site["url"] + "/")
    head.goto(site["url"] + "/tables/t1")
    panel = head.wait_for_selector("#overlay-links")
    assert panel is not None and link.id in panel.inner_text() and leaked not in head.content()
    head.screenshot(path=str(ARTIFACTS / "overlay-links.png"), full_page=True)
    head.click(f"#overlay-links tr:has-text('{link.id}') button")
    head.wait_for_url(site["url"] + "/tables/t1")
    assert link.id not in head.inner_text("body")
    ov.wait_for_function("() => document.getElementById('ov').innerHTML === ''", timeout=5000)
    assert users.overlay_table(leaked) is None
    ov_ctx.close()
