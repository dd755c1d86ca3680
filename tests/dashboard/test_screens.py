"""Every page on any screen, in Chinese and in English, in real Chromium: no horizontal
scrolling at 360, 390, 768 and 1440 px, ruling buttons at least 44 px, the page's language in
``<html lang>``, no internal names. Then the referee's work at 390 and 1440 px in both
languages: log in, read the table, answer a prompt from its frame, uphold a violation, preview
→ confirm → undo a correction with the score restored. Screenshots go to artifacts/screens/
(git-ignored), named language-width-page.png."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from dashboard.app import create_app
from dashboard.demo import render_frame
from dashboard.desk import register
from dashboard.hub import Hub
from dashboard.users import UserStore
from evidence import EvidenceStore
from evidence.live import LiveFiles
from tests.dashboard.browser import SCREENS, LiveServer
from tests.dashboard.conftest import FAST_HASH, PASSWORD, match_record

RECORD = match_record()
FIRST = 40
WIDTHS = (360, 390, 768, 1440)
LANGS = {"zh-CN": "zh-CN,zh;q=0.9", "en": "en-US,en;q=0.9"}
PATHS = {
    "hall": "/",
    "table": "/tables/t1",
    "violations": "/tables/t1/violations",
    "corrections": "/tables/t1/corrections",
    "calibration": "/tables/t1/calibration",
    "health": "/health",
}
PAGES = tuple(PATHS)
INTERNAL = re.compile(r"engine\.\w+\.referee|Referee\b|wrong_bury_count|failed_throw|BIG★|SML★")


def _prompt_event(record: list[dict[str, Any]]) -> dict[str, Any]:
    """A needs_referee prompt on the last single-card play: the camera doubts 7 vs its read."""
    play = next(e for e in reversed(record) if e["type"] == "play" and len(e["cards"]) == 1)
    read = play["cards"][0]
    other = ("9" if read[:-1] != "9" else "8") + read[-1]
    return {
        "v": 1,
        "t": record[-1]["t"] + 0.5,
        "type": "needs_referee",
        "ref": play["seq"],
        "candidates": [
            {"cards": [read], "confidence": 0.55},
            {"cards": [other], "confidence": 0.41},
        ],
        "reason": "low_confidence",
        "evidence": play.get("evidence"),
    }


def make_site(data: Path) -> dict[str, Any]:
    users = UserStore(data)
    users.add("ref1", "referee", PASSWORD, n=FAST_HASH)
    users.close()
    store = EvidenceStore(data, durable=False)
    register(store, "t1", by="test")  # no node here: the dashboard's desk referee judges
    for e in RECORD[:FIRST]:
        if e.get("evidence") and e.get("cards"):
            store.add_media(render_frame(f"seq {e['seq']}", e["cards"]), name=e["evidence"])
        store.append_event("t1", e)
    store.append_event("t1", _prompt_event(RECORD[:FIRST]))
    live = LiveFiles(data)
    live.put_frame("t1", render_frame("live frame", ["AS", "KH"]))
    live.put_health("t1", {"fps": 14.8, "model_ms": 41.5, "queue": 2, "serial": {"state": "up"}})
    hub = Hub(store, poll_s=0.02)
    app = create_app(data, hub=hub, SSE_PING_S=2.0)
    return {"server": LiveServer(app), "hub": hub, "store": store}


def close_site(site: dict[str, Any]) -> None:
    site["hub"].stop()
    site["server"].close()
    site["store"].close()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    s = make_site(tmp_path_factory.mktemp("screens"))
    yield s
    close_site(s)


def login(page: Page, url: str) -> None:
    page.goto(url + "/login")
    page.fill("input[name=username]", "ref1")
    page.fill("input[name=password]", PASSWORD)
    page.click("form:not(.lang-switch) button[type=submit]")
    page.wait_for_url(url + "/")


def open_page(browser: Browser, lang: str, width: int) -> tuple[Any, Page, list[str]]:
    ctx = browser.new_context(
        viewport={"width": width, "height": 900},
        locale=lang,
        extra_http_headers={"Accept-Language": LANGS[lang]},
        has_touch=width < 1000,
    )
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    return ctx, page, errors


def ready(page: Page, name: str) -> None:
    if name == "hall":
        page.wait_for_selector("a.tcard")
    elif name in ("table", "violations", "corrections"):
        page.wait_for_selector("body[data-seq]")
    elif name == "calibration":
        page.wait_for_selector("circle.handle")
    elif name == "health":
        page.wait_for_selector(".metric")


def check_fits(page: Page, where: str) -> None:
    wide = page.evaluate(
        "() => [document.documentElement.scrollWidth, window.innerWidth,"
        " [...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right"
        " > window.innerWidth + 1 && !e.closest('.scroll-x, nav')).slice(0, 3)"
        ".map(e => e.tagName + '.' + e.className)]"
    )
    assert wide[0] <= wide[1], (
        f"{where}: the page is {wide[0]} px wide on a {wide[1]} px screen {wide[2]}"
    )


def page_text(page: Page) -> str:
    """The body's text without the violation ids the table page shows for ``tablescan export
    --violation`` (an id holds its rule's code: it is not prose)."""
    text = page.inner_text("body")
    for vid in page.locator("code[data-vid]").all_inner_texts():
        text = text.replace(vid, "")
    return text


@pytest.mark.parametrize("lang", list(LANGS))
@pytest.mark.parametrize("width", WIDTHS)
def test_every_page_fits_the_screen(
    site: dict[str, Any], browser: Browser, lang: str, width: int
) -> None:
    url = site["server"].url
    ctx, page, errors = open_page(browser, lang, width)
    page.goto(url + "/login")
    assert page.get_attribute("html", "lang") == lang
    check_fits(page, f"login {lang} {width}")
    page.screenshot(path=str(SCREENS / f"{lang}-{width}-login.png"), full_page=True)
    login(page, url)
    for name in PAGES:
        page.goto(url + PATHS[name])
        ready(page, name)
        assert page.get_attribute("html", "lang") == lang
        check_fits(page, f"{name} {lang} {width}")
        text = page_text(page)
        assert not INTERNAL.search(text), (
            f"{name}: internal name on the page: {INTERNAL.search(text)}"
        )
        for box in page.locator("button.rule-btn").all():
            b = box.bounding_box()
            assert b is not None and b["height"] >= 44 and b["width"] >= 44, f"{name}: {b}"
        page.screenshot(path=str(SCREENS / f"{lang}-{width}-{name}.png"), full_page=True)
    ctx.close()
    assert errors == []


def test_the_pages_speak_the_sheets_words(site: dict[str, Any], browser: Browser) -> None:
    url = site["server"].url
    ctx, page, errors = open_page(browser, "zh-CN", 1440)
    login(page, url)
    page.goto(url + "/tables/t1/violations")
    page.wait_for_selector(".viol .rule")
    rules = page.locator(".viol .rule").all_inner_texts()
    assert "甩牌失败" in rules and "扣底张数错误" in rules
    page.click('.viol[data-violation="1:failed_throw:1:25"] details.cite summary')
    quote = page.inner_text('.viol[data-violation="1:failed_throw:1:25"] details.cite')
    assert "甩牌甩不掉，每一张罚10分" in quote  # school-2010's own sheet, one tap away
    vid = page.inner_text('.viol[data-violation="1:failed_throw:1:25"] code[data-vid]')
    assert vid == "1:failed_throw:1:25"  # what tablescan export --violation takes, shown
    titles = page.eval_on_selector_all(".card[data-card]", "els => els.map(e => e.title)")
    assert any(re.fullmatch(r"(黑桃|红桃|梅花|方块)(10|[2-9AJQK])", t) for t in titles)
    page.goto(url + "/tables/t1")
    page.wait_for_selector("#turn")
    assert "轮到" in page.inner_text("#turn") and "闲家" in page.inner_text("#score")
    page.click("#lang-switch")  # English, one switch away, remembered for the user
    page.wait_for_selector("html[lang=en]")
    expect(page.locator("#turn")).to_contain_text("to play")  # drawn once the state comes
    other = browser.new_context(extra_http_headers={"Accept-Language": "zh-CN"}).new_page()
    login(other, url)
    assert other.get_attribute("html", "lang") == "en"  # the saved choice beats the browser
    other.click("#lang-switch")
    other.wait_for_selector("html[lang=zh-CN]")
    other.context.close()
    ctx.close()
    assert errors == []


@pytest.mark.parametrize("lang", list(LANGS))
@pytest.mark.parametrize("width", (390, 1440))
def test_a_referees_work(tmp_path: Path, browser: Browser, lang: str, width: int) -> None:
    s = make_site(tmp_path)
    url, hub = s["server"].url, s["hub"]
    tag = f"{lang}-{width}"
    ctx, page, errors = open_page(browser, lang, width)
    try:
        login(page, url)
        page.goto(url + "/tables/t1")
        page.wait_for_selector("#turn .turn-arrow")
        page.wait_for_selector(".seat.turn .turn-tag")
        page.screenshot(path=str(SCREENS / f"{tag}-work-table.png"), full_page=True)

        # a prompt answered from its frame: the frame is there, one tap on the reading
        page.goto(url + "/tables/t1/corrections")
        prompt = page.wait_for_selector(".prompt")
        assert prompt is not None and page.locator(".prompt img[data-evidence]").count() == 1
        page.screenshot(path=str(SCREENS / f"{tag}-work-prompt.png"), full_page=True)
        page.locator(".prompt button[data-act=candidate]").first.click()  # the read itself stands
        page.wait_for_selector("#preview:not([hidden]) #pv-confirm")
        page.click("#pv-confirm")
        page.wait_for_function("() => !document.querySelector('.prompt')")
        assert hub.store.events("t1")[-1]["type"] == "correction"

        # a violation upheld
        page.goto(url + "/tables/t1/violations")
        vid = "1:failed_throw:1:25"
        box = f'.viol[data-violation="{vid}"]'
        page.wait_for_selector(f"{box} .status.open")
        page.fill(f'{box} textarea[data-key="note-{vid}"]', "7S beaten")
        page.screenshot(path=str(SCREENS / f"{tag}-work-violation.png"), full_page=True)
        page.click(f'{box} button[data-act="upheld"]')
        page.wait_for_selector(f"{box} .status.upheld")
        assert "ref1" in page.inner_text(box)
        assert hub.store.events("t1")[-1]["decision"] == "upheld"

        # a correction previewed → confirmed → undone, the score back where it was
        page.goto(url + "/tables/t1/corrections")
        page.wait_for_selector("#plays tbody tr[data-seq]")
        view = hub.tables["t1"].view
        before = view["attacker_points"]
        play = next(
            p
            for p in view["plays"]
            if len(p["cards"]) == 1 and p["cards"][0][:-1] in "6789" and not p.get("corrected_by")
        )
        page.fill(f'input[data-key="fix-{play["seq"]}"]', "K" + play["cards"][0][-1])
        page.click(f'button[data-act="correct"][data-seq="{play["seq"]}"]')
        page.wait_for_selector("#preview:not([hidden]) .changes li")
        assert hub.tables["t1"].view["attacker_points"] == before  # a preview changes nothing
        page.screenshot(path=str(SCREENS / f"{tag}-work-preview.png"), full_page=True)
        page.fill("#pv-why", "K read as 7")
        n_events = len(hub.store.events("t1"))
        page.click("#pv-confirm")
        # the prompt's own correction already has an undo button: wait for this one's
        deadline = time.monotonic() + 20
        while len(hub.store.events("t1")) == n_events and time.monotonic() < deadline:
            time.sleep(0.05)
        seq = hub.store.events("t1")[-1]["seq"]
        page.wait_for_selector(f'button[data-act="undo"][data-seq="{seq}"]')
        changed = hub.tables["t1"].view["attacker_points"]
        assert changed != before
        page.click(f'button[data-act="undo"][data-seq="{seq}"]')
        page.wait_for_selector("#preview:not([hidden]) #pv-confirm")
        page.click("#pv-confirm")
        page.wait_for_selector(
            f'tr[data-audit="{seq}"] >> text={"已撤回" if lang == "zh-CN" else "undone"}'
        )
        assert hub.tables["t1"].view["attacker_points"] == before
        last = hub.store.events("t1")[-1]
        assert last["type"] == "correction" and last["why"].startswith(f"undo #{seq}")
        check_fits(page, f"corrections after undo {tag}")
        page.screenshot(path=str(SCREENS / f"{tag}-work-undone.png"), full_page=True)
    finally:
        ctx.close()
        close_site(s)
    assert errors == []
