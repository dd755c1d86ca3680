"""One violation queue across the hall: ``GET /api/violations`` gathers every table's open
violations and camera prompts from the hub, newest first, each with its table and hall link;
the ``/violations`` page shows them in real Chromium (both languages, phone and desk widths,
no horizontal scroll) and follows the hall stream."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from playwright.sync_api import Browser

from dashboard.app import create_app
from dashboard.desk import register
from dashboard.hub import DecisionWaiting, Hub
from dashboard.users import UserStore
from evidence import EvidenceStore
from tests.dashboard.browser import SCREENS, LiveServer
from tests.dashboard.conftest import FAST_HASH, PASSWORD, Clock, feed, login, match_record
from tests.dashboard.test_screens import _prompt_event, check_fits, open_page
from tests.dashboard.test_screens import login as browser_login

T1 = match_record()[:40]  # wrong bury count at 4, failed throw at 25, wrong count at 26
T2 = match_record(seed=5)[:30]


class LinkHub(Hub):
    """A hub whose summary marks table t2 the way the desk's hub does (``link``); with
    ``hold`` set it keeps a ruling the way the desk's hub does while the table has not taken
    it (``waiting``; the desk itself: tests/hall/test_decision_waiting.py)."""

    link = "late"
    hold = False

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.held: dict[str, dict[str, Any]] = {}

    def append(self, tid: str, event: Mapping[str, Any]) -> int:
        if not self.hold or event.get("type") != "ruling":
            return super().append(tid, event)
        ref = str(event.get("ref"))
        if ref in self.held:
            raise DecisionWaiting(ref, str(self.held[ref]["decision"]))
        self.held[ref] = {**event, "at": 1_000_000.0}
        return -1

    def waiting(self, tid: str) -> dict[str, dict[str, Any]]:
        return dict(self.held) if tid == "t2" else {}

    def summary(self) -> list[dict[str, Any]]:
        out = super().summary()
        for entry in out:
            entry["link"] = self.link if entry["id"] == "t2" else "online"
        return out


@pytest.fixture
def hall(data: Path, store: EvidenceStore, clock: Clock) -> tuple[FlaskClient, str, LinkHub]:
    hub = LinkHub(store, clock=clock)
    feed(hub, "t1", T1, clock)
    feed(hub, "t2", T2, clock)
    clock.now += 1.0
    store.append_event("t2", _prompt_event(T2))
    hub.poll()
    app = create_app(data, hub=hub, start_hub=False)
    c = app.test_client()
    return c, login(c), hub


def test_the_hall_queue_lists_both_tables_newest_first(
    hall: tuple[FlaskClient, str, LinkHub],
) -> None:
    c, csrf, hub = hall
    items = c.get("/api/violations").get_json()
    views = {tid: hub.tables[tid].view for tid in ("t1", "t2")}
    for tid, v in views.items():  # every open violation of each table, nothing else
        want = {x["id"] for x in v["violations"] if x["status"] == "open"}
        got = {x["id"] for x in items if x["table"] == tid and x["kind"] == "violation"}
        assert got == want and want, tid
    prompt = _prompt_event(T2)
    assert items[0]["kind"] == "needs_referee" and items[0]["table"] == "t2"  # stored last
    assert items[0]["id"] == f"seq:{prompt['ref']}" and items[0]["reason"] == "low_confidence"
    times = [x["at"] for x in items]
    assert times == sorted(times, reverse=True)
    assert {x["link"] for x in items if x["table"] == "t2"} == {"late"}
    assert {x["link"] for x in items if x["table"] == "t1"} == {"online"}
    assert {x["url"] for x in items} == {"/tables/t1/violations", "/tables/t2/violations"}
    bury = next(x for x in items if x["id"] == "1:wrong_bury_count:2:4")
    assert bury["table"] == "t1" and bury["seat_name"] == "South" and bury["seq"] == 4
    assert bury["penalty"]["points"] == 80

    # ruled at the table's queue: gone from the hall's; the prompt settled: gone too
    resp = c.post(
        "/api/tables/t1/rulings",
        json={"violation": bury["id"], "decision": "dismiss", "note": "camera missed a card"},
        headers={"X-CSRF-Token": csrf},
    )
    assert resp.status_code == 201, resp.get_json()
    resp = c.post(
        "/api/tables/t2/rulings",
        json={"ref": items[0]["id"], "decision": "upheld"},
        headers={"X-CSRF-Token": csrf},
    )
    assert resp.status_code == 201, resp.get_json()
    after = {x["id"] for x in c.get("/api/violations").get_json()}
    assert after == {x["id"] for x in items} - {bury["id"], items[0]["id"]}


def test_the_hall_queue_needs_a_login(hall: tuple[FlaskClient, str, LinkHub]) -> None:
    c, _csrf, _hub = hall
    assert c.get("/violations").status_code == 200
    c.post("/logout", data={"csrf_token": _csrf})
    assert c.get("/api/violations").status_code == 401
    assert c.get("/violations").status_code in (302, 401)


# ---------------------------------------------------------------- in real Chromium


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    data = tmp_path_factory.mktemp("hallq")
    users = UserStore(data)
    users.add("ref1", "referee", PASSWORD, n=FAST_HASH)
    users.close()
    store = EvidenceStore(data, durable=False)
    for tid, record in (("t1", T1), ("t2", T2)):
        register(store, tid, by="test")
        for e in record:
            store.append_event(tid, e)
    store.append_event("t2", _prompt_event(T2))
    hub = LinkHub(store, poll_s=0.02)
    server = LiveServer(create_app(data, hub=hub, SSE_PING_S=2.0))
    yield {"server": server, "hub": hub, "store": store}
    hub.stop()
    server.close()
    store.close()


WORDS = {
    "zh-CN": {"title": "全场违规", "late": "延迟", "bury": "扣底张数错误", "rule": "裁决"},
    "en": {
        "title": "Hall violations",
        "late": "late",
        "bury": "Wrong bury count",
        "rule": "Rule it",
    },
}


@pytest.mark.parametrize("lang", list(WORDS))
@pytest.mark.parametrize("width", [390, 1440])
def test_the_hall_queue_page_shows_every_table(
    site: dict[str, Any], browser: Browser, lang: str, width: int
) -> None:
    url, words = site["server"].url, WORDS[lang]
    ctx, page, errors = open_page(browser, lang, width)
    browser_login(page, url)
    page.click("#hall-queue-link")  # from the hall page
    page.wait_for_selector('.hq-item[data-table="t2"][data-kind="needs_referee"]')
    page.wait_for_selector('.hq-item[data-table="t1"][data-kind="violation"]')
    assert page.get_attribute("html", "lang") == lang
    assert page.get_attribute("#nav-hall-queue", "class") == "on"
    assert words["title"] in page.inner_text("h1")
    first = page.locator(".hq-item").first
    assert first.get_attribute("data-table") == "t2"  # the newest: t2's prompt
    assert words["late"] in first.inner_text()  # t2 is late at the desk
    t1 = page.locator('.hq-item[data-table="t1"][data-kind="violation"]')
    assert t1.count() == 3 and words["late"] not in t1.first.inner_text()
    assert words["bury"] in page.inner_text('.hq-item[data-id="1:wrong_bury_count:2:4"]')
    check_fits(page, f"hall queue {lang} {width}")
    page.screenshot(path=str(SCREENS / f"{lang}-{width}-hall_violations.png"), full_page=True)
    link = page.locator('.hq-item[data-id="1:wrong_bury_count:2:4"] a.hq-rule')
    assert words["rule"] in link.inner_text()
    link.click()  # to the table's own queue, where it is ruled
    page.wait_for_url(url + "/tables/t1/violations")
    page.wait_for_selector('.viol[data-violation="1:wrong_bury_count:2:4"]')
    ctx.close()
    assert errors == []


def test_the_hall_queue_follows_the_hall(site: dict[str, Any], browser: Browser) -> None:
    """A new prompt at one table shows without a reload (the hall stream drives the page)."""
    url = site["server"].url
    ctx, page, errors = open_page(browser, "en", 1440)
    browser_login(page, url)
    page.click("#nav-hall-queue")  # from the top bar
    page.wait_for_selector(".hq-item")
    assert page.locator('.hq-item[data-table="t1"][data-kind="needs_referee"]').count() == 0
    site["store"].append_event("t1", _prompt_event(T1))
    page.wait_for_selector('.hq-item[data-table="t1"][data-kind="needs_referee"]', timeout=4000)
    assert page.locator(".hq-item").first.get_attribute("data-table") == "t1"  # newest first
    ctx.close()
    assert errors == []


RULE = {
    "zh-CN": {"uphold": "维持", "dismiss": "驳回", "sent": "已发出，等待本桌确认"},
    "en": {"uphold": "Uphold", "dismiss": "Dismiss", "sent": "Sent, waiting for the table"},
}


@pytest.mark.parametrize("lang", list(RULE))
@pytest.mark.parametrize("width", [390, 1440])
def test_the_hall_queue_rules_in_place(
    site: dict[str, Any], browser: Browser, lang: str, width: int
) -> None:
    """Uphold with a note on the hall queue itself: while the table has not taken it the row
    says "sent, waiting for the table" (no buttons); once taken, the row is gone."""
    url, words, hub = site["server"].url, RULE[lang], site["hub"]
    ctx, page, errors = open_page(browser, lang, width)
    browser_login(page, url)
    page.goto(url + "/violations")
    row = page.locator('.hq-item[data-table="t2"][data-kind="violation"]').first
    row.wait_for()
    vid = row.get_attribute("data-id")
    row = page.locator(f'.hq-item[data-table="t2"][data-id="{vid}"]')
    assert row.locator("a.hq-rule").count() == 1  # the link to the table's queue stays
    hub.hold, hub.held = True, {}
    try:
        row.locator("textarea").fill(f"seen on camera {lang} {width}")
        row.locator("button[data-act=upheld]").click()
        row.locator(".hq-waiting").wait_for()
        assert words["sent"] in row.inner_text()
        assert f"seen on camera {lang} {width}" in row.inner_text()
        assert row.locator("button[data-act]").count() == 0  # it waits; nothing to click twice
        assert hub.held[vid]["decision"] == "upheld" and hub.held[vid]["by"] == "ref1"
        check_fits(page, f"hall queue waiting {lang} {width}")
        page.screenshot(
            path=str(SCREENS / f"{lang}-{width}-hall_violations-waiting.png"), full_page=True
        )
    finally:
        hub.hold, hub.held = False, {}
    if (lang, width) == ("en", 1440):  # taken at once (no desk between): the row goes
        page.reload()
        row.locator("textarea").fill("camera missed a card")
        row.locator("button[data-act=dismissed]").click()
        row.wait_for(state="detached")
        ruled = [e for e in site["store"].events("t2") if e["type"] == "ruling"]
        assert (ruled[-1]["ref"], ruled[-1]["decision"]) == (vid, "dismissed")
        assert ruled[-1]["note"] == "camera missed a card"
    ctx.close()
    assert errors == []


@pytest.mark.parametrize("lang", list(RULE))
@pytest.mark.parametrize("width", [390, 1440])
def test_the_tables_queue_shows_a_waiting_ruling(
    site: dict[str, Any], browser: Browser, lang: str, width: int
) -> None:
    """On the table's own queue at the desk too: a ruling the table has not taken shows as
    "sent, waiting for the table" in place of the buttons, after a reload as well."""
    url, words, hub = site["server"].url, RULE[lang], site["hub"]
    ctx, page, errors = open_page(browser, lang, width)
    browser_login(page, url)
    page.goto(url + "/tables/t2/violations")
    flag = page.locator(".viol", has=page.locator("button[data-act=upheld]")).first
    flag.wait_for()
    vid = flag.get_attribute("data-violation")
    flag = page.locator(f'.viol[data-violation="{vid}"]')
    hub.hold, hub.held = True, {}
    try:
        flag.locator("textarea").fill("seen on camera")
        flag.locator("button[data-act=upheld]").click()
        flag.locator(".hq-waiting").wait_for()
        assert words["sent"] in flag.inner_text()
        assert flag.locator("button[data-act]").count() == 0
        page.reload()
        flag.locator(".hq-waiting").wait_for()
        check_fits(page, f"table queue waiting {lang} {width}")
        page.screenshot(
            path=str(SCREENS / f"{lang}-{width}-violations-waiting.png"), full_page=True
        )
    finally:
        hub.hold, hub.held = False, {}
    ctx.close()
    assert errors == []
