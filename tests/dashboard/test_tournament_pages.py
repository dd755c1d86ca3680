"""The tournament desk in real Chromium at 390 and 1440 px, in Chinese and English: the
overview (format, entrants, draw, standings with their tie-break reasons, the bracket) and a
round's pairings where a referee confirms a table's provisional result with one tap; the A4
sheets printed by Chromium and rendered back with pdftoppm."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient
from playwright.sync_api import Browser

from dashboard.app import create_app
from dashboard.hub import Hub
from dashboard.users import UserStore
from evidence import EvidenceStore
from evidence.tournament import TournamentStore
from tests.dashboard.browser import SCREENS, LiveServer
from tests.dashboard.conftest import FAST_HASH, PASSWORD, login
from tests.dashboard.test_screens import LANGS, check_fits

CSV = "entrant,seed\n红队,1\n蓝队,2\n绿队,3\n黄队,4\n白队,5\n"


def won(a: int, b: int) -> list[dict[str, object]]:
    return [{"winner": "a" if a > b else "b", "a_points": a, "b_points": b}]


def seed_tournament(data: Path) -> TournamentStore:
    """community-10ka, five pairs: round 1 (one match, three byes) confirmed, round 2 drawn
    with one result in from its table and one still open."""
    users = UserStore(data)
    users.add("head1", "head", PASSWORD, n=FAST_HASH)
    users.add("ref1", "referee", PASSWORD, n=FAST_HASH)
    users.close()
    t = TournamentStore(data)
    t.setup("community-10ka", "社区八十分赛", by="head1")
    t.import_entrants(CSV, by="head1")
    (p,) = t.draw(1, 1, seed=11, by="head1")
    t.record_result(p.id, won(12, 4), source="t1", by="node")
    t.confirm_result(p.id, by="ref1")
    r2 = t.draw(1, 2, seed=11, by="head1")
    t.record_result(r2[0].id, won(12, 9), source=r2[0].tables[0], by="node")
    return t


@pytest.fixture
def site(tmp_path: Path) -> Iterator[dict[str, Any]]:
    t = seed_tournament(tmp_path)
    store = EvidenceStore(tmp_path, durable=False)
    hub = Hub(store, poll_s=0.05)
    app = create_app(tmp_path, hub=hub, SSE_PING_S=2.0)
    server = LiveServer(app)
    yield {"url": server.url, "tournament": t, "app": app}
    hub.stop()
    server.close()
    store.close()


@pytest.mark.parametrize("lang", list(LANGS))
@pytest.mark.parametrize("width", (390, 1440))
def test_the_desk_runs_a_round(
    site: dict[str, Any], browser: Browser, lang: str, width: int
) -> None:
    ctx = browser.new_context(
        viewport={"width": width, "height": 900},
        locale=lang,
        extra_http_headers={"Accept-Language": LANGS[lang]},
        has_touch=width < 1000,
    )
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    url = site["url"]
    page.goto(url + "/login")
    page.fill("input[name=username]", "ref1")
    page.fill("input[name=password]", PASSWORD)
    page.click("form:not(.lang-switch) button[type=submit]")
    page.wait_for_url(url + "/")
    page.click("#nav-tournament")
    page.wait_for_selector("#standings")
    assert page.get_attribute("html", "lang") == lang
    body = page.inner_text("main").lower()  # the section titles are upper-cased by CSS
    zh = lang == "zh-CN"
    assert ("名次" if zh else "standings") in body
    assert ("淘汰赛对阵图" if zh else "knock-out bracket") in body
    reasons = page.locator("#standings td.why").all_inner_texts()
    assert any(("按累计局分列" if zh else "on accumulated game points") in r for r in reasons), (
        reasons
    )
    log = page.inner_text("#log")
    assert "ref1" in log and ("成绩已确认" if zh else "result confirmed") in log
    assert page.locator("#live").is_hidden()  # no stream here: no "connecting…"
    check_fits(page, f"{lang} {width} tournament")
    page.screenshot(path=str(SCREENS / f"{lang}-{width}-tournament.png"), full_page=True)
    page.click("ul.rounds li:last-child a")
    pairing = site["tournament"].pairings(1, 2)[0]
    button = page.locator(f"#confirm-{pairing.id}")
    button.wait_for()  # the round's page is loading: the click does not wait for it
    box = button.bounding_box()
    assert box is not None and box["height"] >= 44
    check_fits(page, f"{lang} {width} round")
    page.screenshot(path=str(SCREENS / f"{lang}-{width}-tournament-round.png"), full_page=True)
    button.click()
    page.wait_for_selector(f"#pairing-{pairing.id} .status.confirmed")
    assert site["tournament"].pairing(pairing.id).status == "confirmed"
    assert site["tournament"].audit()[-1].by == "ref1"
    assert not errors
    ctx.close()


def head_client(site: dict[str, Any]) -> FlaskClient:
    client = site["app"].test_client()
    login(client, "head1")
    return client


def test_the_a4_sheets_render(site: dict[str, Any], tmp_path: Path) -> None:
    client = head_client(site)
    for path in (
        "/tournament/rounds/1/2/pairings.pdf",
        "/tournament/rounds/1/2/scoresheets.pdf",
        "/tournament/standings.pdf",
    ):
        resp = client.get(path)
        assert resp.status_code == 200 and resp.mimetype == "application/pdf", path
        pdf = tmp_path / "sheet.pdf"
        pdf.write_bytes(resp.data)
        info = subprocess.run(
            ["pdfinfo", str(pdf)], capture_output=True, text=True, check=True
        ).stdout
        assert re.search(r"Page size:\s+59[45]\.\d+ x 84[12]\.\d+ pts \(A4\)", info), info
        subprocess.run(["pdftoppm", "-r", "40", "-png", str(pdf), str(tmp_path / "p")], check=True)
        pngs = sorted(tmp_path.glob("p*.png"))
        assert pngs and all(p.stat().st_size > 1000 for p in pngs)
        text = subprocess.run(
            ["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True
        )
        assert "社区八十分赛" in text.stdout
        for p in pngs:
            p.unlink()
    # one score sheet a table: round 2 has two pairings
    pages = client.get("/tournament/rounds/1/2/scoresheets.pdf?html=1").get_data(as_text=True)
    assert pages.count('class="sheet"') == 2


def test_the_desk_sets_up_imports_and_draws(tmp_path: Path) -> None:
    users = UserStore(tmp_path)
    users.add("head1", "head", PASSWORD, n=FAST_HASH)
    users.add("ref1", "referee", PASSWORD, n=FAST_HASH)
    users.close()
    store = EvidenceStore(tmp_path, durable=False)
    app = create_app(tmp_path, hub=Hub(store), start_hub=False)
    client = app.test_client()
    csrf = login(client, "head1")
    assert 'value="gouji-qingdao"' in client.get("/tournament").get_data(as_text=True)
    client.post(
        "/tournament/setup", data={"csrf_token": csrf, "format": "gouji-qingdao", "name": "青岛杯"}
    )
    bad = client.post(
        "/tournament/entrants", data={"csrf_token": csrf, "csv": "team\nA\n"}, follow_redirects=True
    )
    assert "header needs an &#39;entrant&#39; column" in bad.get_data(as_text=True)
    client.post(
        "/tournament/entrants", data={"csrf_token": csrf, "csv": "entrant\n甲\n乙\n丙\n丁\n"}
    )
    resp = client.post(
        "/tournament/draw",
        data={"csrf_token": csrf, "stage": "1", "round": "1", "seed": "5", "tables": "t7,t8"},
    )
    assert resp.status_code == 302
    t = TournamentStore(tmp_path)
    assert [p.tables for p in t.pairings(1, 1)] == [("t7",), ("t8",)]
    assert t.rounds() == [(1, 1, 5)]
    # a referee may confirm but not draw
    ref = app.test_client()
    csrf2 = login(ref, "ref1")
    assert (
        ref.post(
            "/tournament/draw", data={"csrf_token": csrf2, "stage": "1", "round": "2", "seed": "5"}
        ).status_code
        == 403
    )
    store.close()


def test_the_overlay_widget_keeps_the_delay_and_the_token(tmp_path: Path, browser: Browser) -> None:
    """Standings on the stream: the table's overlay token opens them, a bad one gets the blank
    page, and a result confirmed now shows only once the delay has passed."""
    from tests.dashboard.conftest import Clock

    clock = Clock()
    t = seed_tournament(tmp_path)
    store = EvidenceStore(tmp_path, durable=False)
    app = create_app(
        tmp_path, hub=Hub(store, clock=clock), start_hub=False, OVERLAY_MIN_DELAY_S=30.0
    )
    token = UserStore(tmp_path).new_overlay_token("t1")
    client = app.test_client()
    assert client.get("/overlay/t1/tournament?token=wrong").status_code == 403
    assert client.get("/overlay/t1/tournament/state?token=wrong").status_code == 403
    # the seeded results carry the real time; the overlay's clock starts a long way before it
    clock.now = __import__("time").time() - 3600
    assert client.get(f"/overlay/t1/tournament/state?token={token}").get_json() == {}
    clock.now += 3600 + 60  # everything seeded is now more than the 30 s floor old
    view = client.get(f"/overlay/t1/tournament/state?token={token}&delay=0").get_json()
    assert view["name"] == "社区八十分赛"
    before = {s["entrant"]: s["match_points"] for s in view["standings"]}
    # round 2's provisional result is not on air; confirm it now: 30 s later it is
    (pending,) = [p for p in t.pairings(1, 2) if p.status == "provisional"]
    TournamentStore(tmp_path, clock=clock).confirm_result(pending.id, by="ref1")
    winner = pending.a
    now = client.get(f"/overlay/t1/tournament/state?token={token}&delay=0").get_json()
    assert {s["entrant"]: s["match_points"] for s in now["standings"]} == before
    clock.now += 31
    later = client.get(f"/overlay/t1/tournament/state?token={token}").get_json()
    after = {s["entrant"]: s["match_points"] for s in later["standings"]}
    assert after[winner] == str(float(before[winner]) + 1).removesuffix(".0")
    # the page itself, in Chromium, transparent, in Chinese by default and in English
    server = LiveServer(app)
    try:
        for lang, word in (("zh", "名次"), ("en", "Standings")):
            page = browser.new_page(viewport={"width": 1280, "height": 720})
            q = f"?token={token}" + ("&lang=en" if lang == "en" else "")
            page.goto(server.url + "/overlay/t1/tournament" + q)
            assert word in page.inner_text("#tw h1")
            assert page.locator("#tw-standings tr").count() == 5
            page.screenshot(path=str(SCREENS / f"{lang}-overlay-tournament.png"))
            page.goto(server.url + "/overlay/t1/tournament" + q + "&show=bracket")
            assert page.locator("#tw-bracket .m").count() >= 4
            page.close()
    finally:
        server.close()
        store.close()
