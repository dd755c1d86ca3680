"""An irreversible match action asks first and says what it will do: one tap on 结束比赛 (or
结束本副 / 开始下一副) only shows what the action chains in the record; nothing is stored until
the referee confirms. Real Chromium on a phone (390 px) and a desk (1440 px), both languages."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser

from tests.dashboard.browser import SCREENS
from tests.dashboard.test_match_screens import RECORD, site, table_page

ASKS = {
    "en": ("hand_end", "cannot be undone", "Yes, do it"),
    "zh-CN": ("本副结束", "无法撤销", "确定执行"),
}


@pytest.mark.parametrize("width", [390, 1440])
@pytest.mark.parametrize("lang", list(ASKS))
def test_end_hand_asks_first(tmp_path: Path, browser: Browser, lang: str, width: int) -> None:
    says, final, yes = ASKS[lang]
    last_hand = max(i for i, e in enumerate(RECORD) if e["type"] == "hand_start")
    with site(tmp_path, RECORD[: last_hand + 8]) as s:  # hand 2 under way
        ctx, page, errors = table_page(browser, s["server"].url, lang)
        try:
            page.set_viewport_size({"width": width, "height": 900})
            page.wait_for_selector('#match button[data-match="end_hand"]')
            n = len(s["store"].events("t1"))
            page.click('#match button[data-match="end_hand"]')
            ask = page.locator('#match [data-confirm="end_hand"]')
            ask.wait_for()
            assert says in ask.inner_text() and final in ask.inner_text()
            assert yes in ask.inner_text()
            box = page.locator('#match button[data-match-confirm="end_hand"]').bounding_box()
            assert box is not None and box["height"] >= 44
            page.screenshot(path=str(SCREENS / f"{lang}-{width}-confirm.png"), full_page=True)
            assert len(s["store"].events("t1")) == n, "one tap stored nothing"
            page.click('#match button[data-match-confirm="end_hand"]')
            page.wait_for_selector('#match button[data-match="start_hand"]')
            assert s["store"].events("t1")[-1]["type"] == "hand_end"
            assert page.locator("#match [data-confirm]").count() == 0
            assert not errors, errors
        finally:
            ctx.close()
