"""A referee at the table ends the deal, starts the next and ends the match from the head
seat's controller (a two-button chord, ``tablescan/seat_buttons.py``) on the virtual board:
the dashboard's own match events, on the node's path, stored once; a lone long press there
is still the player's."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dashboard.app import create_app
from dashboard.hub import Hub
from dashboard.users import UserStore
from evidence import EvidenceStore
from firmware_bridge import virtual
from firmware_bridge.mapping import BUTTON_CLAIM, BUTTON_PASS, BUTTON_REFEREE
from tablescan.config import load_config
from tablescan.match import next_deal
from tablescan.render import RenderResult
from tablescan.seat_buttons import CHORD_WAIT_S, SeatButtons
from tablescan.wiring import build_node, store_wiring
from tests.dashboard.conftest import FAST_HASH, PASSWORD, login
from vision.sources import open_source
from vision.synth.labels import LabelDetector

WAIT = 30.0
PLAYS_BEFORE_END = 3


@pytest.fixture
def board() -> Iterator[virtual.VirtualBoard]:
    b = virtual.create_board("seat-match", seats=4)
    yield b
    b.close()


def wait_for(seats: SeatButtons, check: Any, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        seats.poll()
        time.sleep(0.01)


def chord(board: virtual.VirtualBoard, seat: int, a: int, b: int) -> list[str]:
    """Both buttons held together: each reports its long press."""
    return [
        f"{board.board_id:08x}/{boot}/{seq}"
        for boot, seq in (board.press(seat, a, True), board.press(seat, b, True))
    ]


def test_head_seat_chords_end_and_start_deals_and_end_the_match(
    match_clip: RenderResult, board: virtual.VirtualBoard, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    users = UserStore(data)
    users.add("ref1", "referee", PASSWORD, n=FAST_HASH)
    users.close()
    cfg = load_config(match_clip.table)
    hooks, closers, store = store_wiring(data, cfg)
    labels = match_clip.video.with_name(match_clip.video.stem + ".labels.jsonl")
    node = build_node(cfg, LabelDetector(labels), hooks, keep_evidence=False)
    seats = SeatButtons.open(node, f"virtualseat://{board.name}")
    closers.insert(0, seats.close)
    count = len(node.events)

    def new(kind: str) -> bool:
        return any(e["type"] == kind for e in node.events[count:])

    try:
        assert seats.bridge.link.wait_connected(WAIT)
        for frame in open_source(str(match_clip.video), cfg.fps).frames():
            node.process(frame)
            seats.poll()
            if sum(e["type"] == "play" for e in node.events) >= PLAYS_BEFORE_END:
                break
        assert not node.between
        # the deal in play ends: pass + referee held together at the head seat
        pressed = chord(board, 0, BUTTON_PASS, BUTTON_REFEREE)
        wait_for(seats, lambda: new("hand_end"), "the referee's hand_end")
        end = node.events[-1]
        assert (end["type"], end["reason"]) == ("hand_end", "referee")
        assert end["meta"]["presses"] == pressed and end["meta"]["by"] == "seat 0 buttons"
        assert node.between and not node.match_over
        node._polled = 0.0  # the next poll is due now: the node settles the deal
        assert node.poll() == []  # one short deal is no match end
        # between deals, the same chord starts the next deal as the engine's outcome says
        want = next_deal(node.referee, node.hand)
        assert want is not None
        count = len(node.events)
        chord(board, 0, BUTTON_REFEREE, BUTTON_PASS)  # either button may report first
        wait_for(seats, lambda: new("hand_start"), "the referee's hand_start")
        start = node.events[-1]
        assert {k: start[k] for k in ("hand", "banker", "level")} == {
            k: want[k] for k in ("hand", "banker", "level")
        }
        assert start["hand"] == 2 and node.hand == 2 and not node.between
        # a lone long press at the head seat is the player's own, once no partner came
        count = len(node.events)
        board.press(0, BUTTON_REFEREE, True)
        wait_for(seats, lambda: new("button"), "the lone long press")
        claim = node.events[-1]
        assert (claim["seat"], claim["what"]) == (0, "claim")
        assert claim["t"] <= node.t_now and CHORD_WAIT_S > 0
        # a chord at another seat is two players' presses, not the referee's
        count = len(node.events)
        board.press(1, BUTTON_PASS, True)
        board.press(1, BUTTON_REFEREE, True)
        wait_for(seats, lambda: len(node.events) >= count + 2, "seat 1's presses")
        assert [e["type"] for e in node.events[count:]] == ["pass", "button"]
        # claim + referee ends the match; after it, a chord writes nothing
        count = len(node.events)
        chord(board, 0, BUTTON_CLAIM, BUTTON_REFEREE)
        wait_for(seats, lambda: new("match_end"), "the referee's match_end")
        over = node.events[-1]
        assert (over["type"], over["reason"], over["by"]) == (
            "match_end",
            "referee",
            "seat 0 buttons",
        )
        assert over["result"]["hands"] == 2
        assert node.match_over
        count = len(node.events)
        chord(board, 0, BUTTON_PASS, BUTTON_REFEREE)
        time.sleep(CHORD_WAIT_S)
        wait_for(seats, lambda: seats.bridge.link.events.empty() and not seats._waiting, "idle")
        assert len(node.events) == count
        record = store.events(cfg.table_id)
        hub_store = EvidenceStore(data)
        try:
            hub = Hub(hub_store)
            app = create_app(data, hub=hub, start_hub=False, OVERLAY_MIN_DELAY_S=0.0)
            hub.poll()
            client = app.test_client()
            login(client, "ref1")
            state = client.get(f"/api/tables/{cfg.table_id}/state").get_json()
        finally:
            hub_store.close()
    finally:
        for close in closers:
            close()
    assert [e["seq"] for e in record] == list(range(len(record)))
    assert record == node.events
    assert not node.stats.errors.get("referee")
    assert state["status"] == "match over" and state["match"]["over"]  # the dashboard's view
    assert state["match"]["result"] == over["result"]
