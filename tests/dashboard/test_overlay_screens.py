"""The overlay in real Chromium, as OBS shows it: composited over a rendered table frame at
1280×720 and 1920×1080 for 80-points and Gouji in each layout the head referee can choose
(screenshots under artifacts/screens/overlay-*.png); no visible text under 16 px at 1280×720;
and nothing before the broadcast delay, no card still in a hand and no violation before a
referee upheld it, in the page's DOM or its SSE stream."""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from dashboard.app import create_app
from dashboard.demo import render_frame
from dashboard.desk import register
from dashboard.hub import Hub
from dashboard.overlay import Layout, LayoutStore
from dashboard.users import UserStore, overlay_link_id
from engine.gouji.sim import simulate as gouji_sim
from evidence import EvidenceStore
from tests.dashboard.browser import CHROMIUM, CHROMIUM_ARGS, SCREENS, LiveServer
from tests.dashboard.conftest import match_record

SIZES = ((1280, 720), (1920, 1080))
LAYOUTS = (("lower-third", "bottom"), ("corner", "top-right"), ("sidebar", "left"))
TRACTOR = match_record()
GOUJI, GOUJI_TRUTH = gouji_sim("gouji-core", seed=1)
GOUJI_CUT = 218  # two seats out, a round in progress (seed 1)
TRACTOR_CUT = 60


def _feed(hub: Hub, tid: str, events: list[dict[str, Any]]) -> None:
    register(hub.store, tid, by="test")
    for e in events:
        hub.store.append_event(tid, e)
    deadline = time.monotonic() + 20
    while hub.tables.get(tid) is None or hub.tables[tid].view.get("seq") != events[-1]["seq"]:
        assert time.monotonic() < deadline, "the hub did not take the record"
        time.sleep(0.05)


def _uphold_first(hub: Hub, tid: str) -> dict[str, Any]:
    deadline = time.monotonic() + 20
    while not hub.tables[tid].view.get("violations"):
        assert time.monotonic() < deadline, "no violation was flagged"
        time.sleep(0.05)
    v = hub.tables[tid].view["violations"][0]
    hub.append(tid, {"type": "ruling", "ref": v["id"], "decision": "upheld", "by": "head1"})
    return dict(v)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    data: Path = tmp_path_factory.mktemp("onair")
    users = UserStore(data)
    store = EvidenceStore(data, durable=False)
    hub = Hub(store, poll_s=0.02)
    app = create_app(data, hub=hub, SSE_PING_S=1.0, OVERLAY_MIN_DELAY_S=0.0)
    server = LiveServer(app)
    _feed(hub, "t1", TRACTOR[:TRACTOR_CUT])
    upheld = _uphold_first(hub, "t1")
    _feed(hub, "g1", GOUJI[:GOUJI_CUT])
    layouts = LayoutStore(data)
    tokens: dict[tuple[str, str], str] = {}
    for tid in ("t1", "g1"):
        for layout, position in LAYOUTS:
            token = users.new_overlay_token(tid)
            layouts.save(overlay_link_id(token), tid, Layout(layout, position), "head1")
            tokens[(tid, layout)] = token
    SCREENS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield {
            "url": server.url,
            "hub": hub,
            "browser": browser,
            "tokens": tokens,
            "users": users,
            "upheld": upheld,
        }
        browser.close()
    hub.stop()
    server.close()
    store.close()


def _open(site: dict[str, Any], tid: str, layout: str, size: tuple[int, int], q: str = "") -> Page:
    browser: Browser = site["browser"]
    ctx = browser.new_context(viewport={"width": size[0], "height": size[1]})
    page = ctx.new_page()
    page.goto(f"{site['url']}/overlay/{tid}?token={site['tokens'][(tid, layout)]}&delay=0{q}")
    page.wait_for_selector("#ov[data-seq] [data-widget=score]")
    page.wait_for_timeout(150)  # fonts and layout settle
    return page


def _composite(page: Page, name: str, size: tuple[int, int], cards: list[str]) -> np.ndarray:
    """The page's transparent screenshot over a rendered table frame, as OBS mixes them."""
    shot = SCREENS / f"{name}.alpha.png"
    page.screenshot(path=str(shot), omit_background=True)
    rgba = cv2.imread(str(shot), cv2.IMREAD_UNCHANGED)
    shot.unlink()
    assert rgba.shape == (size[1], size[0], 4)
    frame = cv2.imdecode(
        np.frombuffer(render_frame("table camera", cards, *size), np.uint8), cv2.IMREAD_COLOR
    )
    alpha = rgba[:, :, 3:4].astype(np.float32) / 255.0
    out = (rgba[:, :, :3] * alpha + frame * (1 - alpha)).astype(np.uint8)
    cv2.imwrite(str(SCREENS / f"{name}.png"), out)
    return rgba


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("tid", ["t1", "g1"])
def test_overlay_over_a_frame_in_every_layout(site: dict[str, Any], tid: str, size: Any) -> None:
    game = "tractor" if tid == "t1" else "gouji"
    for layout, _pos in LAYOUTS:
        page = _open(site, tid, layout, size)
        text = page.inner_text("#ov")
        names = [s["name"] for s in site["hub"].tables[tid].view["seats"]]
        assert sum(n in text for n in names) >= len(names) - 1, text  # the players by name
        if game == "gouji":
            assert "头科" in text and "ATTACKERS" not in text.upper() and "null" not in text
        else:
            assert "打 2" in text and "违例" in text  # levels, and the upheld call-out
        rgba = _composite(page, f"overlay-{game}-{layout}-{size[0]}x{size[1]}", size, ["AS", "KH"])
        drawn = np.count_nonzero(rgba[:, :, 3])
        assert 0.01 * rgba.shape[0] * rgba.shape[1] < drawn < 0.6 * rgba.shape[0] * rgba.shape[1]
        page.context.close()


SMALL_TEXT = """() => {
  const small = [];
  const walk = document.createTreeWalker(document.getElementById("ov"), NodeFilter.SHOW_TEXT);
  while (walk.nextNode()) {
    const node = walk.currentNode, el = node.parentElement;
    if (!node.textContent.trim()) continue;
    const st = getComputedStyle(el), box = el.getBoundingClientRect();
    if (st.display === "none" || st.visibility === "hidden" || box.width === 0) continue;
    if (parseFloat(st.fontSize) < 16) small.push(node.textContent.trim() + " " + st.fontSize);
  }
  return small;
}"""


@pytest.mark.parametrize("tid", ["t1", "g1"])
def test_no_visible_text_under_16px_at_720p(site: dict[str, Any], tid: str) -> None:
    for layout, _pos in LAYOUTS:
        for lang in ("", "&lang=en"):
            page = _open(site, tid, layout, (1280, 720), lang)
            assert page.evaluate(SMALL_TEXT) == [], (layout, lang)
            page.context.close()


def test_english_overlay(site: dict[str, Any]) -> None:
    page = _open(site, "t1", "lower-third", (1280, 720), "&lang=en")
    assert "level" in page.inner_text("#ov").lower()
    page.context.close()


def _sse(url: str, seconds: float) -> list[dict[str, Any]]:
    """The ``state`` events a real HTTP client receives from the overlay stream in ``seconds``."""
    out: list[dict[str, Any]] = []
    end = time.monotonic() + seconds
    with urllib.request.urlopen(url, timeout=seconds + 2) as resp:
        event = ""
        while time.monotonic() < end:
            line = resp.readline().decode()
            if line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:") and event == "state":
                out.append(json.loads(line[5:]))
    return out


def test_nothing_before_the_delay_nor_from_a_hand_in_dom_or_stream(site: dict[str, Any]) -> None:
    hub: Hub = site["hub"]
    users: UserStore = site["users"]
    token = users.new_overlay_token("g2")
    delay = 4.0
    events = GOUJI[:120]
    started = time.monotonic()
    _feed(hub, "g2", events)
    browser: Browser = site["browser"]
    page = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
    page.goto(f"{site['url']}/overlay/g2?token={token}&delay={delay}")
    stream = f"{site['url']}/overlay/g2/stream?token={token}&delay={delay}"
    early = _sse(stream, max(0.5, delay - 1.5 - (time.monotonic() - started)))
    assert early == [], "the stream sent a view before its delay"
    assert page.evaluate("document.getElementById('ov').innerHTML") == ""
    page.wait_for_selector("#ov[data-seq]", timeout=int(delay * 1000) + 8000)
    assert time.monotonic() - started >= delay
    played = [c for e in events if e["type"] == "play" for c in e["cards"]]
    shown = page.eval_on_selector_all("[data-card]", "els => els.map(e => e.dataset.card)")
    assert shown, "nothing drawn once due"
    for card in shown:  # every card drawn was played; a card still in a hand never shows
        assert played.count(card) >= shown.count(card), card
    held = [c for hand in GOUJI_TRUTH["hands"] for c in hand]
    late = [c for c in held if c not in played]
    assert late and not set(shown) & (set(late) - set(played))
    page.context.close()


def test_a_violation_shows_only_after_the_delay_once_upheld(site: dict[str, Any]) -> None:
    hub: Hub = site["hub"]
    token = site["users"].new_overlay_token("t3")
    _feed(hub, "t3", TRACTOR[:TRACTOR_CUT])
    delay = 3.0
    browser: Browser = site["browser"]
    page = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
    page.goto(f"{site['url']}/overlay/t3?token={token}&delay={delay}")
    page.wait_for_selector("#ov[data-seq] [data-widget=score]", timeout=15000)
    # flagged but not upheld: never on air, however long one waits
    page.wait_for_timeout(int(delay * 1000) + 500)
    assert page.query_selector("[data-widget=calls]") is None
    _uphold_first(hub, "t3")
    upheld_at = time.monotonic()
    page.wait_for_selector("[data-widget=calls]", timeout=15000)
    assert time.monotonic() - upheld_at >= delay - 0.2
    page.context.close()
