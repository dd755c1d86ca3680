"""A Gouji table in real Chromium, in Chinese and in English: the table page shows the finishing
order 头科…, the 够级 state and burns, the rounds of the deal, penalties in the sheet's words,
and no 80-points word (attackers, level, trump, "no penalty"); the hall's card likewise.
Screenshots go to artifacts/screens/ (gouji-LANG-PAGE.png)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser

from dashboard.app import create_app
from dashboard.desk import register
from dashboard.hub import Hub
from dashboard.users import UserStore
from engine.gouji.sim import simulate
from evidence import EvidenceStore
from tests.dashboard.browser import SCREENS, LiveServer
from tests.dashboard.conftest import FAST_HASH, PASSWORD
from tests.dashboard.test_screens import login, open_page

PROFILE, SEED = "gouji-core", 8
#: 80-points words that must not appear on a Gouji table, per language
TRACTOR_WORDS = {
    "en": ("attackers", "Attackers", "trump", "level ", "no penalty", "Tricks this hand"),
    "zh-CN": ("闲家", "打 ", "不罚", "本副牌各墩", "庄家"),
}
PLACES = {"en": "头科", "zh-CN": "头科"}
GOUJI_NOW = {"en": "够级 now", "zh-CN": "当前够级"}


def gouji_record() -> list[dict[str, Any]]:
    """One simulated deal with an illegal set injected; the deal still being played (its last
    events held back) so the page shows a live deal with places already decided."""
    events, truth = simulate(PROFILE, SEED, inject=2)
    assert truth["violations"], "the seed must inject a violation"
    plays = [i for i, e in enumerate(events) if e["type"] == "play"]
    return events[: plays[-3]]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    data = tmp_path_factory.mktemp("gouji-screens")
    users = UserStore(data)
    users.add("ref1", "referee", PASSWORD, n=FAST_HASH)
    users.close()
    store = EvidenceStore(data, durable=False)
    register(store, "g1", by="test")  # the dashboard's desk referee judges (the Gouji one)
    for e in gouji_record():
        store.append_event("g1", e)
    hub = Hub(store, poll_s=0.02)
    server = LiveServer(create_app(data, hub=hub, SSE_PING_S=2.0))
    yield {"server": server}
    hub.stop()
    server.close()
    store.close()


@pytest.mark.parametrize("lang", ["zh-CN", "en"])
def test_a_gouji_table_speaks_gouji(site: dict[str, Any], browser: Browser, lang: str) -> None:
    url = site["server"].url
    ctx, page, errors = open_page(browser, lang, 1440)
    login(page, url)
    page.wait_for_selector("a.tcard")
    page.wait_for_selector("[data-gouji=places] [data-place]")
    hall = page.inner_text("#hall")
    assert PLACES[lang] in hall
    for word in TRACTOR_WORDS[lang]:
        assert word not in hall, f"hall ({lang}) says {word!r}"
    page.screenshot(path=str(SCREENS / f"gouji-{lang}-hall.png"), full_page=True)

    page.goto(url + "/tables/g1")
    page.wait_for_selector("#gouji-places [data-place]")
    score = page.inner_text("#score")
    assert PLACES[lang] in score and GOUJI_NOW[lang] in score
    assert page.locator("#gouji-burns").count() == 1
    assert page.locator("section[data-view=gouji]").is_visible()
    assert not page.locator("section[data-view=tractor]").is_visible()
    assert page.locator("#rounds tbody tr").count() >= 2
    visible = page.inner_text("main")
    for word in TRACTOR_WORDS[lang]:
        assert word not in visible, f"table page ({lang}) says {word!r}"
    page.screenshot(path=str(SCREENS / f"gouji-{lang}-table.png"), full_page=True)

    page.goto(url + "/tables/g1/violations")
    page.wait_for_selector("[data-violation]")
    queue = page.inner_text("main")
    assert "「" in queue or "错牌不出" in queue or "the set is" in queue  # the sheet's words
    for word in TRACTOR_WORDS[lang]:
        assert word not in queue, f"violations page ({lang}) says {word!r}"
    page.screenshot(path=str(SCREENS / f"gouji-{lang}-violations.png"), full_page=True)
    assert not errors, errors
    ctx.close()


@pytest.mark.parametrize("lang", ["zh-CN", "en"])
def test_a_referee_enters_a_tribute_before_the_first_set(
    tmp_path: Any, browser: Browser, lang: str
) -> None:
    """gouji-changshi: 「每进贡一张，由吃贡者得1分」(L8). Before the deal's first set the table
    page offers the tribute form; what the referee enters is judged and shown (进贡, its
    cards), and the form goes once the first set is down."""
    users = UserStore(tmp_path)
    users.add("ref1", "referee", PASSWORD, n=FAST_HASH)
    users.close()
    store = EvidenceStore(tmp_path, durable=False)
    register(store, "g2", by="test")
    events, _ = simulate("gouji-changshi", 3)
    opening = next(i for i, e in enumerate(events) if e["type"] == "hand_start") + 1
    for e in events[:opening]:
        store.append_event("g2", e)
    hub = Hub(store, poll_s=0.02)
    server = LiveServer(create_app(tmp_path, hub=hub, SSE_PING_S=2.0))
    ctx, page, errors = open_page(browser, lang, 1440)
    try:
        login(page, server.url)
        page.goto(server.url + "/tables/g2")
        page.wait_for_selector("#tribute-form:not([hidden])")
        page.select_option("#tribute-form select[name=seat]", "4")
        page.select_option("#tribute-form select[name=to]", "1")
        page.fill("#tribute-form input[name=cards]", "BJ 2S")
        page.click("#tribute-form button[type=submit]")
        page.wait_for_selector("#gouji-tribute [data-tribute]")
        shown = page.inner_text("#gouji-tribute")
        assert "进贡" in shown and page.locator("#gouji-tribute .card").count() >= 2, shown
        stored = [r.data for r in store.rows(table="g2", kind="event")][-1]
        assert (stored["type"], stored["what"], stored["seat"], stored["to"]) == (
            "exchange",
            "tribute",
            4,
            1,
        )
        assert stored["cards"] == ["BJ", "2S"] and stored["by"] == "ref1"
        page.screenshot(path=str(SCREENS / f"gouji-{lang}-tribute.png"), full_page=True)
        first = next(e for e in events[opening:] if e["type"] == "play")
        hub.append("g2", {k: v for k, v in first.items() if k not in ("v", "seq", "t")})
        page.wait_for_selector("#tribute-form", state="hidden")
        assert not errors, errors
    finally:
        ctx.close()
        hub.stop()
        server.close()
        store.close()
