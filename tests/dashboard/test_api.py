"""The JSON API on a desk-judged table (the real tractor referee, run by the dashboard as the
table's one judge): state, rulings and corrections re-judged by the engine and chained in the
store with who and when, and the SSE stream with resume."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from dashboard.hub import Hub
from tests.dashboard.conftest import Clock, feed, login, match_record

BURY = "1:wrong_bury_count:2:4"


@pytest.fixture
def client(app: Flask, hub: Hub, clock: Clock) -> tuple[FlaskClient, str]:
    feed(hub, "t1", match_record()[:60], clock)
    c = app.test_client()
    return c, login(c, "ref1")


def state(c: FlaskClient) -> dict[str, Any]:
    resp = c.get("/api/tables/t1/state")
    assert resp.status_code == 200
    return resp.get_json()  # type: ignore[no-any-return]


def test_tables_and_state_come_from_the_engine(client: tuple[FlaskClient, str], hub: Hub) -> None:
    c, _ = client
    tables = c.get("/api/tables").get_json()
    assert [t["id"] for t in tables] == ["t1"]
    assert tables[0]["open_violations"] == 3 and tables[0]["players"][0] == "North"
    v = state(c)
    assert v["engine"] == "engine.tractor.referee.Referee (dashboard)"
    assert v["seq"] == 59 and v["profile"] == "school-2010"
    assert {x["id"] for x in v["violations"]} >= {BURY, "1:failed_throw:1:25"}
    stored = {
        r.data["id"]
        for r in hub.store.rows(table="t1", kind="ruling")
        if r.data["kind"] == "violation"
    }
    assert {x["id"] for x in v["violations"]} == stored  # the view shows the stored rulings
    assert "report" not in v and "engine_state" not in v
    assert len(v["seats"]) == 4 and v["current_trick"] is not None
    assert v["bottom"] == {**v["bottom"], "cards": None, "count": 7}


def test_dismiss_changes_the_engine_score_and_is_audited(
    client: tuple[FlaskClient, str], hub: Hub
) -> None:
    c, csrf = client
    before = state(c)["attacker_points"]
    resp = c.post(
        "/api/tables/t1/rulings",
        json={"violation": BURY, "decision": "dismiss", "note": "camera missed a card"},
        headers={"X-CSRF-Token": csrf},
    )
    assert resp.status_code == 201, resp.get_json()
    v = resp.get_json()["state"]
    assert next(x for x in v["violations"] if x["id"] == BURY)["status"] == "dismissed"
    assert v["attacker_points"] != before
    audit = v["audit"][-1]
    assert audit["type"] == "ruling" and audit["by"] == "ref1" and audit["at"] is not None
    chained = hub.store.events("t1")[-1]
    assert chained["type"] == "ruling" and chained["ref"] == BURY
    assert chained["note"] == "camera missed a card"


def test_uphold_by_form_post(client: tuple[FlaskClient, str]) -> None:
    c, csrf = client
    resp = c.post(
        "/api/tables/t1/rulings",
        data={"violation": "1:failed_throw:1:25", "decision": "uphold", "csrf_token": csrf},
    )
    assert resp.status_code == 201
    v = state(c)
    assert next(x for x in v["violations"] if x["rule"] == "failed_throw")["status"] == "upheld"
    assert v["open_violations"] == 2


def test_bad_rulings_are_clear_errors(client: tuple[FlaskClient, str], hub: Hub) -> None:
    c, csrf = client
    h = {"X-CSRF-Token": csrf}
    bad = c.post("/api/tables/t1/rulings", json={"violation": BURY, "decision": "maybe"}, headers=h)
    assert bad.status_code == 400 and "decision" in bad.get_json()["error"]
    unknown = c.post(
        "/api/tables/t1/rulings", json={"violation": "9:x:0:1", "decision": "uphold"}, headers=h
    )
    assert unknown.status_code == 404 and "9:x:0:1" in unknown.get_json()["error"]
    assert c.post("/api/tables/nope/rulings", json={}, headers=h).status_code == 404
    assert hub.store.last_seq("t1") == 59


def test_correction_rejudges_and_moves_the_points(client: tuple[FlaskClient, str]) -> None:
    c, csrf = client
    v = state(c)
    play = next(p for p in v["plays"] if len(p["cards"]) == 1 and p["cards"][0][:-1] in "6789")
    total = sum(t["trick_points"] for t in v["teams"])
    fixed = "K" + play["cards"][0][-1]
    resp = c.post(
        "/api/tables/t1/corrections",
        json={"ref": play["seq"], "cards": fixed.lower(), "why": "K read as 9"},
        headers={"X-CSRF-Token": csrf},
    )
    assert resp.status_code == 201, resp.get_json()
    after = resp.get_json()["state"]
    assert sum(t["trick_points"] for t in after["teams"]) == total + 10
    assert next(p for p in after["plays"] if p["seq"] == play["seq"])["cards"] == [fixed]
    log = after["audit"][-1]
    assert (log["type"], log["ref"], log["by"], log["why"]) == (
        "correction",
        play["seq"],
        "ref1",
        "K read as 9",
    )


def test_bad_corrections_name_the_problem(client: tuple[FlaskClient, str]) -> None:
    c, csrf = client
    h = {"X-CSRF-Token": csrf}
    r = c.post("/api/tables/t1/corrections", json={"ref": 5, "cards": "5H XQ"}, headers=h)
    assert r.status_code == 400 and "position 1" in r.get_json()["error"]
    r = c.post("/api/tables/t1/corrections", json={"ref": 999, "cards": "5H"}, headers=h)
    assert r.status_code == 404 and "ref 999" in r.get_json()["error"]
    r = c.post("/api/tables/t1/corrections", json={"ref": 5}, headers=h)
    assert r.status_code == 400 and "nothing to correct" in r.get_json()["error"]
    r = c.post("/api/tables/t1/corrections", json={"ref": "five", "cards": "5H"}, headers=h)
    assert r.status_code == 400


def test_needs_referee_prompt_is_answered(
    client: tuple[FlaskClient, str], hub: Hub, clock: Clock
) -> None:
    c, csrf = client
    last = hub.store.events("t1")[-1]
    ask = {
        "v": 1,
        "seq": 60,
        "t": last["t"] + 1,
        "type": "needs_referee",
        "ref": 59,
        "candidates": [{"cards": last["cards"], "confidence": 0.6}],
        "reason": "overlap",
    }
    feed(hub, "t1", [ask], clock)
    assert [p["ref"] for p in state(c)["needs_referee"]] == [59]
    resp = c.post(
        "/api/tables/t1/rulings",
        json={"ref": "seq:59", "decision": "upheld"},
        headers={"X-CSRF-Token": csrf},
    )
    assert resp.status_code == 201
    assert state(c)["needs_referee"] == []


def test_calibration_is_saved_and_chained(client: tuple[FlaskClient, str], hub: Hub) -> None:
    c, csrf = client
    pts = [[10, 12], [620, 15], [630, 470], [8, 460]]
    r = c.post("/api/tables/t1/calibration", json={"points": pts}, headers={"X-CSRF-Token": csrf})
    assert r.status_code == 201
    assert (
        json.loads((hub.store.data_dir / "live/t1/calibration.json").read_text())["points"] == pts
    )
    action = hub.store.rows(kind="action")[-1].data
    assert action["action"] == "calibration" and action["by"] == "ref1"
    r = c.post(
        "/api/tables/t1/calibration", json={"points": [[1, 2]]}, headers={"X-CSRF-Token": csrf}
    )
    assert r.status_code == 400


def test_engine_rulings_are_chained_in_the_store(client: tuple[FlaskClient, str], hub: Hub) -> None:
    rules = [r.data.get("rule") for r in hub.store.rows(kind="ruling")]
    assert "wrong_bury_count" in rules and "failed_throw" in rules


def read_sse(
    c: FlaskClient, url: str, headers: dict[str, str], messages: int
) -> list[dict[str, Any]]:
    """Read ``messages`` SSE messages (comments included as {'comment': ...})."""
    resp = c.get(url, headers=headers, buffered=False)
    assert resp.status_code == 200 and resp.mimetype == "text/event-stream"
    out: list[dict[str, Any]] = []
    buf = ""
    chunks = resp.response  # type: ignore[attr-defined]
    for chunk in chunks:
        buf += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buf:
            block, buf = buf.split("\n\n", 1)
            msg: dict[str, Any] = {}
            for line in block.splitlines():
                key, _, value = line.partition(":")
                msg[key or "comment"] = value.strip()
            if "retry" not in msg:
                out.append(msg)
        if len(out) >= messages:
            break
    resp.close()
    return out


def test_stream_sends_state_with_seq_id_and_resumes(client: tuple[FlaskClient, str]) -> None:
    c, _ = client
    first = read_sse(c, "/api/tables/t1/stream", {}, 2)
    assert first[0]["event"] == "state" and first[0]["id"] == "59"
    assert json.loads(first[0]["data"])["seq"] == 59
    assert first[1] == {"comment": "ping"}  # nothing new: a keep-alive
    resumed = read_sse(c, "/api/tables/t1/stream", {"Last-Event-ID": "56"}, 4)
    assert [(m["event"], m["id"]) for m in resumed] == [
        ("record", "57"),
        ("record", "58"),
        ("record", "59"),
        ("state", "59"),
    ]
    assert json.loads(resumed[0]["data"])["seq"] == 57


def test_a_gouji_table_shows_the_gouji_engine(app: Flask, hub: Hub, clock: Clock) -> None:
    from engine.gouji.sim import simulate as gouji_sim

    events, truth = gouji_sim("gouji-core", 3, inject=2)
    feed(hub, "g1", events[:120], clock)
    c = app.test_client()
    login(c, "view1")
    v = c.get("/api/tables/g1/state").get_json()
    assert v["engine"] == "engine.gouji.referee.GoujiReferee (dashboard)"
    assert len(v["seats"]) == 6 and v["seats"][0]["cards_left"] is not None
    assert v["current_trick"]["plays"] and v["tricks"]
    ids = [x["id"] for x in v["violations"]]
    assert len(ids) == len(set(ids)) == 2
    assert {(x["rule"], x["at_seq"]) for x in v["violations"]} == {
        (i["rule"], i["at_seq"]) for i in truth["violations"]
    }


def test_referee_enters_a_violation_the_camera_cannot_see(client: tuple[FlaskClient, str]) -> None:
    c, csrf = client
    h = {"X-CSRF-Token": csrf}
    resp = c.post(
        "/api/tables/t1/violations",
        json={"seat": 1, "rule": "talking", "note": "told partner to lead hearts", "at": 30},
        headers=h,
    )
    assert resp.status_code == 201, resp.get_json()
    v = resp.get_json()["state"]
    entered = next(x for x in v["violations"] if x["rule"] == "talking")
    assert entered["seat"] == 1 and entered["how"] == "referee" and entered["status"] == "open"
    assert v["audit"][-1]["type"] == "violation" and v["audit"][-1]["by"] == "ref1"
    bad = c.post("/api/tables/t1/violations", json={"seat": 1, "rule": "Bad Rule"}, headers=h)
    assert bad.status_code == 400 and "rule" in bad.get_json()["error"]
    assert (
        c.post(
            "/api/tables/t1/violations", json={"seat": 9, "rule": "talking"}, headers=h
        ).status_code
        == 400
    )


def test_export_downloads_a_bundle_that_verifies(
    client: tuple[FlaskClient, str], tmp_path: Path
) -> None:
    from evidence.verify import verify_bundle

    c, _ = client
    resp = c.get("/api/tables/t1/export?hand=1")
    assert resp.status_code == 200 and resp.mimetype == "application/zip"
    assert "t1-hand1-evidence.zip" in resp.headers["Content-Disposition"]
    (tmp_path / "b.zip").write_bytes(resp.data)
    report = verify_bundle(tmp_path / "b.zip")
    assert report.ok and report.rows >= 60, report.summary()
    assert c.get("/api/tables/t1/export?hand=7").status_code == 404


def test_a_second_match_on_a_table_starts_a_fresh_view(app: Flask, hub: Hub, clock: Clock) -> None:
    first = match_record()
    feed(hub, "t1", first, clock)
    second = match_record(seed=4)
    offset = first[-1]["seq"] + 1
    feed(hub, "t1", [{**e, "seq": e["seq"] + offset} for e in second[:12]], clock)
    v = hub.tables["t1"].view
    assert v["hand"] == 1 and v["seq"] == offset + 11
    assert all(p["seq"] >= offset for p in v["plays"])
    assert all(x["at_seq"] >= offset for x in v["violations"])


JSON_POSTS = (
    "/api/tables/t1/rulings",
    "/api/tables/t1/match",
    "/api/tables/t1/corrections",
    "/api/tables/t1/violations",
    "/api/tables/t1/calibration",
    "/api/tables/t1/corrections/preview",
    "/api/tables/t1/corrections/5/undo",
)


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        (b"[" * 30_000 + b"]" * 30_000, "request body: nested 30000 deep (at most 64)"),
        (b'{"ref": ' + b"9" * 60_000 + b"}", "request body: a number with 60000 digits"),
        (b'{"ref": 5, "cards": "\\ud800"}', "request body: a lone surrogate '\\ud800'"),
    ],
)
def test_every_json_endpoint_refuses_a_poison_body_with_a_clear_400(
    client: tuple[FlaskClient, str], body: bytes, problem: str
) -> None:
    """Before: the 30k-deep body was a 500 (RecursionError out of get_json), the others were
    read as an empty body (or a 500 later)."""
    c, token = client
    headers = {"X-CSRF-Token": token, "Content-Type": "application/json"}
    for path in JSON_POSTS:
        r = c.post(path, data=body, headers=headers)
        assert r.status_code == 400, (path, r.status_code)
        assert r.get_json()["error"].startswith(problem), (path, r.get_json())
    # over the body limit (100k deep, 100,000 digits): a 413, as one JSON line too
    for big in (b"[" * 100_000 + b"]" * 100_000, b'{"ref": ' + b"9" * 100_000 + b"}"):
        r = c.post("/api/tables/t1/corrections", data=big, headers=headers)
        assert r.status_code == 413 and "Request Entity Too Large" in r.get_json()["error"]
    # a stream's Last-Event-ID of 100,000 digits is ignored, not a 500
    r = c.get("/api/tables/t1/stream", headers={"Last-Event-ID": "9" * 100_000}, buffered=False)
    assert r.status_code == 200
    r.close()


def test_dismissing_needs_a_note(client: tuple[FlaskClient, str]) -> None:
    """A dismissal clears a player: the record must say why; in the page's language."""
    c, csrf = client
    for lang, words in (("zh-CN", "驳回需要"), ("en", "Dismissing needs a note")):
        resp = c.post(
            "/api/tables/t1/rulings",
            json={"violation": BURY, "decision": "dismiss", "note": "  "},
            headers={"X-CSRF-Token": csrf, "Accept-Language": lang},
        )
        assert resp.status_code == 400 and words in resp.get_json()["error"], resp.get_json()


def test_the_nodes_own_correction_reason_reaches_a_chinese_page_in_chinese(
    client: tuple[FlaskClient, str], hub: Hub
) -> None:
    c, _ = client
    play = next(e for e in match_record()[:60] if e["type"] == "play")
    why = f"{play['cards'][0]} read twice"
    fix = {"v": 1, "type": "correction", "by": "camera", "ref": play["seq"], "why": why}
    hub.store.append_event("t1", {**fix, "cards": play["cards"], "seq": 60, "t": 99.0})
    hub.poll()
    row = state(c)["audit"][-1]
    assert row["why"] == why  # the record keeps its English
    assert row["why_zh"] and "read" not in row["why_zh"] and "两次" in row["why_zh"]
