"""Clips through the hall (hall.clips): a clip the node chained reaches the desk over the real
broker, is stored in the desk's own chain with the node's sha256, and the desk's dashboard
lists and serves it; a clip whose bytes do not match what the node chained is refused with a
line naming the table and the clip."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dashboard.app import create_app
from dashboard.users import UserStore
from evidence.store import EvidenceStore
from hall.broker import LocalBroker
from hall.clips import ClipRefused, clip_message, store_clip
from hall.config import HallConfig
from hall.desk import Desk
from hall.publish import start_publisher
from hall.simnode import append_record
from tablescan.clips import write_clip
from tests.dashboard.conftest import FAST_HASH, PASSWORD, login
from tests.hall.conftest import TABLE_PW, wait_for


def _clip(tmp_path: Path) -> Path:
    frames = [np.full((90, 160, 3), 20 * i, np.uint8) for i in range(10)]
    return write_clip(tmp_path / "c.webm", frames, 5.0)


def test_a_clip_reaches_the_desk_and_its_pages(
    tmp_path: Path, broker: LocalBroker, desk: Desk
) -> None:
    node = EvidenceStore(tmp_path / "t1", durable=False)
    pub = start_publisher(node, "t1", HallConfig(broker=broker.url, password=TABLE_PW))
    try:
        append_record(node, "t1", 6, wake=pub.wake)
        sha = node.add_media(
            _clip(tmp_path), kind="clip", suffix=".webm", table="t1", seq=3, name="t1-f000003-clip"
        )
        pub.wake()
        wait_for(lambda: desk.store.media_of("t1", "clip"), 10, "the clip at the desk")
    finally:
        pub.stop()
        node.close()
    (got,) = desk.store.media_of("t1", "clip")
    assert (got["sha256"], got["seq"], got["name"]) == (sha, 3, "t1-f000003-clip")
    assert desk.stats["clips"] == 1 and desk.stats["refused"] == 0
    chained = [r.data for r in desk.store.rows(kind="media") if r.data.get("kind") == "clip"]
    assert [c["sha256"] for c in chained] == [sha]
    UserStore(desk.store.data_dir).add("ref1", "referee", PASSWORD, n=FAST_HASH)
    client = create_app(desk.store.data_dir, start_hub=False).test_client()
    login(client)
    listed = client.get("/api/tables/t1/clips").get_json()
    assert [(c["evidence"], c["media"], c["seq"]) for c in listed] == [("t1-f000003", sha, 3)]
    with client.get(listed[0]["url"]) as served:
        assert served.status_code == 200 and served.mimetype == "video/webm"
        assert len(served.data) == got["size"]
    with client.get(listed[0]["url"], headers={"Range": "bytes=0-99"}) as part:  # a phone seeks
        assert part.status_code == 206 and len(part.data) == 100


def test_a_clip_that_is_not_what_the_node_chained_is_refused(tmp_path: Path) -> None:
    node = EvidenceStore(tmp_path / "node", durable=False)
    desk = EvidenceStore(tmp_path / "desk", durable=False)
    try:
        node.add_media(
            _clip(tmp_path), kind="clip", suffix=".webm", table="t1", seq=3, name="t1-f000003-clip"
        )
        (row,) = node.media_of("t1", "clip")
        good = clip_message(node, "t1", row)
        assert good is not None
        head, _, body = good.partition(b"\n")
        for bad, why in (
            (head + b"\n" + body[:-1] + b"x", "do not match"),
            (head + b"\n" + body, "for 't1'"),  # sent on another table's topic
            (b"not json\n" + body, "not JSON"),
            (body, "header"),
        ):
            table = "t2" if why == "for 't1'" else "t1"
            with pytest.raises(ClipRefused, match=why) as e:
                store_clip(desk, table, bad)
            assert f"table {table}" in str(e.value)
        assert desk.media_of("t1", "clip") == [] == desk.media_of("t2", "clip")
        assert store_clip(desk, "t1", good) == row["sha256"]
        assert store_clip(desk, "t1", good) == row["sha256"]  # twice: stored once
        assert len([r for r in desk.rows(kind="media")]) == 1
    finally:
        node.close()
        desk.close()
