"""The trump and banker the judge took from the declarations show on the table page (a camera's
record has declarations and no ``trump`` event, as in ``make demo``): never "no trump / banker
–", both teams never "attackers"; a doubted declaration is marked; a trump the judge could not
fix says "unknown". Real Chromium at 390 and 1440 px, both languages."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from dashboard.app import create_app
from dashboard.desk import register
from dashboard.hub import Hub
from dashboard.users import UserStore
from evidence import EvidenceStore
from tests.dashboard.browser import SCREENS, LiveServer
from tests.dashboard.conftest import FAST_HASH, PASSWORD, match_record
from tests.dashboard.test_screens import login, open_page


def camera_record(declared: list[str]) -> list[dict[str, Any]]:
    """The first trick of hand 1 as a camera records it: the declaration, no trump event."""
    out = []
    for e in match_record()[:10]:
        if e["type"] == "trump":
            continue
        if e["type"] == "declare":
            e = {**e, "cards": declared}
        out.append({**e, "seq": len(out)})
    return out


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    data = tmp_path_factory.mktemp("trump")
    users = UserStore(data)
    users.add("ref1", "referee", PASSWORD, n=FAST_HASH)
    users.close()
    store = EvidenceStore(data, durable=False)
    for tid, declared in (("t1", ["2D"]), ("t2", ["BJ", "BJ"])):  # BJ pair: the seat chooses
        register(store, tid, by="test")
        for e in camera_record(declared):
            store.append_event(tid, e)
    hub = Hub(store, poll_s=0.02)
    server = LiveServer(create_app(data, hub=hub, SSE_PING_S=2.0))
    yield {"url": server.url, "hub": hub}
    hub.stop()
    server.close()
    store.close()


WORDS = {
    "zh-CN": {"suit": "方块", "none": "无主", "banker": "South", "unknown": "未知"},
    "en": {"suit": "diamonds", "none": "no trump", "banker": "South", "unknown": "unknown"},
}


def check_felt(page: Page) -> None:
    """The banker's pill ("South ★ 庄家") is one line, and no seat's cards cover the centre's
    trick and score (at 390 px the pill used to wrap and push the top seat's cards onto it)."""
    centre = page.locator(".felt .centre").bounding_box()
    assert centre is not None
    for name in page.locator(".felt .seat .name").all():
        box = name.bounding_box()
        line = name.evaluate("e => parseFloat(getComputedStyle(e).lineHeight) || 20")
        assert box is not None and box["height"] < 1.8 * line + 8, name.inner_text()
    for cards in page.locator(".felt .seat .played .card").all():
        c = cards.bounding_box()
        assert c is not None
        apart = (
            c["y"] + c["height"] <= centre["y"] + 1
            or c["y"] >= centre["y"] + centre["height"] - 1
            or c["x"] + c["width"] <= centre["x"] + 1
            or c["x"] >= centre["x"] + centre["width"] - 1
        )
        assert apart, ("a played card covers the centre", c, centre)


@pytest.mark.parametrize("width", [390, 1440])
@pytest.mark.parametrize("lang", list(WORDS))
def test_the_judged_trump_and_banker_show(
    site: dict[str, Any], browser: Browser, lang: str, width: int
) -> None:
    w = WORDS[lang]
    ctx, page, errors = open_page(browser, lang, width)
    try:
        login(page, site["url"])
        page.goto(site["url"] + "/tables/t1")
        page.wait_for_selector("body[data-seq]")
        chip = page.inner_text("#trump-chip")
        assert w["suit"] in chip and w["none"] not in chip, chip
        assert w["banker"] in page.inner_text("#banker-chip")
        assert page.locator(".side-card.bank").count() == 1, "one side is the banker's"
        check_felt(page)
        page.screenshot(path=str(SCREENS / f"{lang}-{width}-table-trump.png"), full_page=True)
        page.goto(site["url"] + "/tables/t2")
        page.wait_for_selector("body[data-seq]")
        chip = page.inner_text("#trump-chip")
        assert w["unknown"] in chip and w["none"] not in chip, chip
        assert not errors, errors
    finally:
        ctx.close()


def test_a_doubted_declaration_marks_the_trump(site: dict[str, Any], browser: Browser) -> None:
    ctx, page, errors = open_page(browser, "zh-CN", 390)
    try:
        login(page, site["url"])
        page.goto(site["url"] + "/tables/t1")
        page.wait_for_selector("#trump-chip")
        assert page.locator("#trump-chip [data-provisional]").count() == 0
        declare = next(e for e in camera_record(["2D"]) if e["type"] == "declare")
        site["hub"].append(
            "t1",
            {
                "type": "needs_referee",
                "ref": declare["seq"],
                "reason": "low_confidence",
                "candidates": [{"cards": ["2D"], "confidence": 0.5}],
            },
        )
        page.wait_for_selector("#trump-chip [data-provisional]")
        assert page.locator("#banker-chip [data-provisional]").count() == 1
        assert not errors, errors
    finally:
        ctx.close()
