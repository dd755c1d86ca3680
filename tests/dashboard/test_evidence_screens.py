"""Evidence to rule on, in real Chromium, in Chinese and English at 390 and 1440 px: each
violation's frames with the read cards outlined and labelled by their Chinese names (zoomed by
one tap), a later proof side by side with the trick that was led and the offending play, a bury
flag that shows its frame once, and a prompt answered by tapping a candidate reading.
Screenshots: artifacts/screens/evidence-<lang>-<width>-<what>.png."""

from __future__ import annotations

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
from engine.names import card_name
from evidence import EvidenceStore
from tests.dashboard.browser import SCREENS, LiveServer
from tests.dashboard.conftest import FAST_HASH, PASSWORD, match_record
from tests.dashboard.test_screens import _prompt_event, check_fits, login, open_page

FIRST = 40
LANG_CODE = {"zh-CN": "zh_CN", "en": "en"}


def with_reads(e: dict[str, Any]) -> dict[str, Any]:
    """The boxes render_frame draws its cards in (60 + 70 i, 170; 60 × 86 px)."""
    if e["type"] not in ("play", "bottom_reveal") or not e.get("cards"):
        return e
    reads = [
        {"card": c, "box": [60 + 70 * i, 170, 60, 86], "score": 0.95 if i else 0.62}
        for i, c in enumerate(e["cards"][:8])
    ]
    return {**e, "reads": reads}


@pytest.fixture
def site(tmp_path: Path) -> Iterator[dict[str, Any]]:
    users = UserStore(tmp_path)
    users.add("ref1", "referee", PASSWORD, n=FAST_HASH)
    users.close()
    store = EvidenceStore(tmp_path, durable=False)
    register(store, "t1", by="test")
    record = [with_reads(e) for e in match_record()[:FIRST]]
    for e in record:
        if e.get("evidence"):
            store.add_media(
                render_frame(f"seq {e['seq']}", e.get("cards") or []), name=e["evidence"]
            )
        store.append_event("t1", e)
    prompt = _prompt_event(record)
    store.append_event("t1", prompt)
    hub = Hub(store, poll_s=0.02)
    server = LiveServer(create_app(tmp_path, hub=hub, SSE_PING_S=2.0))
    yield {"url": server.url, "record": record, "prompt": prompt}
    hub.stop()
    server.close()
    store.close()


def shot(page: Page, lang: str, width: int, what: str) -> None:
    page.screenshot(path=str(SCREENS / f"evidence-{lang}-{width}-{what}.png"), full_page=True)


def boxes_drawn(page: Page, root: str) -> list[str]:
    page.wait_for_function(
        f"() => [...document.querySelectorAll('{root} figure.shot')].every("
        "f => f.querySelector('img').naturalWidth"
        " && (f.dataset.reads === '[]' || f.querySelector('.readbox')))"
    )
    return page.locator(f"{root} .readlabel").all_inner_texts()


@pytest.mark.parametrize("lang", ["zh-CN", "en"])
@pytest.mark.parametrize("width", [390, 1440])
def test_violation_frames_outlined_and_proof_side_by_side(
    browser: Browser,
    site: dict[str, Any],
    lang: str,
    width: int,
) -> None:
    ctx, page, errors = open_page(browser, lang, width)
    login(page, site["url"])
    page.goto(site["url"] + "/tables/t1/violations")
    throw = page.locator(".viol", has=page.locator('.rule[data-rule="failed_throw"]'))
    expect(throw).to_have_count(1)
    # the offending play (with the trick that was led) beside the later play that proves it
    cols = throw.locator(".compare.side-by-side > .col")
    expect(cols).to_have_count(2)
    expect(cols.nth(0).locator(".proof.led")).to_have_count(1)
    labels = boxes_drawn(page, '.viol:has(.rule[data-rule="failed_throw"])')
    code = LANG_CODE[lang]
    at = next(e for e in site["record"] if e["seq"] == 25)
    assert any(lbl.startswith(card_name(at["cards"][0], code)) for lbl in labels), labels
    if lang == "zh-CN":
        assert any(s in lbl for lbl in labels for s in ("红桃", "黑桃", "梅花", "方块", "王"))
    left = cols.nth(0).bounding_box()
    right = cols.nth(1).bounding_box()
    assert left and right
    if width >= 1000:
        assert right["x"] > left["x"] + left["width"] - 1  # side by side
    # a weak read is drawn as such
    expect(throw.locator(".readbox.weak").first).to_be_visible()
    # the bury flag: its frame once
    bury = page.locator(".viol", has=page.locator('.rule[data-rule="wrong_bury_count"]'))
    srcs = bury.locator("img").evaluate_all("els => els.map(e => e.getAttribute('src'))")
    assert len(srcs) == len(set(srcs)) >= 1
    check_fits(page, f"violations {lang} {width}")
    shot(page, lang, width, "violations")
    # one tap zooms the frame with its outlines; a tap closes it
    throw.locator("figure.shot").first.click()
    zoom = page.locator("#zoom")
    expect(zoom).to_be_visible()
    expect(zoom.locator(".readbox").first).to_be_visible()
    zbox = zoom.locator("figure.shot").bounding_box()
    assert zbox and zbox["width"] >= min(width, 1400) * 0.9
    shot(page, lang, width, "zoom")
    zoom.click()
    expect(zoom).to_be_hidden()
    assert errors == []
    ctx.close()


@pytest.mark.parametrize("lang", ["zh-CN", "en"])
@pytest.mark.parametrize("width", [390, 1440])
def test_prompt_answered_by_tapping_a_candidate(
    browser: Browser,
    site: dict[str, Any],
    lang: str,
    width: int,
) -> None:
    ctx, page, errors = open_page(browser, lang, width)
    login(page, site["url"])
    page.goto(site["url"] + "/tables/t1/corrections")
    prompt = page.locator(f'.prompt[data-ref="{site["prompt"]["ref"]}"]')
    expect(prompt).to_have_count(1)
    labels = boxes_drawn(page, ".prompt")
    read = site["prompt"]["candidates"][0]["cards"][0]
    assert labels and labels[0].startswith(card_name(read, LANG_CODE[lang])), labels
    check_fits(page, f"corrections {lang} {width}")
    shot(page, lang, width, "prompt")
    other = site["prompt"]["candidates"][1]["cards"][0]
    button = prompt.locator(f'button[data-act="candidate"][data-cards="{other}"]')
    box = button.bounding_box()
    assert box and box["height"] >= 44
    button.click()  # one tap picks the reading; the preview says what it changes
    expect(page.locator("#preview")).to_be_visible()
    page.click("#pv-confirm")
    expect(page.locator(f'.prompt[data-ref="{site["prompt"]["ref"]}"]')).to_have_count(0)
    row = page.locator(f'#plays tr[data-seq="{site["prompt"]["ref"]}"]')
    expect(row.locator(f'[data-card="{other}"]').first).to_be_visible()
    shot(page, lang, width, "prompt-answered")
    assert errors == []
    ctx.close()
