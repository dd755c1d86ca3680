"""The broadcast overlay never shows a card before its time (event time + delay), never a held
hand or the bottom before it is revealed, and only the whitelisted public fields."""

from __future__ import annotations

import json
from typing import Any

from flask import Flask

from dashboard.hub import Hub
from dashboard.users import UserStore
from tests.dashboard.conftest import Clock, match_record
from tests.dashboard.test_api import read_sse

PUBLIC_KEYS = {
    "view",  # the registry's key of the game's panels
    "panel",  # the game's own panel (Gouji: places, 够级 top, burns), as delayed as the rest
    "id",
    "seq",
    "status",
    "hand",
    "level",
    "trump",
    "seats",
    "teams",
    "attacker_points",
    "clock",  # the match clock (time left, the at-time rule that decided): public at a table
    "current_trick",
    "last_trick",
    "tricks_played",
    "bottom",
    "violations",
    "game",
    "places",
    "match",  # deals' levels after, next banker, match over: no cards
}


def shown_cards(view: dict[str, Any] | None) -> list[str]:
    if not view:
        return []
    cards: list[str] = []
    for key in ("current_trick", "last_trick"):
        for p in (view.get(key) or {}).get("plays", []):
            cards += p["cards"]
    top = (view.get("panel") or {}).get("gouji_top") or {}
    return cards + list((view.get("bottom") or {}).get("cards") or []) + list(top.get("cards", []))


def test_delayed_overlay_never_shows_a_card_early(app: Flask, hub: Hub, clock: Clock) -> None:
    token = UserStore(hub.store.data_dir).new_overlay_token("t1")
    client = app.test_client()
    delay = 30.0
    events = match_record(hands=1, inject=0)
    arrived: dict[int, float] = {}
    played_by: dict[int, list[str]] = {}
    for e in events:
        clock.now += 2.5
        hub.store.append_event("t1", e)
        hub.poll()
        arrived[e["seq"]] = clock.now
        if e["type"] in ("play", "bottom_reveal"):
            played_by[e["seq"]] = e["cards"]
        # look at the overlay at several moments: now and a little before each seq is due
        for look in (clock.now, clock.now - 1.0):
            saved = clock.now
            clock.now = look
            view = client.get(f"/overlay/t1/state?token={token}&delay={delay}").get_json()
            clock.now = saved
            due = {s for s, t in arrived.items() if t <= look - delay}
            allowed: list[str] = [c for s in sorted(due) if s in played_by for c in played_by[s]]
            for card in shown_cards(view):
                assert card in allowed, f"{card} shown at {look} before its event + {delay}s"
            if view is not None:
                assert view["seq"] <= max(due), "the overlay ran ahead of its delay"
                assert set(view) <= PUBLIC_KEYS
    # once the delay has passed, the end of the hand (with its revealed bottom) is shown
    clock.now += delay + 1
    final = client.get(f"/overlay/t1/state?token={token}&delay={delay}").get_json()
    assert final["seq"] == events[-1]["seq"] and final["bottom"]["cards"]


def test_bottom_and_hidden_state_never_reach_the_overlay(
    app: Flask, hub: Hub, clock: Clock
) -> None:
    token = UserStore(hub.store.data_dir).new_overlay_token("t1")
    client = app.test_client()
    events = match_record(hands=1, inject=0)
    reveal = next(e["seq"] for e in events if e["type"] == "bottom_reveal")
    for e in events[:reveal]:
        clock.now += 1
        hub.store.append_event("t1", e)
        hub.poll()
        view = client.get(f"/overlay/t1/state?token={token}&delay=0").get_json()
        text = json.dumps(view)
        if view.get("bottom"):
            assert view["bottom"]["cards"] is None
        for hidden in ("knowledge", "cards_seen", "engine_state", "report", "evidence", "voids"):
            assert hidden not in text


def test_overlay_floor_delay_and_stream(app: Flask, hub: Hub, clock: Clock) -> None:
    token = UserStore(hub.store.data_dir).new_overlay_token("t1")
    app.config["OVERLAY_MIN_DELAY_S"] = 10.0
    for e in match_record()[:12]:
        clock.now += 1
        hub.store.append_event("t1", e)
        hub.poll()
    client = app.test_client()
    # asking for no delay still gets the node's minimum: the view is 10 s old
    view = client.get(f"/overlay/t1/state?token={token}&delay=0").get_json()
    assert view["seq"] == 1
    page = client.get(f"/overlay/t1?token={token}&delay=0&layout=corner&widgets=score")
    html = page.get_data(as_text=True)
    # the URL cannot choose the layout or the widgets: the default until the head referee saves
    assert 'data-delay="10.0"' in html and 'data-layout="lower-third"' in html
    assert 'data-widgets="score,players,trick,last,bottom,calls"' in html
    msgs = read_sse(client, f"/overlay/t1/stream?token={token}&delay=10", {}, 1)
    assert msgs[0]["event"] == "state" and msgs[0]["id"] == "1"


def test_a_bad_or_revoked_token_puts_nothing_on_air(app: Flask, hub: Hub) -> None:
    users = UserStore(hub.store.data_dir)
    token = users.new_overlay_token("t1")
    client = app.test_client()
    for url in (
        "/overlay/t1",
        "/overlay/t1?token=nope",
        f"/overlay/t2?token={token}",
        "/overlay/t1/state?token=nope",
        "/overlay/t1/stream?token=nope",
    ):
        resp = client.get(url)
        body = resp.get_data(as_text=True)
        assert resp.status_code == 403, url
        assert "Forbidden" not in body and "token" not in body, url
        assert "<body></body>" in body or body == "", url
    users.revoke_overlay("t1")
    resp = client.get(f"/overlay/t1?token={token}")
    assert resp.status_code == 403 and "<body></body>" in resp.get_data(as_text=True)


def test_the_head_referee_stores_the_layout_with_the_link(app: Flask, hub: Hub) -> None:
    from tests.dashboard.conftest import login

    client = app.test_client()
    for e in match_record()[:5]:
        hub.store.append_event("t1", e)
    hub.poll()
    csrf = login(client, "head1")
    page = client.post("/tables/t1/overlay-token", data={"csrf_token": csrf})
    html = page.get_data(as_text=True)
    token = html.split('name="token" value="')[1].split('"')[0]
    assert 'id="overlay-layout"' in html and "lower-third|bottom" in html
    form = {"csrf_token": csrf, "token": token, "pl": "sidebar|left", "widgets": ["score", "calls"]}
    saved = client.post("/overlay/t1/layout", data=form)
    assert saved.status_code == 200 and 'id="layout-saved"' in saved.get_data(as_text=True)
    ov = client.get(f"/overlay/t1?token={token}&layout=corner").get_data(as_text=True)
    assert 'data-layout="sidebar"' in ov and 'data-position="left"' in ov
    assert 'data-widgets="score,calls"' in ov
    bad = client.post("/overlay/t1/layout", data={**form, "pl": "sidebar|top-left"})
    assert bad.status_code == 400 and "position 'top-left'" in bad.get_data(as_text=True)
    # a referee (not head) may not move the graphics
    ref = app.test_client()
    csrf_ref = login(ref, "ref1")
    assert ref.post("/overlay/t1/layout", data={**form, "csrf_token": csrf_ref}).status_code == 403
