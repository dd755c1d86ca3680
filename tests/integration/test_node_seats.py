"""Seat buttons in the table node: presses on the (virtual) seat controller become record
events on the node's own path, exactly once, and the lights follow the referee."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from evidence.live import LiveFiles
from firmware_bridge import virtual
from firmware_bridge.mapping import LedPlanner, lights_from_state
from firmware_bridge.protocol import Led
from tablescan.config import load_config
from tablescan.live_share import live_frames
from tablescan.render import RenderResult
from tablescan.seat_buttons import SeatButtons
from tablescan.wiring import build_node, store_wiring
from vision.sources import open_source
from vision.synth.labels import LabelDetector

WAIT = 30.0
PRESS_AFTER_PLAYS = 5


@pytest.fixture
def board() -> Iterator[virtual.VirtualBoard]:
    b = virtual.create_board("node-seats", seats=4)
    yield b
    b.close()


def expected_leds(state: dict[str, Any], seats: int) -> list[int]:
    return list(LedPlanner(seats=seats).plan(lights_from_state(state)).leds)


def wait_until(check: Any, what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


def test_presses_recorded_once_and_lights_follow_referee(
    hand_clip: RenderResult, board: virtual.VirtualBoard, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    cfg = load_config(hand_clip.table)
    hooks, closers, _ = store_wiring(data, cfg)
    labels = hand_clip.video.with_name(hand_clip.video.stem + ".labels.jsonl")
    node = build_node(cfg, LabelDetector(labels), hooks, evidence_dir=tmp_path / "ev")
    seats = SeatButtons.open(node, f"virtualseat://{board.name}")
    closers.insert(0, seats.close)
    health = live_frames(data, cfg.table_id, node, seats.bridge.health)
    link = seats.bridge.link
    pressed: str | None = None
    lit: list[list[int]] = []
    try:
        assert link.wait_connected(WAIT)
        for frame in open_source(str(hand_clip.video), cfg.fps).frames():
            before = node.judged
            node.process(frame)
            seats.poll()
            if frame.index == 0:
                health(frame)
            if node.judged != before:  # the referee moved on: the lights must follow it
                assert node.referee is not None
                want = expected_leds(node.referee.state(), len(cfg.seats))
                assert link.wait_state_applied(WAIT)
                assert board.outputs().leds == want
                lit.append(want)
            plays = sum(e["type"] == "play" for e in node.events)
            if pressed is None and plays >= PRESS_AFTER_PLAYS:
                assert node.referee is not None
                turn = node.referee.state()["hand"]["next_seat"]
                boot, seq = board.press(turn, 0)  # the seat to play passes
                pressed = f"{board.board_id:08x}/{boot}/{seq}"

                def arrived() -> bool:
                    seats.poll()
                    return bool(node.events[-1]["type"] == "pass")

                wait_until(arrived, "the press")
                ev = node.events[-1]
                assert (ev["type"], ev["seat"], ev["what"]) == ("pass", turn, "button")
                assert ev["meta"]["press"] == pressed
                assert link.wait_state_applied(WAIT)
        node.finish(node.t_now)
        seats.poll()
        assert link.wait_state_applied(WAIT)
        assert node.referee is not None
        assert board.outputs().leds == expected_leds(node.referee.state(), len(cfg.seats))
        assert link.stats.as_dict()["state"] == "connected"
    finally:
        for close in closers:
            close()
    assert pressed is not None
    assert any(Led.ON in leds for leds in lit)  # some seat was shown its turn
    assert len({tuple(x) for x in lit}) > 2  # and the turn moved round the table

    # exactly once in the store, on the node's gap-free seq, judged by the referee
    store_again = store_wiring(data, cfg)[2]
    try:
        record = store_again.events(cfg.table_id)
    finally:
        store_again.close()
    assert [e["seq"] for e in record] == list(range(len(record)))
    passes = [e for e in record if e["type"] == "pass"]
    assert [e["meta"]["press"] for e in passes] == [pressed]
    assert record == node.events
    assert not node.stats.errors.get("referee")

    # a host restart: the board resends a press the old host recorded; it is not recorded again
    again = build_node(cfg, LabelDetector(labels), resume=record, evidence_dir=tmp_path / "ev")
    body = {k: v for k, v in passes[0].items() if k not in ("seq", "table")}
    assert again.external(body) == []
    assert again.seq.next_seq == len(record)

    # the dashboard's health page sees the serial link and its counters
    seen = LiveFiles(data).health(cfg.table_id)
    assert seen is not None
    assert seen["serial"]["state"] == "up"
    assert {"state_resends", "duplicates", "reconnects"} <= set(seen["serial"])


def test_run_serial_option(
    hand_clip: RenderResult, board: virtual.VirtualBoard, tmp_path: Path
) -> None:
    """``tablescan run --serial URL``: a press waiting on the board (sent until ACKed) reaches
    the record once, through the real command."""
    from tablescan.cli import build_parser

    data = tmp_path / "data"
    boot, seq = board.press(2, 1, long=True)  # seat 2 declares a burn (烧牌)
    argv = ["run", "--config", str(hand_clip.table), "--detector", "labels"]
    argv += ["--data", str(data), "-o", str(tmp_path / "r.jsonl"), "--speed", "4"]
    args = build_parser().parse_args([*argv, "--serial", f"virtualseat://{board.name}"])
    assert args.func(args) == 0
    store = store_wiring(data, load_config(hand_clip.table))[2]
    try:
        record = store.events(store.tables()[0])
    finally:
        store.close()
    assert [e["seq"] for e in record] == list(range(len(record)))
    burns = [e for e in record if e["type"] == "button"]
    assert [(e["seat"], e["what"], e["meta"]["press"]) for e in burns] == [
        (2, "burn", f"{board.board_id:08x}/{boot}/{seq}")
    ]
    assert board.pending == 0  # the board was told it arrived


def test_run_resumes_between_deals_and_refuses_a_finished_match(
    hand_clip: RenderResult, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A finished hand is resumed between deals (the same video: nothing new is written, the
    new ``-o`` file follows the store); a finished match is not resumed: the next ``run``
    writes nothing and says why, until a head referee reopens it (``match_reopen``)."""
    from tablescan.cli import build_parser

    data = tmp_path / "data"
    argv = ["run", "--config", str(hand_clip.table), "--detector", "labels", "--data", str(data)]
    args = build_parser().parse_args([*argv, "-o", str(tmp_path / "first.jsonl")])
    assert args.func(args) == 0
    again = build_parser().parse_args([*argv, "-o", str(tmp_path / "second.jsonl")])
    assert again.func(again) == 0
    store = store_wiring(data, load_config(hand_clip.table))[2]
    try:
        table = store.tables()[0]
        record = store.events(table)
        assert [e["type"] for e in record].count("hand_end") == 1  # nothing written twice
        second = [json.loads(line) for line in (tmp_path / "second.jsonl").read_text().splitlines()]
        assert [e["seq"] for e in second] == [e["seq"] for e in record]
        store.append_event(table, {"v": 1, "t": 99.0, "type": "match_end", "reason": "referee"})
    finally:
        store.close()
    third = build_parser().parse_args([*argv, "-o", str(tmp_path / "third.jsonl")])
    assert third.func(third) == 2
    assert "holds a finished match" in caplog.text and "reopen it on the dashboard" in caplog.text
    assert not (tmp_path / "third.jsonl").exists()
    # a head referee reopens it on the dashboard (issue 30): the next run resumes the match
    store = store_wiring(data, load_config(hand_clip.table))[2]
    try:
        store.append_event(table, {"v": 1, "t": 100.0, "type": "match_reopen", "by": "head1"})
    finally:
        store.close()
    caplog.clear()
    fourth = build_parser().parse_args([*argv, "-o", str(tmp_path / "fourth.jsonl")])
    assert fourth.func(fourth) == 0, caplog.text
    assert "holds a finished match" not in caplog.text
    kept = [json.loads(line) for line in (tmp_path / "fourth.jsonl").read_text().splitlines()]
    assert [e["type"] for e in kept][-2:] == ["match_end", "match_reopen"]
