"""A finished match can be reopened by a head referee (issue 30): on the table page the head
sees 重新开放比赛 / Reopen the match, one tap only says what it does (the record gets
``match_reopen`` with their name, the ``match_end`` stays), the confirm writes it, and the
next hand can start. A referee sees no such button and the API refuses them. Real Chromium,
both languages; and the node (``tablescan.wiring``) resumes a reopened match where it
refuses a finished one."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from dashboard.users import UserStore
from engine.record import validate_event
from tests.dashboard.browser import SCREENS
from tests.dashboard.conftest import FAST_HASH, PASSWORD
from tests.dashboard.test_match_screens import RECORD, site
from tests.dashboard.test_screens import open_page

ASKS = {
    "en": ("Reopen the match", "match_reopen", "match_end stays", "Yes, do it"),
    "zh-CN": ("重新开放比赛", "match_reopen", "仍保留在记录中", "确定执行"),
}
OVER = [*RECORD, {"v": 1, "seq": len(RECORD), "t": 5000.0, "type": "match_end", "by": "ref1"}]


def _login(page: object, url: str, user: str) -> None:
    page.goto(url + "/login")  # type: ignore[attr-defined]
    page.fill("input[name=username]", user)  # type: ignore[attr-defined]
    page.fill("input[name=password]", PASSWORD)  # type: ignore[attr-defined]
    page.click("form:not(.lang-switch) button[type=submit]")  # type: ignore[attr-defined]
    page.wait_for_url(url + "/")  # type: ignore[attr-defined]


@pytest.mark.parametrize("lang", list(ASKS))
def test_a_head_referee_reopens_a_finished_match_after_confirming(
    tmp_path: Path, browser: Browser, lang: str
) -> None:
    label, says, stays, yes = ASKS[lang]
    users = UserStore(tmp_path)
    users.add("head1", "head", PASSWORD, n=FAST_HASH)
    users.close()
    with site(tmp_path, OVER) as s:
        url, store = s["server"].url, s["store"]
        ctx, page, errors = open_page(browser, lang, 390)
        try:
            _login(page, url, "head1")
            page.goto(url + "/tables/t1")
            button = page.locator('#match button[data-match="reopen_match"]')
            button.wait_for()
            assert label in button.inner_text()
            n = len(store.events("t1"))
            button.click()
            ask = page.locator('#match [data-confirm="reopen_match"]')
            ask.wait_for()
            assert says in ask.inner_text() and stays in ask.inner_text(), ask.inner_text()
            assert yes in ask.inner_text()
            page.screenshot(path=str(SCREENS / f"{lang}-390-reopen-confirm.png"), full_page=True)
            assert len(store.events("t1")) == n, "one tap stored nothing"
            page.click('#match button[data-match-confirm="reopen_match"]')
            page.wait_for_selector('#match button[data-match="start_hand"]')
            last = store.events("t1")[-1]
            assert last["type"] == "match_reopen" and last["by"] == "head1"
            validate_event(last)  # a documented, schema-valid record event
            assert page.locator("#match-over").count() == 0
            page.click('#match button[data-match="start_hand"]')
            page.click('#match button[data-match-confirm="start_hand"]')
            deadline = time.monotonic() + 10
            while store.events("t1")[-1]["type"] != "hand_start" and time.monotonic() < deadline:
                time.sleep(0.05)
            assert store.events("t1")[-1]["type"] == "hand_start", "the next deal starts"
            assert not errors, errors
        finally:
            ctx.close()


def test_a_referee_cannot_reopen_a_finished_match(tmp_path: Path, browser: Browser) -> None:
    with site(tmp_path, OVER) as s:
        url, store = s["server"].url, s["store"]
        ctx, page, errors = open_page(browser, "en", 1440)
        try:
            _login(page, url, "ref1")
            page.goto(url + "/tables/t1")
            page.wait_for_selector("#match-over")
            assert page.locator('[data-match="reopen_match"]').count() == 0
            n = len(store.events("t1"))
            token = page.evaluate("document.querySelector('meta[name=csrf-token]')?.content")
            got = page.request.post(
                url + "/api/tables/t1/match",
                data={"action": "reopen_match"},
                headers={"X-CSRF-Token": token or ""},
            )
            assert got.status == 403, got.text()
            assert "head referee" in got.json()["error"] and len(store.events("t1")) == n
            assert not errors, errors
        finally:
            ctx.close()
