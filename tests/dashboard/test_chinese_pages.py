"""No English on a Chinese page: every page of the screens' site (a match with violations, a
prompt, a correction), in real Chromium at 390 and 1440 px with every ``<details>`` open,
shows no English word beyond the record's own names and a few product terms. A new English
string (a reason, a prompt code, a penalty gloss, a label outside the catalog) fails here."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Browser

from tests.dashboard.test_screens import (  # noqa: F401
    PATHS,
    RECORD,
    login,
    open_page,
    page_text,
    ready,
    site,
)

#: what may stay in Latin letters on a Chinese page: the record's seat names and profile, the
#: language switch, product and file-format names, user names, evidence ids, config words
ALLOWED = {
    *RECORD[0]["seats"],
    *re.findall(r"[A-Za-z]+", RECORD[0]["profile"]),
    "English",
    "tablescan",
    "verify",
    "bundle",
    "ref",  # the user ref1
    "HTML",
    "PDF",
    "zip",
    "bury",  # the evidence id h1-bury
    "points",  # the calibration method's config value
    "standard",
}


@pytest.mark.parametrize("width", [390, 1440])
def test_no_english_on_a_chinese_page(site: dict[str, Any], browser: Browser, width: int) -> None:  # noqa: F811
    ctx, page, errors = open_page(browser, "zh-CN", width)
    try:
        login(page, site["server"].url)
        found: dict[str, list[str]] = {}
        for name, path in PATHS.items():
            page.goto(site["server"].url + path)
            ready(page, name)
            page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
            words = set(re.findall(r"[A-Za-z]{3,}", page_text(page)))
            if words - ALLOWED:
                found[name] = sorted(words - ALLOWED)
        assert not found, found
        assert not errors, errors
    finally:
        ctx.close()
