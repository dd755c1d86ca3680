"""The match clock on the screens, in real Chromium: time left on the table page, the hall and
the overlay, the 5-minute warning, and once the clock decides the match, which at-time rule
did (both languages; 390 and 1440 px). The store's clock is injected: the match "began" 55
minutes ago without a test waiting through a minute of it."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser

from dashboard.app import create_app
from dashboard.desk import register
from dashboard.hub import Hub
from dashboard.overlay import Layout, LayoutStore
from dashboard.users import UserStore, overlay_link_id
from evidence import EvidenceStore
from tests.dashboard.browser import SCREENS, LiveServer
from tests.dashboard.conftest import FAST_HASH, PASSWORD, match_record
from tests.dashboard.test_screens import check_fits, login, open_page

RECORD = [e for e in match_record(seed=2, hands=2, inject=0) if e["type"] != "match_end"]
RECORD[0] = {**RECORD[0], "clock": {"minutes": 60, "from": "table"}}
LEFT_S = 200.0  # the match is 56 min 40 s old when the pages open: under 5 minutes left
WORDS = {
    "zh-CN": ("即将到时", "到时判定：级数高者获胜"),
    "en": ("time is nearly up", "decided on time: the higher level won"),
}
ON_TIME = {
    "minutes": 60,
    "at_time": "banker",
    "finish_deal": False,
    "by": "level",
    "detail": "the higher level wins",
    "cite": "",
}


@pytest.mark.parametrize("lang,width", [("zh-CN", 390), ("en", 1440)])
def test_time_left_warning_and_decided_on_time(
    tmp_path: Path, browser: Browser, lang: str, width: int
) -> None:
    warn, decided = WORDS[lang]
    users = UserStore(tmp_path)
    users.add("ref1", "referee", PASSWORD, n=FAST_HASH)
    token = users.new_overlay_token("t1")
    LayoutStore(tmp_path).save(overlay_link_id(token), "t1", Layout("lower-third", "bottom"), "x")
    last_t = float(RECORD[-1]["t"])
    began = time.time() - 3600.0 + LEFT_S
    store = EvidenceStore(tmp_path, durable=False, clock=lambda: began + last_t)
    register(store, "t1", by="test")
    for e in RECORD:
        store.append_event("t1", e)
    hub = Hub(store, poll_s=0.02)
    server = LiveServer(create_app(tmp_path, hub=hub, SSE_PING_S=2.0, OVERLAY_MIN_DELAY_S=0.0))
    pages: list[Any] = []
    try:
        ctx, page, errors = open_page(browser, lang, width)
        login(page, server.url)
        page.goto(server.url + "/tables/t1")
        page.wait_for_selector("#match-clock .match-clock.warn", timeout=20_000)
        text = page.inner_text("#match-clock")
        assert warn in text, text
        m = re.search(r"(\d+):(\d\d)", text)
        assert m and 120 <= int(m[1]) * 60 + int(m[2]) <= LEFT_S, text  # counted down here
        hall = ctx.new_page()
        hall.goto(server.url + "/")
        hall.wait_for_selector(".tcard .match-clock.warn", timeout=20_000)
        ov = ctx.new_page()
        ov.goto(f"{server.url}/overlay/t1?token={token}&delay=0&lang={lang[:2]}")
        ov.wait_for_selector("#ov [data-widget=score] .match-clock.warn", timeout=20_000)
        pages = [page, hall, ov]
        check_fits(page, f"table clock {lang} {width}")
        check_fits(hall, f"hall clock {lang} {width}")
        page.screenshot(path=str(SCREENS / f"clock-warn-{lang}-{width}.png"))
        end = {"type": "match_end", "reason": "time", "meta": {"from": "table"}}
        hub.append("t1", {**end, "result": {"hands": 2, "winner": 0, "time": ON_TIME}})
        page.wait_for_selector("#match-clock [data-clock=over]", timeout=20_000)
        assert decided in page.inner_text("#match-clock")
        hall.wait_for_selector(".tcard [data-clock=over]", timeout=20_000)
        assert decided in hall.inner_text(".tcard")
        ov.wait_for_selector("#ov [data-clock=over]", timeout=20_000)
        assert decided in ov.inner_text("#ov")
        page.screenshot(path=str(SCREENS / f"clock-over-{lang}-{width}.png"))
        assert errors == []
        ctx.close()
    finally:
        hub.stop()
        server.close()
        store.close()
        users.close()
    assert len(pages) == 3
