"""The match on the screens, in real Chromium: the table page's match panel (every deal's
levels after, the next banker; a Gouji deal's finishing order), a referee ending the match
from it, then "match over" with the result (Gouji: deals won and points, never levels) on the
table page and the hall, which never say "playing" after ``match_end``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from dashboard.app import create_app
from dashboard.desk import register
from dashboard.hub import Hub
from dashboard.users import UserStore
from evidence import EvidenceStore
from tablescan.render_gouji import judged, simulated_deals
from tests.dashboard.browser import SCREENS, LiveServer
from tests.dashboard.conftest import FAST_HASH, PASSWORD, match_record
from tests.dashboard.test_screens import login, open_page

RECORD = [e for e in match_record(seed=2, hands=2, inject=0) if e["type"] != "match_end"]
ASKS = {"en": "no further hand can start", "zh-CN": "不能再开始新的一副"}
WORDS = {
    "en": ("match over", "Match over", "playing"),
    "zh-CN": ("比赛结束", "比赛结束", "进行中"),
}


@contextmanager
def site(data: Path, record: list[dict[str, Any]] = RECORD) -> Iterator[dict[str, Any]]:
    """The dashboard serving ``record`` on table t1 (its desk referee judging), then closed."""
    users = UserStore(data)
    users.add("ref1", "referee", PASSWORD, n=FAST_HASH)
    users.close()
    store = EvidenceStore(data, durable=False)
    register(store, "t1", by="test")  # the desk referee judges (no node here)
    for e in record:
        store.append_event("t1", e)
    hub = Hub(store, poll_s=0.02)
    server = LiveServer(create_app(data, hub=hub, SSE_PING_S=2.0))
    try:
        yield {"server": server, "hub": hub, "store": store}
    finally:
        hub.stop()
        server.close()
        store.close()


def table_page(browser: Browser, url: str, lang: str) -> tuple[Any, Page, list[str]]:
    """A referee logged in (``lang``) on table t1's page, with the page's script errors."""
    ctx, page, errors = open_page(browser, lang, 1440)
    login(page, url)
    page.goto(url + "/tables/t1")
    return ctx, page, errors


@pytest.mark.parametrize("lang", list(WORDS))
def test_the_match_on_the_table_page_and_the_hall(
    tmp_path: Path, browser: Browser, lang: str
) -> None:
    over_word, over_head, playing = WORDS[lang]
    with site(tmp_path) as s:
        url, hub = s["server"].url, s["hub"]
        ctx, page, errors = table_page(browser, url, lang)
        try:
            page.wait_for_selector('#match tr[data-hand="2"]')
            state = hub.state_json("t1")
            assert '"levels_after"' in state
            levels = [h["levels_after"] for h in hub.tables["t1"].view["match"]["hands"]]
            rows = page.locator("#match tbody tr")
            assert rows.count() == 2
            for i, lv in enumerate(levels):
                assert " : ".join(lv) in rows.nth(i).inner_text()
            assert page.locator("#match [data-provisional]").count() == 0
            first = next(e for e in RECORD if e["type"] == "play")  # a read of hand 1 doubted
            doubt = {"type": "needs_referee", "ref": first["seq"], "reason": "low_confidence"}
            hub.append(
                "t1", {**doubt, "candidates": [{"cards": first["cards"], "confidence": 0.5}]}
            )
            page.wait_for_selector('#match tr[data-hand="1"] [data-provisional]')
            assert page.locator('#match tr[data-hand="2"] [data-provisional]').count() == 0
            assert playing not in page.inner_text("#play-status")  # between hands
            assert page.locator('#match button[data-match="start_hand"]').count() == 1
            page.click('#match button[data-match="end_match"]')
            page.wait_for_selector('#match [data-confirm="end_match"]')  # one tap only asks
            assert hub.store.events("t1")[-1]["type"] != "match_end"
            assert ASKS[lang] in page.inner_text('#match [data-confirm="end_match"]')
            page.click("#match button[data-match-cancel]")
            assert page.locator("#match [data-confirm]").count() == 0
            page.click('#match button[data-match="end_match"]')
            page.click('#match button[data-match-confirm="end_match"]')
            page.wait_for_selector("#match-over")
            assert over_head in page.inner_text("#match-over")
            assert page.locator("#match-over [data-provisional]").count() == 1  # a read is open
            assert over_word in page.inner_text("#play-status")
            assert playing not in page.inner_text("#headline")
            assert page.locator("#match button[data-match]").count() == 0  # a match is not reopened
            assert hub.store.events("t1")[-1]["type"] == "match_end"
            page.screenshot(path=str(SCREENS / f"{lang}-1440-match-over.png"), full_page=True)
            page.goto(url + "/")
            page.wait_for_selector("a.tcard .match-over")
            assert page.locator("a.tcard .match-over [data-provisional]").count() == 1  # hand 1
            card = page.inner_text("a.tcard")
            assert over_head in card and playing not in card
            for lv in levels[-1]:
                assert lv in page.inner_text("a.tcard .match-over")
            page.screenshot(path=str(SCREENS / f"{lang}-1440-match-hall.png"), full_page=True)
            assert not errors, errors
        finally:
            ctx.close()


GOUJI = "gouji-core"
GOUJI_RECORD = [e for e in simulated_deals(GOUJI, 3, hands=2) if e["type"] != "match_end"]
GOUJI_WORDS = {
    "en": ("Match over", "deals won", "level"),
    "zh-CN": ("比赛结束", "胜局", "级"),
}


@pytest.mark.parametrize("lang", list(GOUJI_WORDS))
def test_a_gouji_match_over_in_its_own_terms(tmp_path: Path, browser: Browser, lang: str) -> None:
    """Two Gouji deals, then a referee ends the match from the page: the result is the
    judge's deals won and points (the stored deals' scores), not 80-points levels."""
    over_head, won_word, level_word = GOUJI_WORDS[lang]
    truth = judged(GOUJI_RECORD, GOUJI)["match"]["teams"]
    with site(tmp_path, GOUJI_RECORD) as s:
        url = s["server"].url
        ctx, page, errors = table_page(browser, url, lang)
        try:
            page.wait_for_selector('#match tr[data-hand="2"]')
            page.click('#match button[data-match="end_match"]')
            page.click('#match button[data-match-confirm="end_match"]')
            page.wait_for_selector("#match-over")
            over = page.inner_text("#match-over")
            points = f"{truth[0]} : {truth[1]}"
            assert over_head in over and won_word in over and points in over, over
            assert level_word not in over.split("·", 1)[1], over
            page.screenshot(path=str(SCREENS / f"{lang}-1440-gouji-match-over.png"), full_page=True)
            page.goto(url + "/")
            page.wait_for_selector("a.tcard .match-over")
            card = page.inner_text("a.tcard .match-over")
            assert won_word in card and points in card, card
            assert not errors, errors
        finally:
            ctx.close()
