"""The live camera and health at the desk (hall.live): the node's latest masked frame goes over
the real broker downscaled to a hall tile's size and lands as the desk's live frame, with the
node's health (its host's CPU °C and disk) from the retained state; a payload that is not a
JPEG, or too big, is refused with a line naming the table."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from dashboard.demo import render_frame
from evidence.live import LiveFiles
from evidence.store import EvidenceStore
from hall.broker import LocalBroker
from hall.config import HallConfig
from hall.desk import Desk
from hall.live import FRAME_WIDTH, MAX_FRAME_BYTES, FrameRefused, store_frame
from hall.publish import start_publisher
from hall.simnode import append_record
from tests.hall.conftest import TABLE_PW, wait_for


def test_the_camera_and_health_reach_the_desk(
    tmp_path: Path, broker: LocalBroker, desk: Desk
) -> None:
    node = EvidenceStore(tmp_path / "t1", durable=False)
    live = LiveFiles(node.data_dir)
    live.put_frame("t1", render_frame("live", ["AS"], w=1280, h=720))
    health = {"fps": 15.0, "camera": {"camera": "ok"}, "host": {"cpu_temp_c": 61.5}}
    live.put_health("t1", health)
    pub = start_publisher(node, "t1", HallConfig(broker=broker.url, password=TABLE_PW))
    at_desk = LiveFiles(desk.store.data_dir)
    try:
        append_record(node, "t1", 3, wake=pub.wake)
        wait_for(lambda: at_desk.frame("t1") is not None, 10, "the frame at the desk")
        wait_for(lambda: at_desk.health("t1") is not None, 10, "the health at the desk")
    finally:
        pub.stop()
        node.close()
    jpeg = at_desk.frame("t1")
    assert jpeg is not None
    image = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert image.shape[:2] == (FRAME_WIDTH * 720 // 1280, FRAME_WIDTH)
    got = at_desk.health("t1")
    assert got is not None and got["via"] == "hall"
    assert got["host"] == {"cpu_temp_c": 61.5} and got["camera"] == {"camera": "ok"}


def test_a_frame_that_is_no_jpeg_or_too_big_is_refused(tmp_path: Path) -> None:
    live = LiveFiles(tmp_path)
    for bad, why in ((b"<html>", "not a JPEG"), (b"\xff\xd8" + bytes(MAX_FRAME_BYTES), "over")):
        with pytest.raises(FrameRefused, match=why) as e:
            store_frame(live, "t1", bad)
        assert "table t1" in str(e.value)
    assert live.frame("t1") is None
