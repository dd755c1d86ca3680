"""The results page in real Chromium (both languages; 390 and 1440 px): a table's match_end
shows as its pairing's result to confirm, with the match's outcome and the clock's rule when
it decided; one tap confirms it; a correction needs its reason and is kept in the audit."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from dashboard.app import create_app
from dashboard.hub import Hub
from dashboard.users import UserStore
from evidence import EvidenceStore
from evidence.tournament import TournamentStore
from hall.simnode import append_match
from tests.dashboard.browser import SCREENS, LiveServer
from tests.dashboard.conftest import FAST_HASH, PASSWORD
from tests.dashboard.test_screens import check_fits, login, open_page

WORDS = {
    "zh-CN": ("胜本场", "待确认", "已确认", "到时判定"),
    "en": ("wins the match", "to confirm", "confirmed", "decided on time"),
}
ON_TIME = {"minutes": 60, "at_time": "extra_deal", "finish_deal": False, "by": "level",
           "detail": "the higher level wins (9)", "cite": ""}  # fmt: skip


@pytest.mark.parametrize("width", [390, 1440])
@pytest.mark.parametrize("lang", ["zh-CN", "en"])
def test_confirm_in_one_tap_and_correct_with_a_reason(
    tmp_path: Path, browser: Browser, lang: str, width: int
) -> None:
    wins, to_confirm, confirmed, on_time = WORDS[lang]
    UserStore(tmp_path).add("ref1", "referee", PASSWORD, n=FAST_HASH)
    store = EvidenceStore(tmp_path, durable=False)
    ts = TournamentStore(tmp_path)
    ts.setup("xize-1h", "cup", by="org")  # 「若同级则加赛一盘」: the table's jiawang-like clock
    ts.import_entrants("entrant,seed\n队1,1\n队2,2\n队3,3\n队4,4\n", by="org")
    pairs = ts.draw(1, 1, seed=5, by="org", tables=["t1", "t2"])
    p1 = next(p for p in pairs if p.tables == ("t1",))
    append_match(store, "t1", ["N", "E", "S", "W"], 1, ["5", "9"], reason="time", on_time=ON_TIME)
    server = LiveServer(create_app(tmp_path, hub=Hub(store, poll_s=0.05), start_hub=False))
    try:
        ctx, page, errors = open_page(browser, lang, width)
        login(page, server.url)
        page.goto(server.url + "/tournament/results")
        card = page.locator(f"#p-{p1.id}")
        text = card.inner_text().lower()  # the headings are set in capitals
        assert f"{p1.b} {wins}" in text or f"{p1.b}{wins}" in text, text  # team 1 is b
        assert to_confirm in text and on_time in text, text
        check_fits(page, f"results {lang} {width}")
        page.screenshot(path=str(SCREENS / f"results-{lang}-{width}.png"), full_page=True)
        card.locator("[data-confirm]").click()  # the one tap
        page.wait_for_selector(f"#p-{p1.id}[data-status=confirmed]")
        assert confirmed in page.inner_text(f"#p-{p1.id} [data-status-word]").lower()
        assert ts.pairing(p1.id).status == "confirmed"
        card = page.locator(f"#p-{p1.id}")
        card.locator("summary").click()
        form = card.locator("form[data-correct]")
        form.locator("select[name=winner1]").select_option("a")
        form.locator("input[name=a1]").fill("4")
        form.locator("input[name=b1]").fill("3")
        form.locator("input[name=reason]").fill("seat names swapped at the table")
        form.locator("button[type=submit]").click()
        page.wait_for_selector(f"#p-{p1.id} td")
        fixed = [r for r in ts.audit() if r.kind == "correct"]
        assert [(r.by, r.data["reason"]) for r in fixed] == [
            ("ref1", "seat names swapped at the table")
        ]
        assert fixed[0].data["before"] == [{"winner": "b", "a_points": 3, "b_points": 7}]
        assert ts.pairing(p1.id).games[0].winner == "a"
        assert errors == []
        ctx.close()
    finally:
        server.close()
        ts.close()
        store.close()


def test_results_arrive_while_nobody_looks(tmp_path: Path) -> None:
    """The dashboard's feed thread records a table's match_end with no page open."""
    store = EvidenceStore(tmp_path, durable=False)
    ts = TournamentStore(tmp_path)
    ts.setup("xize-1h", "cup", by="org")
    ts.import_entrants("entrant,seed\n队1,1\n队2,2\n", by="org")
    (p,) = ts.draw(1, 1, seed=5, by="org", tables=["t1"])
    hub = Hub(store, poll_s=0.05)
    create_app(tmp_path, hub=hub, RESULTS_POLL_S=0.1)  # start_hub: the hub and the feed run
    try:
        append_match(store, "t1", ["N", "E", "S", "W"], 0, ["A", "4"])
        deadline = time.monotonic() + 20
        while ts.pairing(p.id).status != "provisional":
            assert time.monotonic() < deadline, "the feed did not record the result"
            time.sleep(0.1)
        assert ts.pairing(p.id).source == "t1#3"
    finally:
        hub.stop()
        time.sleep(0.3)  # the feed thread sees the hub stopped before the stores close
        ts.close()
        store.close()
