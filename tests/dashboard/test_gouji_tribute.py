"""The Gouji panel's 进贡 line: the sheet's tribute rule in its words, each tribute the judge
took in (giver → receiver, cards), the tribute points it scored; and a referee enters a
tribute through ``POST /api/tables/<id>/match``: an ``exchange`` with ``what`` tribute or
return, the record's one form of a tribute."""

from __future__ import annotations

from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from dashboard.hub import Hub
from engine.record import SeqCounter
from tests.dashboard.conftest import Clock, feed, login


def gouji_start(profile: str) -> list[dict[str, Any]]:
    seq = SeqCounter()
    return [
        seq.event(
            "match_start",
            0.0,
            game="gouji",
            profile=profile,
            seats=list("abcdef"),
            teams=[[0, 2, 4], [1, 3, 5]],
            levels=["-", "-"],
        ),
        seq.event("hand_start", 1.0, hand=1, banker=0, level="-"),
    ]


def open_table(app: Flask, hub: Hub, clock: Clock, profile: str) -> tuple[FlaskClient, str]:
    feed(hub, "g1", gouji_start(profile), clock)
    c = app.test_client()
    return c, login(c, "ref1")


def enter(c: FlaskClient, csrf: str, **body: Any) -> Any:
    return c.post(
        "/api/tables/g1/match", json={"action": "tribute", **body}, headers={"X-CSRF-Token": csrf}
    )


def panel(c: FlaskClient) -> dict[str, Any]:
    v = c.get("/api/tables/g1/state").get_json()
    return dict(v["panel"]), v


def test_changshi_tribute_is_entered_shown_and_moves_the_counts(
    app: Flask, hub: Hub, clock: Clock
) -> None:
    c, csrf = open_table(app, hub, clock, "gouji-changshi")
    resp = enter(c, csrf, seat=4, to=1, cards="BJ 2s")
    assert resp.status_code == 201, resp.get_json()
    enter(c, csrf, seat=1, to=4, cards=[], count=1, kind="huan")
    p, v = panel(c)
    assert p["tribute_rule"]["mode"] == "per_card"
    assert "每进贡一张，由吃贡者得1分，进贡者不得分" in p["tribute_rule"]["quote"]
    assert [(x["from"], x["to"], x["cards"], x["back"]) for x in p["tribute"]] == [
        (4, 1, ["BJ", "2S"], False),
        (1, 4, [], True),
    ]
    assert [s["cards_left"] for s in v["seats"]] == [36, 37, 36, 36, 35, 36]  # 2 over, 1 back
    stored = [r.data for r in hub.store.rows(table="g1", kind="event")]
    jin, huan = stored[-2:]
    assert (jin["type"], jin["what"], jin["seat"], jin["to"]) == ("exchange", "tribute", 4, 1)
    assert (jin["cards"], jin["count"], jin["by"]) == (["BJ", "2S"], 2, "ref1")
    assert (huan["type"], huan["what"], huan["cards"], huan["count"]) == (
        "exchange",
        "return",
        None,
        1,
    )


def test_a_face_down_tribute_is_entered_with_its_count(app: Flask, hub: Hub, clock: Clock) -> None:
    c, csrf = open_table(app, hub, clock, "gouji-changshi")
    assert enter(c, csrf, seat=2, to=5, count=3).status_code == 201
    p, v = panel(c)
    assert [(x["from"], x["to"], x["cards"], x["count"]) for x in p["tribute"]] == [(2, 5, [], 3)]
    assert [s["cards_left"] for s in v["seats"]] == [36, 36, 33, 36, 36, 39]


def test_a_tribute_exchange_moves_the_counts_once_and_a_bought_card_not_at_all(
    app: Flask, hub: Hub, clock: Clock
) -> None:
    """The view's exchange handler leaves a tribute to the judge's ruling (one move, none when
    it is refused); a ``buy`` is a swap: both counts stay, and no tribute is shown."""
    events = gouji_start("gouji-changshi")
    seq = SeqCounter()
    seq.next_seq = len(events)
    events += [
        seq.event("exchange", 2.0, seat=0, to=3, count=1, what="buy", cards=None),
        seq.event("exchange", 3.0, seat=4, to=1, count=2, what="tribute", cards=["BJ", "2S"]),
        seq.event("exchange", 4.0, seat=4, to=4, count=1, what="tribute", cards=["AS"]),  # bad
    ]
    feed(hub, "g1", events, clock)
    c = app.test_client()
    login(c, "ref1")
    p, v = panel(c)
    assert [s["cards_left"] for s in v["seats"]] == [36, 38, 36, 36, 34, 36]
    assert [(x["from"], x["to"]) for x in p["tribute"]] == [(4, 1)]


def test_tribute_points_come_from_the_judges_score() -> None:
    from dashboard.view_gouji import GoujiPanel

    start = gouji_start("gouji-changshi")
    p = GoujiPanel(start[0])
    p.event(start[1])
    items = [[], [{"what": "进贡 ×2", "points": 2, "tribute": True}, {"what": "头科", "points": 5}]]
    p.ruling({"kind": "hand", "hand": 1, "outcome": {"scores": {"items": items}}})
    assert p.state()["tribute_points"] == [{"seat": 1, "what": "进贡 ×2", "points": 2}]


def test_a_sheet_without_tribute_shows_its_words_and_takes_none_in(
    app: Flask, hub: Hub, clock: Clock
) -> None:
    c, csrf = open_table(app, hub, clock, "gouji-kelamayi")
    assert enter(c, csrf, seat=4, to=1, cards=["BJ"]).status_code == 201
    p, v = panel(c)
    assert p["tribute_rule"] == {"mode": "none", "quote": "「不进贡,不报牌」(L238)"}
    assert p["tribute"] == []
    assert [s["cards_left"] for s in v["seats"]] == [36] * 6
    assert v["violations"] == []
    errors = [
        r.data for r in hub.store.rows(table="g1", kind="ruling") if r.data["kind"] == "error"
    ]
    assert "不进贡,不报牌" in errors[-1]["problem"]


def test_bad_tribute_bodies_are_refused(app: Flask, hub: Hub, clock: Clock) -> None:
    c, csrf = open_table(app, hub, clock, "gouji-changshi")
    assert "seat" in enter(c, csrf, to=1, cards=["BJ"]).get_json()["error"]
    assert enter(c, csrf, seat=0, to=1, cards={"a": 1}).status_code == 400
    assert enter(c, csrf, seat=0, to=1, cards=["ZZ"]).status_code == 400  # the schema's card
    assert "count" in enter(c, csrf, seat=0, to=1).get_json()["error"]  # nothing seen, no count
    assert "kind" in enter(c, csrf, seat=0, to=1, cards=["BJ"], kind="back").get_json()["error"]


def test_the_table_page_has_the_tribute_line(app: Flask, hub: Hub, clock: Clock) -> None:
    c, _ = open_table(app, hub, clock, "gouji-changshi")
    page = c.get("/tables/g1").get_data(as_text=True)
    assert 'id="gouji-tribute-rule"' in page
    zh = c.get("/tables/g1", headers={"Accept-Language": "zh-CN"}).get_data(as_text=True)
    assert "进贡" in zh


def test_a_corrected_tribute_moves_the_counts_as_corrected(
    app: Flask, hub: Hub, clock: Clock
) -> None:
    """Two cards entered, one handed over: the referee's correction re-judges the tribute and
    the counts and the panel follow what it now moves (not both)."""
    events = gouji_start("gouji-changshi")
    seq = SeqCounter()
    seq.next_seq = len(events)
    paid = seq.event("exchange", 2.0, seat=4, to=1, count=2, what="tribute", cards=["BJ", "2S"])
    fix = {"ref": paid["seq"], "cards": ["BJ"], "count": 1, "by": "ref1", "why": "one card"}
    events += [paid, seq.event("correction", 3.0, **fix)]
    feed(hub, "g1", events, clock)
    c = app.test_client()
    login(c, "ref1")
    p, v = panel(c)
    assert [s["cards_left"] for s in v["seats"]] == [36, 37, 36, 36, 35, 36]
    assert [(x["from"], x["to"], x["cards"]) for x in p["tribute"]] == [(4, 1, ["BJ"])]
