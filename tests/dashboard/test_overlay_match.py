"""The overlay in real Chromium says "match over" once a referee's ``match_end`` is in the
record, for 80-points and Gouji, in both languages, and not a moment before (screenshots
under artifacts/screens/overlay-match-over-*.png)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import sync_playwright

from dashboard.app import create_app
from dashboard.desk import register
from dashboard.hub import Hub
from dashboard.overlay import Layout, LayoutStore
from dashboard.users import UserStore, overlay_link_id
from engine.gouji.sim import simulate as gouji_sim
from evidence import EvidenceStore
from tests.dashboard.browser import CHROMIUM, CHROMIUM_ARGS, SCREENS, LiveServer
from tests.dashboard.conftest import match_record

RECORDS = {
    "t1": [e for e in match_record(seed=2, hands=2, inject=0) if e["type"] != "match_end"],
    "g1": [],  # below: a gouji-changshi deal with a tribute (进贡) handed over before play
}


def _with_tribute() -> list[dict[str, Any]]:
    """「每进贡一张，由吃贡者得1分」(L8): seat 4 pays seat 1 a big joker before the first set."""
    events = [e for e in gouji_sim("gouji-changshi", seed=1)[0] if e["type"] != "match_end"]
    at = next(i for i, e in enumerate(events) if e["type"] == "hand_start") + 1
    paid = {"v": 1, "t": events[at]["t"], "type": "exchange", "what": "tribute"}
    events.insert(at, {**paid, "seat": 4, "to": 1, "count": 1, "cards": ["BJ"]})
    return [{**e, "seq": i} for i, e in enumerate(events)]


RECORDS["g1"] = _with_tribute()
WORDS = {"": "比赛结束", "&lang=en": "Match over"}
GOUJI_RESULT = {"": "胜局", "&lang=en": "deals won"}


@pytest.fixture
def site(tmp_path: Path) -> Iterator[dict[str, Any]]:
    users = UserStore(tmp_path)
    store = EvidenceStore(tmp_path, durable=False)
    hub = Hub(store, poll_s=0.02)
    app = create_app(tmp_path, hub=hub, SSE_PING_S=1.0, OVERLAY_MIN_DELAY_S=0.0)
    server = LiveServer(app)
    tokens = {}
    layouts = LayoutStore(tmp_path)
    for tid, events in RECORDS.items():
        register(store, tid, by="test")
        for e in events:
            store.append_event(tid, e)
        tokens[tid] = users.new_overlay_token(tid)
        layouts.save(overlay_link_id(tokens[tid]), tid, Layout("lower-third", "bottom"), "head1")
    deadline = time.monotonic() + 20
    while any(
        hub.tables.get(tid) is None or hub.tables[tid].view.get("seq") != ev[-1]["seq"]
        for tid, ev in RECORDS.items()
    ):
        assert time.monotonic() < deadline, "the hub did not take the records"
        time.sleep(0.05)
    SCREENS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield {"url": server.url, "hub": hub, "browser": browser, "tokens": tokens}
        browser.close()
    hub.stop()
    server.close()
    store.close()
    users.close()


@pytest.mark.parametrize("tid", list(RECORDS))
def test_overlay_says_match_over_after_match_end(site: dict[str, Any], tid: str) -> None:
    game = "tractor" if tid == "t1" else "gouji"
    pages = {}
    for lang in WORDS:
        ctx = site["browser"].new_context(viewport={"width": 1280, "height": 720})
        page = ctx.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e, errors=errors: errors.append(str(e)))
        page.goto(f"{site['url']}/overlay/{tid}?token={site['tokens'][tid]}&delay=0{lang}")
        page.wait_for_selector("#ov[data-seq] [data-widget=score]")
        assert page.locator(".match-over").count() == 0  # the match is still on
        assert WORDS[lang] not in page.inner_text("#ov")
        if game == "gouji":  # the tribute the judge took, in the score widget
            page.wait_for_selector("#ov [data-gouji=tribute]")
            assert "进贡" in page.inner_text("#ov [data-gouji=tribute]")
        pages[lang] = (page, errors)
    hub: Hub = site["hub"]
    hub.append(tid, {"type": "match_end", "reason": "referee", "by": "head1"})
    for lang, (page, errors) in pages.items():
        page.wait_for_selector("#ov .match-over", timeout=20_000)
        score = page.inner_text("#ov [data-widget=score]")
        assert WORDS[lang] in score
        if game == "gouji":  # its result in its own terms: deals won and points, no levels
            assert GOUJI_RESULT[lang] in score, score
        name = f"overlay-match-over-{game}{lang.replace('&lang=', '-')}"
        page.screenshot(path=str(SCREENS / f"{name}.png"), omit_background=True)
        assert errors == []
        page.context.close()
    assert hub.tables[tid].view["match"]["over"]
