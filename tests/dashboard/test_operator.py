"""The stream operator's panel (dashboard/operator.py) in real Chromium, Chinese and English at
390 and 1440 px: the link with a working copy button and its delay said, the on-air preview
(the link itself, delayed) beside the next-on-air one (undelayed, head only), safe-area
guides, widgets shown and hidden, the "violation upheld" stinger reaching the next-on-air
preview first and the air only after the delay, and a test pattern until the match is on
air. Screenshots: artifacts/screens/operator-<lang>-<width>[-what].png."""

from __future__ import annotations

import re
import socket
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, FrameLocator, Page

from dashboard.app import create_app
from dashboard.desk import register
from dashboard.hub import Hub
from dashboard.serving import STREAMS_PER_TOKEN
from dashboard.users import UserStore
from evidence import EvidenceStore
from tests.dashboard.browser import SCREENS, LiveServer
from tests.dashboard.conftest import FAST_HASH, PASSWORD, login, match_record
from tests.dashboard.test_screens import check_fits, open_page

DELAY = 3.0  # the node's floor and default here (30 s in the product)
RECORD = match_record()[:30]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    data = tmp_path_factory.mktemp("operator")
    users = UserStore(data)
    users.add("head1", "head", PASSWORD, n=FAST_HASH)
    users.add("ref1", "referee", PASSWORD, n=FAST_HASH)
    tokens = {t: users.new_overlay_token(t, by="head1") for t in ("t1", "t2", "t3")}
    users.close()
    store = EvidenceStore(data, durable=False)
    register(store, "t1", by="test")
    for e in RECORD:
        store.append_event("t1", e)
    hub = Hub(store, poll_s=0.02)
    app = create_app(
        data, hub=hub, SSE_PING_S=1.0, OVERLAY_DELAY_S=DELAY, OVERLAY_MIN_DELAY_S=DELAY
    )
    server = LiveServer(app)
    yield {"url": server.url, "tokens": tokens, "store": store, "app": app, "hub": hub}
    hub.stop()
    server.close()
    store.close()


def head_login(page: Page, url: str) -> None:
    page.goto(url + "/login")
    page.fill("input[name=username]", "head1")
    page.fill("input[name=password]", PASSWORD)
    page.click("form:not(.lang-switch) button[type=submit]")
    page.wait_for_url(url + "/")


def frames(page: Page) -> tuple[FrameLocator, FrameLocator]:
    return page.frame_locator("#op-air-frame"), page.frame_locator("#op-next-frame")


@pytest.mark.parametrize("lang", ["zh-CN", "en"])
@pytest.mark.parametrize("width", [390, 1440])
def test_the_panel_previews_copies_and_says_the_delay(
    site: dict[str, Any], browser: Browser, lang: str, width: int
) -> None:
    url, token = site["url"], site["tokens"]["t1"]
    ctx, page, errors = open_page(browser, lang, width)
    ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=url)
    try:
        head_login(page, url)
        page.goto(f"{url}/overlay/t1/operator?token={token}")
        assert page.get_attribute("html", "lang") == lang
        air, nxt = frames(page)
        nxt.locator("[data-widget=score]").wait_for()  # the table now
        air.locator("[data-widget=score]").wait_for(timeout=15000)  # after the delay
        n = str(int(DELAY))
        assert n in page.inner_text("#op-delay-badge")
        assert n in page.inner_text("#op-air-note") and n in page.inner_text("#op-next-note")
        page.click("#op-copy")
        page.wait_for_function("() => document.querySelector('#op-copied').textContent")
        copied = page.evaluate("() => navigator.clipboard.readText()")
        assert copied == page.inner_text("#op-url") and f"token={token}" in copied
        assert page.locator("#op-air .guides").is_visible()
        check_fits(page, f"operator {lang} {width}")
        page.screenshot(path=str(SCREENS / f"operator-{lang}-{width}.png"), full_page=True)
        page.uncheck("#op-guides")
        assert not page.locator("#op-air .guides").is_visible()
        # a longer delay goes into the link and the on-air preview; a shorter one gets the floor
        page.fill("#op-delay", "60")
        page.dispatch_event("#op-delay", "change")
        assert page.inner_text("#op-url").endswith("&delay=60")
        assert page.get_attribute("#op-air-frame", "src").endswith("&delay=60")
        page.fill("#op-delay", "1")
        page.dispatch_event("#op-delay", "change")
        assert page.input_value("#op-delay") == n and "&delay" not in page.inner_text("#op-url")
    finally:
        ctx.close()
    assert not errors


def test_widgets_hide_and_the_stinger_reaches_air_only_after_the_delay(
    site: dict[str, Any], browser: Browser
) -> None:
    url, token = site["url"], site["tokens"]["t1"]
    ctx, page, errors = open_page(browser, "en", 1440)
    try:
        head_login(page, url)
        page.goto(f"{url}/overlay/t1/operator?token={token}")
        page.uncheck("input[name=widgets][value=players]")
        page.check("input[name=stinger]")
        page.click("#op-form button[type=submit]")
        page.wait_for_selector("#op-saved")
        air, nxt = frames(page)
        nxt.locator("[data-widget=score]").wait_for()
        air.locator("[data-widget=score]").wait_for(timeout=15000)
        assert nxt.locator("[data-widget=players]").count() == 0
        assert air.locator("[data-widget=players]").count() == 0
        assert page.input_value("#op-delay") == str(int(DELAY))
        state = page.evaluate("async () => (await fetch('/api/tables/t1/state')).json()")
        vid = next(v["id"] for v in state["violations"] if v["status"] == "open")
        upheld = page.evaluate(
            """async (vid) => (await fetch('/api/tables/t1/rulings', {method: 'POST',
                headers: {'Content-Type': 'application/json', 'X-CSRF-Token':
                document.querySelector('meta[name=csrf-token]').content},
                body: JSON.stringify({violation: vid, decision: 'uphold', note: 'seen'})}))
                .status""",
            vid,
        )
        assert upheld == 201
        at = time.monotonic()
        nxt.locator(".stinger.on").wait_for(timeout=4000)
        assert time.monotonic() - at < DELAY - 1
        assert air.locator(".stinger").count() == 0  # not on air before the delay
        assert "裁判确认违例" in nxt.locator(".stinger").inner_text()  # the link's language
        page.screenshot(path=str(SCREENS / "operator-en-1440-stinger.png"))
        air.locator(".stinger.on").wait_for(timeout=15000)
        assert time.monotonic() - at >= DELAY - 1.0
        assert "裁判确认违例" in air.locator(".stinger").inner_text()  # the link is Chinese
    finally:
        ctx.close()
    assert not errors


def test_a_test_pattern_until_the_match_is_on_air(site: dict[str, Any], browser: Browser) -> None:
    url, token, store = site["url"], site["tokens"]["t2"], site["store"]
    ctx, page, errors = open_page(browser, "zh-CN", 1440)
    obs = browser.new_page(viewport={"width": 1280, "height": 720})  # no login: as OBS
    try:
        head_login(page, url)
        page.goto(f"{url}/overlay/t2/operator?token={token}")
        page.check("input[name=test_pattern]")
        page.click("#op-form button[type=submit]")
        page.wait_for_selector("#op-saved")
        obs.goto(f"{url}/overlay/t2?token={token}")
        obs.locator("#testpattern").wait_for()
        assert "测试图" in obs.inner_text("#testpattern")
        obs.screenshot(path=str(SCREENS / "operator-testpattern-1280.png"))
        _air, nxt = frames(page)
        nxt.locator("#testpattern").wait_for()
        register(store, "t2", by="test")
        for e in RECORD[:6]:
            store.append_event("t2", e)
        nxt.locator("[data-widget=score]").wait_for(timeout=5000)
        assert nxt.locator("#testpattern").count() == 0  # the match is on: the graphics
        assert obs.locator("#testpattern").count() == 1  # not yet on air
        obs.locator("[data-widget=score]").wait_for(timeout=15000)
        assert obs.locator("#testpattern").count() == 0
    finally:
        obs.close()
        ctx.close()
    assert not errors


def test_a_refused_browser_source_comes_back_by_itself(
    site: dict[str, Any], browser: Browser
) -> None:
    """OBS leaves a browser source running for hours: refused once (the link's streams all
    taken, 503), the overlay must ask again and go on air when a slot is free. The head
    referee's panel previews do not take the link's slots."""
    url, token = site["url"], site["tokens"]["t1"]
    port = int(url.rsplit(":", 1)[1])
    ctx, page, _errors = open_page(browser, "zh-CN", 1440)
    obs = browser.new_page(viewport={"width": 1280, "height": 720})
    try:
        head_login(page, url)
        page.goto(f"{url}/overlay/t1/operator?token={token}")
        page.frame_locator("#op-next-frame").locator("[data-widget=score]").wait_for()
        with ExitStack() as held:
            for _ in range(STREAMS_PER_TOKEN - 1):  # the air preview holds the last one
                s = held.enter_context(socket.create_connection(("127.0.0.1", port), timeout=10))
                s.sendall(
                    f"GET /overlay/t1/stream?token={token} HTTP/1.1\r\nHost: x\r\n\r\n".encode()
                )
                assert s.recv(200).startswith(b"HTTP/1.1 200")
            with obs.expect_response(lambda r: "/stream?" in r.url) as refused:
                obs.goto(f"{url}/overlay/t1?token={token}")
            assert refused.value.status == 503
            assert obs.locator("[data-widget=score]").count() == 0
        obs.locator("[data-widget=score]").wait_for(timeout=15000)  # asked again, on air
    finally:
        obs.close()
        ctx.close()


def test_the_panel_and_undelayed_preview_are_the_head_referees_alone(
    site: dict[str, Any],
) -> None:
    app, token = site["app"], site["tokens"]["t3"]
    anon = app.test_client()
    for path in (f"/overlay/t3/operator?token={token}", f"/overlay/t3/preview?token={token}"):
        resp = anon.get(path)
        assert resp.status_code == 302 and "/login" in resp.headers["Location"], path
    with anon.get(f"/overlay/t3/preview-stream?token={token}") as resp:
        assert resp.status_code == 302  # the link alone never gets the undelayed view
    ref = app.test_client()
    login(ref, "ref1")
    assert ref.get(f"/overlay/t3/operator?token={token}").status_code == 403
    head = app.test_client()
    csrf = login(head, "head1")
    assert head.get(f"/overlay/t3/operator?token={site['tokens']['t1']}").status_code == 404
    assert head.get("/overlay/t3/operator?token=nope").status_code == 404
    page = head.get(f"/overlay/t3/operator?token={token}")
    assert page.status_code == 200
    assert "frame-ancestors 'none'" in page.headers["Content-Security-Policy"]
    preview = head.get(f"/overlay/t3/preview?token={token}")
    assert "frame-ancestors 'self'" in preview.headers["Content-Security-Policy"]
    assert re.search(r'data-stream="/overlay/t3/preview-stream\?token=', preview.get_data(True))
    bad = head.post(
        "/overlay/t3/operator",
        data={"csrf_token": csrf, "token": token, "widgets": ["score", "video"]},
    )
    assert bad.status_code == 400 and "video" in bad.get_data(as_text=True)
    assert Path(app.config["TABLESCAN_DATA_DIR"], "overlay_layouts.sqlite3").exists()
    # a new link's page leads to its panel (the token is in hand only there)
    made = head.post("/tables/t1/overlay-token", data={"csrf_token": csrf}).get_data(True)
    new = re.search(r"/overlay/t1\?token=([\w-]+)", made)
    assert new is not None
    assert f'href="/overlay/t1/operator?token={new.group(1)}"' in made
