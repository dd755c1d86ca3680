"""Tap targets a finger can hit (44 px): the nav, the language switch and 退出, the login
fields, the violation queue's export and report links. Real Chromium at 390 and 1440 px, both
languages, on the screens' site."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from tests.dashboard.test_screens import LANGS, PASSWORD, open_page, site  # noqa: F401

MIN = 44


def small(page: Page, selector: str) -> list[str]:
    boxes = page.eval_on_selector_all(
        selector,
        "els => els.filter(e => e.offsetParent !== null).map(e => { const r ="
        " e.getBoundingClientRect(); return [e.textContent.trim().slice(0, 20), r.height]; })",
    )
    assert boxes, f"nothing matches {selector}"
    return [f"{selector} {t!r}: {h:.0f} px" for t, h in boxes if h < MIN - 0.5]


@pytest.mark.parametrize("width", [390, 1440])
@pytest.mark.parametrize("lang", list(LANGS))
def test_tap_targets_are_44px(
    site: dict[str, Any],  # noqa: F811
    browser: Browser,
    lang: str,
    width: int,
) -> None:
    url = site["server"].url
    ctx, page, errors = open_page(browser, lang, width)
    try:
        page.goto(url + "/login")
        bad = small(page, "input[name=username], input[name=password]")
        page.fill("input[name=username]", "ref1")
        page.fill("input[name=password]", PASSWORD)
        page.click("form:not(.lang-switch) button[type=submit]")
        page.wait_for_url(url + "/")
        page.goto(url + "/tables/t1/violations")
        page.wait_for_selector(".viol")
        bad += small(page, "nav a")
        bad += small(page, "header button.link")
        bad += small(page, "#export-match, a.report-link")
        assert not bad, bad
        assert not errors, errors
    finally:
        ctx.close()
