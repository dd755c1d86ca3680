"""Evidence frames through the hall (hall.clips, ``kind: frame``): the still frames a node
chained for its plays reach the desk over a real Mosquitto with the sha256 of the node's media
rows, and the desk's violation page shows them in real Chromium (zh-CN and English, 390 and
1440 px) instead of "frame … not stored"; a frame whose bytes are not the node's is refused."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser

from dashboard.app import create_app
from dashboard.demo import render_frame
from dashboard.desk import register
from dashboard.hub import Hub
from dashboard.users import UserStore
from evidence.store import EvidenceStore
from hall.broker import LocalBroker
from hall.clips import ClipRefused, clip_message, store_clip
from hall.config import HallConfig
from hall.desk import Desk
from hall.desk_hub import DeskHub
from hall.publish import start_publisher
from tests.dashboard.browser import SCREENS, LiveServer
from tests.dashboard.conftest import FAST_HASH, PASSWORD, match_record
from tests.dashboard.test_screens import check_fits, login, open_page
from tests.hall.conftest import DESK_PW, TABLE_PW, TABLES, wait_for

RECORD = match_record()[:40]  # wrong bury count at 4, failed throw at 25, wrong count at 26
FRAMES = [e for e in RECORD if e.get("evidence")]


@pytest.fixture(scope="module")
def hall(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    root = tmp_path_factory.mktemp("frames")
    broker = LocalBroker(root / "broker", {"desk": DESK_PW, **dict.fromkeys(TABLES, TABLE_PW)})
    broker.start()
    node = EvidenceStore(root / "t1", durable=False)
    register(node, "t1", by="test")  # the node's judge: a hub over its own store
    judge = Hub(node)
    for e in RECORD:
        if e.get("evidence"):  # as tablescan.store_hooks chains a play's frame
            jpeg = render_frame(f"seq {e['seq']}", e.get("cards") or [])
            node.add_media(jpeg, table="t1", seq=e["seq"], name=f"{e['evidence']}-after")
        node.append_event("t1", e)
    judge.poll()
    data = root / "desk"
    UserStore(data).add("ref1", "referee", PASSWORD, n=FAST_HASH)
    hub = DeskHub(EvidenceStore(data, durable=False), poll_s=0.02)
    desk = Desk(hub.store, HallConfig(broker=broker.url, password=DESK_PW), on_change=hub.changed)
    hub.desk = desk
    desk.start()
    pub = start_publisher(node, "t1", HallConfig(broker=broker.url, password=TABLE_PW))
    server = LiveServer(create_app(data, hub=hub, SSE_PING_S=2.0))
    try:
        pub.wake()
        want = len(node.media_of("t1", "frame"))
        assert want == len(FRAMES) > 3
        wait_for(lambda: len(hub.store.media_of("t1", "frame")) == want, 20, "the frames")
        wait_for(lambda: hub.store.last_seq("t1") == len(RECORD) - 1, 10, "the record")
        yield {"url": server.url, "node": node, "hub": hub, "desk": desk}
    finally:
        server.close()
        pub.stop()
        desk.stop()
        hub.stop()
        judge.stop()
        broker.stop()


def test_the_frames_reach_the_desk_bound_to_the_nodes_media_rows(hall: dict[str, Any]) -> None:
    node, desk_store = hall["node"], hall["hub"].store
    at_node = {(m["name"], m["sha256"], m["seq"]) for m in node.media_of("t1", "frame")}
    at_desk = {(m["name"], m["sha256"], m["seq"]) for m in desk_store.media_of("t1", "frame")}
    assert at_desk == at_node
    chained = {r.data["sha256"] for r in desk_store.rows(kind="media")}
    assert {sha for _n, sha, _s in at_node} <= chained  # in the desk's own chain too
    e = FRAMES[0]  # an event's evidence id resolves at the desk as at the table
    assert desk_store.resolve_media(e["evidence"]) == node.resolve_media(e["evidence"])
    assert hall["desk"].verify().ok

    row = node.media_of("t1", "frame")[0]
    good = clip_message(node, "t1", row, "frame")
    assert good is not None
    head, _, body = good.partition(b"\n")
    other = EvidenceStore(Path(str(desk_store.data_dir)) / "other", durable=False)
    try:
        h = json.loads(head)
        for bad, why in (
            (head + b"\n" + body[:-1] + b"x", "do not match"),
            (json.dumps({**h, "suffix": ".exe"}).encode() + b"\n" + body, "suffix"),
            (json.dumps({**h, "name": "../x"}).encode() + b"\n" + body, "frame name"),
            (json.dumps({**h, "kind": "live"}).encode() + b"\n" + body, "media kind"),
        ):
            with pytest.raises(ClipRefused, match=why):
                store_clip(other, "t1", bad)
        assert other.media_of("t1", "frame") == []
    finally:
        other.close()


WORDS = {"zh-CN": "未保存", "en": "not stored"}


@pytest.mark.parametrize("lang", list(WORDS))
@pytest.mark.parametrize("width", [390, 1440])
def test_the_desk_shows_a_violations_frames(
    hall: dict[str, Any],
    browser: Browser,
    lang: str,
    width: int,
) -> None:
    url = hall["url"]
    ctx, page, errors = open_page(browser, lang, width)
    login(page, url)
    page.goto(url + "/tables/t1/violations")
    bury = page.locator('.viol[data-violation="1:wrong_bury_count:2:4"]')
    bury.locator("img[data-evidence]").first.wait_for()
    page.wait_for_function(
        "() => [...document.querySelectorAll('img[data-evidence]')].every("
        "i => i.complete && i.naturalWidth > 0)"
    )
    assert page.locator(".noimg").count() == 0
    assert WORDS[lang] not in page.inner_text("main")
    check_fits(page, f"desk violations {lang} {width}")
    page.screenshot(path=str(SCREENS / f"desk-{lang}-{width}-violation-frames.png"), full_page=True)
    ctx.close()
    assert errors == []
