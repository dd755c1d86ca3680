"""Every mutating endpoint refuses without login or CSRF; viewers cannot rule; an overlay
token opens one table's overlay and can do nothing else; sessions are HttpOnly + SameSite."""

from __future__ import annotations

import argparse

import pytest
from flask import Flask

from dashboard.hub import Hub
from dashboard.users import UserStore, overlay_link_id
from tablescan.commands import serve
from tests.dashboard.conftest import PASSWORD, feed, login, match_record

API_GETS = [
    "/api/tables",
    "/api/tables/t1/state",
    "/api/tables/t1/stream",
    "/api/hall/stream",
    "/api/tables/t1/frame.jpg",
    "/api/media/abc",
    "/api/health",
]
POSTS = {
    "/api/tables/t1/rulings": {"violation": "1:wrong_bury_count:0:4", "decision": "uphold"},
    "/api/tables/t1/corrections": {"ref": 5, "cards": "KS"},
    "/api/tables/t1/calibration": {"points": [[0, 0], [9, 0], [9, 9], [0, 9]]},
    "/api/tables/t1/violations": {"seat": 1, "rule": "talking"},
}


@pytest.fixture
def live(app: Flask, hub: Hub) -> Flask:
    feed(hub, "t1", match_record()[:40])
    return app


@pytest.mark.parametrize("path", API_GETS)
def test_api_without_session_is_401(live: Flask, path: str) -> None:
    assert live.test_client().get(path).status_code == 401


@pytest.mark.parametrize("path", sorted(POSTS))
def test_api_post_without_session_is_401(live: Flask, path: str) -> None:
    client = live.test_client()
    client.get("/login")  # an anonymous session with a CSRF token is still no login
    assert client.post(path, json=POSTS[path]).status_code == 401


@pytest.mark.parametrize("path", sorted(POSTS))
def test_post_without_or_with_wrong_csrf_is_refused(live: Flask, hub: Hub, path: str) -> None:
    client = live.test_client()
    login(client, "head1")
    before = hub.store.last_seq("t1")
    assert client.post(path, json=POSTS[path]).status_code in (400, 403)
    bad = {"X-CSRF-Token": "forged"}
    assert client.post(path, json=POSTS[path], headers=bad).status_code in (400, 403)
    assert hub.store.last_seq("t1") == before
    assert live.extensions["tablescan.counters"]["csrf_refused"] == 2  # counted (health page)


def test_page_posts_need_csrf_too(live: Flask) -> None:
    client = live.test_client()
    login(client, "head1")
    assert client.post("/tables/t1/overlay-token").status_code == 400
    assert client.post("/logout").status_code == 400
    assert (
        client.post("/login", data={"username": "head1", "password": PASSWORD}).status_code == 400
    )


@pytest.mark.parametrize("path", sorted(POSTS))
def test_viewer_cannot_rule_or_correct(live: Flask, hub: Hub, path: str) -> None:
    client = live.test_client()
    token = login(client, "view1")
    assert client.get("/api/tables/t1/state").status_code == 200  # a viewer may look
    before = hub.store.last_seq("t1")
    resp = client.post(path, json=POSTS[path], headers={"X-CSRF-Token": token})
    assert resp.status_code == 403
    assert "viewer" in resp.get_json()["error"]
    assert hub.store.last_seq("t1") == before


def test_overlay_token_opens_its_overlay_and_nothing_else(live: Flask, hub: Hub) -> None:
    token = UserStore(hub.store.data_dir).new_overlay_token("t1")
    client = live.test_client()
    assert client.get(f"/overlay/t1?token={token}").status_code == 200
    assert client.get(f"/overlay/t1/state?token={token}").status_code == 200
    assert client.get("/overlay/t1/state").status_code == 403
    assert client.get(f"/overlay/t2/state?token={token}").status_code == 403
    for path in API_GETS:
        assert client.get(f"{path}?token={token}").status_code == 401
    for path, body in POSTS.items():
        resp = client.post(f"{path}?token={token}", json=body, headers={"X-CSRF-Token": token})
        assert resp.status_code == 401
    assert client.post(f"/overlay/t1?token={token}").status_code in (400, 405)


def test_session_cookie_is_httponly_and_samesite(live: Flask) -> None:
    client = live.test_client()
    resp = client.get("/login")
    cookie = resp.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert "script-src 'self'" in resp.headers["Content-Security-Policy"]


def test_wrong_password_and_lockout(live: Flask) -> None:
    client = live.test_client()
    page = client.get("/login").get_data(as_text=True)
    token = page.split('name="csrf_token" value="')[1].split('"')[0]
    for _ in range(5):
        resp = client.post(
            "/login", data={"username": "ref1", "password": "nope-nope", "csrf_token": token}
        )
        assert resp.status_code == 401
    resp = client.post(
        "/login",
        data={"username": "ref1", "password": PASSWORD, "csrf_token": token},
        headers={"Accept-Language": "en"},
    )
    # the sixth try, even with the right password, waits out a back-off (1 s, then 2, 4 ...)
    assert resp.status_code == 429 and "Too many failed attempts" in resp.get_data(as_text=True)
    assert resp.headers["Retry-After"] == "1"
    assert client.get("/api/tables").status_code == 401


def test_strangers_guesses_never_lock_out_a_client_that_made_none(live: Flask) -> None:
    """Before: 1,000 bad guesses from elsewhere held the account ~30 s for everyone."""
    stranger = live.test_client()
    stranger.environ_base["REMOTE_ADDR"] = "10.9.9.9"
    page = stranger.get("/login").get_data(as_text=True)
    token = page.split('name="csrf_token" value="')[1].split('"')[0]
    codes = set()
    for _ in range(1000):
        resp = stranger.post(
            "/login", data={"username": "ref1", "password": "guess", "csrf_token": token}
        )
        codes.add(resp.status_code)
    assert codes == {401, 429}  # the stranger is held back
    # a client with a wrong guess of its own still meets the account's back-off
    other = live.test_client()
    other.environ_base["REMOTE_ADDR"] = "10.0.0.2"
    page = other.get("/login").get_data(as_text=True)
    token = page.split('name="csrf_token" value="')[1].split('"')[0]
    data = {"username": "ref1", "password": "typo", "csrf_token": token}
    assert other.post("/login", data=data).status_code == 401
    data["password"] = PASSWORD
    assert other.post("/login", data=data).status_code == 429
    head = live.test_client()
    head.environ_base["REMOTE_ADDR"] = "10.0.0.1"
    page = head.get("/login").get_data(as_text=True)
    token = page.split('name="csrf_token" value="')[1].split('"')[0]
    resp = head.post("/login", data={"username": "ref1", "password": PASSWORD, "csrf_token": token})
    assert resp.status_code == 302, resp.status_code
    assert head.get("/api/tables").status_code == 200


def test_pages_redirect_to_login(live: Flask) -> None:
    resp = live.test_client().get("/tables/t1/violations")
    assert resp.status_code == 302 and "/login?next=" in resp.headers["Location"]


def test_serve_binds_localhost_by_default() -> None:
    parser = argparse.ArgumentParser()
    serve.register(parser.add_subparsers())
    args = parser.parse_args(["serve"])
    assert args.host == "127.0.0.1" and args.data is None


def test_only_the_head_referee_creates_overlay_links(live: Flask) -> None:
    referee = live.test_client()
    token = login(referee, "ref1")
    assert "overlay link" not in referee.get("/tables/t1").get_data(as_text=True)
    assert referee.post("/tables/t1/overlay-token", data={"csrf_token": token}).status_code == 403
    head = live.test_client()
    token = login(head, "head1")
    page = head.get("/tables/t1", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "Create a read-only overlay link" in page
    page = head.post("/tables/t1/overlay-token", data={"csrf_token": token}).get_data(as_text=True)
    url = page.split('id="overlay-url">')[1].split("<")[0].replace("&amp;", "&")
    path = url.split("localhost", 1)[1]
    assert live.test_client().get(path).status_code == 200


def test_odd_table_ids_are_refused_not_followed(live: Flask) -> None:
    client = live.test_client()
    login(client, "view1")
    for tid in ("..", ".hidden", "x" * 65):
        resp = client.get(f"/api/tables/{tid}/frame.jpg")
        assert resp.status_code == 404 and "table id" in resp.get_json()["error"]


def test_export_needs_a_session(live: Flask) -> None:
    assert live.test_client().get("/api/tables/t1/export").status_code == 401


def test_head_referee_revokes_overlay_links_and_open_streams_end(live: Flask, hub: Hub) -> None:
    users = UserStore(hub.store.data_dir)
    keep, leaked = users.new_overlay_token("t1"), users.new_overlay_token("t1")
    client = live.test_client()
    stream = client.get(f"/overlay/t1/stream?token={leaked}&delay=0", buffered=False)
    head = live.test_client()
    token = login(head, "head1")
    page = head.get("/tables/t1").get_data(as_text=True)
    ids = [link.id for link in users.overlay_links("t1")]
    assert len(ids) == 2 and all(i in page for i in ids)
    assert leaked not in page and keep not in page  # the tokens themselves are never shown
    one = overlay_link_id(leaked)
    assert one in ids
    # a referee cannot revoke; a wrong id is a clear 400; the head revokes the leaked one
    referee = live.test_client()
    rtoken = login(referee, "ref1")
    form = {"csrf_token": rtoken, "link": one}
    assert referee.post("/tables/t1/overlay-revoke", data=form).status_code == 403
    bad = head.post("/tables/t1/overlay-revoke", data={"csrf_token": token, "link": "zz"})
    assert bad.status_code == 400
    resp = head.post("/tables/t1/overlay-revoke", data={"csrf_token": token, "link": one})
    assert resp.status_code == 302
    assert client.get(f"/overlay/t1/state?token={leaked}&delay=0").status_code == 403
    assert client.get(f"/overlay/t1/state?token={keep}&delay=0").status_code == 200
    # the stream opened with the leaked link ends with a "revoked" event
    text = "".join(c.decode() if isinstance(c, bytes) else c for c in stream.response)
    assert "event: revoked" in text
    # revoke all: the other link stops too
    head.post("/tables/t1/overlay-revoke", data={"csrf_token": token})
    assert client.get(f"/overlay/t1/state?token={keep}&delay=0").status_code == 403
    assert users.overlay_links("t1") == []
