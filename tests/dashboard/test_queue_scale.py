"""The violation queue scales: 17 flags over three hands are grouped by hand, a decided flag
folds to its one summary line, and a rule or a state filters the queue. Real Chromium at 390
and 1440 px, both languages; the page height with 12 of the 17 decided is printed (before:
16,600 px at 1440 for 18 flags, every one unfolded)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from dashboard.app import create_app
from dashboard.desk import register
from dashboard.hub import Hub
from dashboard.users import UserStore
from engine.tractor.record_sim import simulate
from engine.tractor.rules import Rules
from evidence import EvidenceStore
from tests.dashboard.browser import SCREENS, LiveServer
from tests.dashboard.conftest import FAST_HASH, PASSWORD
from tests.dashboard.test_screens import login, open_page

RECORD = simulate(Rules.load("school-2010"), seed=2, hands=3, inject=18)[0]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    data = tmp_path_factory.mktemp("queue")
    users = UserStore(data)
    users.add("ref1", "referee", PASSWORD, n=FAST_HASH)
    users.close()
    store = EvidenceStore(data, durable=False)
    register(store, "t1", by="test")
    for e in RECORD:
        store.append_event("t1", e)
    hub = Hub(store, poll_s=0.02)
    hub.poll()
    for v in hub.tables["t1"].view["violations"][:12]:  # most of them decided
        hub.append("t1", {"type": "ruling", "ref": v["id"], "decision": "upheld", "by": "ref1"})
    server = LiveServer(create_app(data, hub=hub, SSE_PING_S=2.0))
    yield {"url": server.url, "hub": hub}
    hub.stop()
    server.close()
    store.close()


@pytest.mark.parametrize("width", [390, 1440])
@pytest.mark.parametrize("lang", ["zh-CN", "en"])
def test_the_queue_groups_folds_and_filters(
    site: dict[str, Any], browser: Browser, lang: str, width: int
) -> None:
    ctx, page, errors = open_page(browser, lang, width)
    try:
        login(page, site["url"])
        page.goto(site["url"] + "/tables/t1/violations")
        page.wait_for_selector(".viol")
        views = site["hub"].tables["t1"].view["violations"]
        total = len(views)
        assert total >= 15
        assert page.locator(".viol").count() == total
        hands = sorted({v["hand"] for v in views})
        assert page.locator("h2.queue-hand").count() == len(hands)
        assert page.locator("details.viol[open]").count() == total - 12
        height = page.evaluate("document.documentElement.scrollHeight")
        print(f"queue of {total} ({total - 12} open) at {width} px, {lang}: {height} px tall")
        page.screenshot(path=str(SCREENS / f"{lang}-{width}-queue.png"), full_page=True)
        page.select_option("#queue-filter select[name=state]", "open")
        expect(page.locator(".viol")).to_have_count(total - 12)
        page.select_option("#queue-filter select[name=state]", "")
        rule = views[0]["rule"]
        page.select_option("#queue-filter select[name=rule]", rule)
        expect(page.locator(".viol")).to_have_count(sum(v["rule"] == rule for v in views))
        assert page.locator(f'.viol .rule:not([data-rule="{rule}"])').count() == 0
        assert not errors, errors
    finally:
        ctx.close()
