"""The correction preview: a prompt's candidate equal to the read is "the reading stands", never
a correction of QD to QD; the preview says the event, what it reads now and what it would read,
each on its own line with the cards drawn, then what changes; a no-op or an empty correction is
refused in the page's language. Real Chromium at 390 and 1440 px, both languages."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from tests.dashboard.test_screens import LANGS, RECORD, login, open_page, site  # noqa: F401

#: the page's own post() (CSRF and JSON), returning the error it shows, or "ok"
PREVIEW = """async ([tid, body]) => {
  try { await post(`/api/tables/${tid}/corrections/preview`, body); return "ok"; }
  catch (e) { return e.message; }
}"""
WORDS = {
    "zh-CN": {"stands": "识别无误", "same": "无需更正", "empty": "没有要更正的内容"},
    "en": {"stands": "the reading stands", "same": "nothing to correct", "empty": "nothing to"},
}


@pytest.mark.parametrize("width", [390, 1440])
@pytest.mark.parametrize("lang", list(LANGS))
def test_the_preview_says_what_and_refuses_a_no_op(
    site: dict[str, Any],  # noqa: F811
    browser: Browser,
    lang: str,
    width: int,
) -> None:
    w = WORDS[lang]
    url = site["server"].url
    ctx, page, errors = open_page(browser, lang, width)
    try:
        login(page, url)
        page.goto(url + "/tables/t1/corrections")
        page.wait_for_selector(".prompt")
        ref = int(page.get_attribute(".prompt", "data-ref") or -1)
        read = next(e for e in RECORD if e.get("seq") == ref)["cards"]
        expect(page.locator(".prompt button[data-act=candidate]")).to_have_count(1)
        assert w["stands"] in page.inner_text(".prompt .candidates")
        page.locator(".prompt button[data-act=candidate]").click()
        page.wait_for_selector("#preview:not([hidden]) .pv-what")
        assert page.locator("#preview .pv-was .card").count() == len(read)
        assert page.locator("#preview .pv-would .card").count() >= 1
        page.click("#pv-cancel")
        for body, word in (
            ({"ref": ref, "cards": " ".join(read)}, w["same"]),
            ({"ref": ref}, w["empty"]),
        ):
            said = page.evaluate(
                PREVIEW,
                ["t1", body],
            )
            assert word in said, said
        assert not errors, errors
    finally:
        ctx.close()
