"""The match clock on the table node: a rendered two-deal match replayed with its frames'
times moved on (the injected clock: no real minute passes) under a table's one-minute stage
limit. The sheet's at-time rule ends the match with a ``match_end`` that says it was decided
on time and by which rule: jiawang stops the deal in play, chaodipi-anchao finishes it first."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from engine.games import referee_for
from engine.record import validate_event
from tablescan.config import load_config
from tablescan.render import RenderResult
from tablescan.wiring import build_node
from vision.sources import open_source
from vision.synth.labels import LabelDetector


def replay(clip: RenderResult, tmp: Path, profile: str, shift: float) -> list[dict[str, Any]]:
    """The clip through a node whose table plays ``profile`` with ``clock_minutes = 1``,
    every frame ``shift`` seconds later than the video has it."""
    text = clip.table.read_text().replace(
        'profile = "standard"', f'profile = "{profile}"\nclock_minutes = 1'
    )
    cfg_path = tmp / f"{profile}.table.toml"
    cfg_path.write_text(text)
    cfg_path.with_name(clip.video.name).symlink_to(clip.video)
    cfg = load_config(cfg_path)
    labels = LabelDetector(clip.video.with_name(clip.video.stem + ".labels.jsonl"))
    node = build_node(cfg, labels, None, keep_evidence=False)
    for frame in open_source(str(clip.video), cfg.fps).frames():
        node.process(dataclasses.replace(frame, t=frame.t + shift))
        node.poll()
        if node.match_over:
            break
    node.finish(node.t_now)
    for ev in node.events:
        validate_event(ev)  # every event the clock wrote is a valid record event
    return [dict(e) for e in node.events]


def hand_events(events: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    return [
        (e["type"], e.get("reason"))
        for e in events
        if e["type"] in ("hand_start", "hand_end", "match_end")
    ]


def test_jiawang_stops_the_deal_in_play_and_the_higher_level_wins(
    match_clip: RenderResult, tmp_path: Path
) -> None:
    events = replay(match_clip, tmp_path, "jiawang", 40.0)  # 60 s falls inside deal 2
    assert events[0]["clock"] == {"minutes": 1, "from": "table"}
    assert hand_events(events) == [
        ("hand_start", None),
        ("hand_end", None),
        ("hand_start", None),
        ("hand_end", "time"),
        ("match_end", "time"),
    ]
    stop, end = events[-2], events[-1]
    assert stop["t"] >= 60.0 and end["t"] >= 60.0
    assert not [e for e in events if e["type"] == "play" and e["t"] >= 60.0]  # none after time
    ref = referee_for(events[0])
    for e in events[: events.index(stop)]:
        ref.feed(e)
    after_deal_1 = ref.report()["hands"][0]["levels_after"]
    assert after_deal_1[0] != after_deal_1[1]  # deal 1 moved one side up
    ladder = ref.rules.ladder  # type: ignore[attr-defined]
    ahead = 0 if ladder.index(after_deal_1[0]) > ladder.index(after_deal_1[1]) else 1
    result = end["result"]
    assert result["levels"] == after_deal_1  # the stopped deal moves no level
    assert result["winner"] == ahead
    assert result["time"]["by"] == "level" and result["time"]["at_time"] == "banker"
    assert "「本次比赛采用60分钟定时制」" in result["time"]["cite"]


def test_jiawang_on_equal_levels_gives_it_to_the_banker_side(
    match_clip: RenderResult, tmp_path: Path
) -> None:
    events = replay(match_clip, tmp_path, "jiawang", 52.0)  # 60 s falls inside deal 1
    assert hand_events(events)[-2:] == [("hand_end", "time"), ("match_end", "time")]
    ref = referee_for(events[0])
    for e in events[:-2]:
        ref.feed(e)
    banker = ref.report()["hands"][-1]["banker"]  # the declarations chose it
    assert isinstance(banker, int)
    result = events[-1]["result"]
    assert result["levels"] == ["2", "2"]
    assert result["winner"] == next(i for i, t in enumerate(events[0]["teams"]) if banker in t)
    assert result["time"]["by"] == "banker"


def test_chaodipi_anchao_finishes_the_deal_in_play_first(
    match_clip: RenderResult, tmp_path: Path
) -> None:
    events = replay(match_clip, tmp_path, "chaodipi-anchao", 40.0)
    assert hand_events(events)[-2:] == [("hand_end", None), ("match_end", "time")]
    last_deal_end, end = events[-2], events[-1]
    assert last_deal_end["t"] > 60.0  # played on past the limit to the deal's end
    assert [e for e in events if e["type"] == "play" and e["t"] >= 60.0]
    assert end["result"]["time"]["finish_deal"] is True
    assert end["result"]["time"]["by"] in ("level", "banker")
    assert end["result"]["winner"] in (0, 1)


def test_a_restarted_live_camera_keeps_the_match_clock(
    match_clip: RenderResult, tmp_path: Path
) -> None:
    """The node crashes inside deal 2 and comes back on a live camera whose time starts at 0
    again: the record's times go on from the last stored one, and the clock still ends the
    match at its minute (a clock counted from the restart would give the table a new hour)."""
    text = match_clip.table.read_text().replace(
        'profile = "standard"', 'profile = "jiawang"\nclock_minutes = 1'
    )
    cfg_path = tmp_path / "live.table.toml"
    cfg_path.write_text(text)
    cfg = load_config(cfg_path)
    labels = match_clip.video.with_name(match_clip.video.stem + ".labels.jsonl")
    frames = [
        dataclasses.replace(f, t=f.t + 40.0)
        for f in open_source(str(match_clip.video), cfg.fps).frames()
    ]
    first = build_node(cfg, LabelDetector(labels), None, keep_evidence=False)
    k = next(i for i, f in enumerate(frames) if f.t >= 57.0)  # deal 2 under way, before time
    for frame in frames[:k]:
        first.process(frame)
    record = list(first.events)
    assert record[-1]["t"] < 60.0 and not first.match_over
    again = build_node(cfg, LabelDetector(labels), None, keep_evidence=False, resume=record)
    again.continue_live()
    zero = frames[k].t
    for frame in frames[k:]:  # the camera restarted: its clock reads from 0
        again.process(dataclasses.replace(frame, t=frame.t - zero))
        if again.match_over:
            break
    new = again.events[len(record) :]
    assert [e["t"] for e in new] == sorted(e["t"] for e in new) and new[0]["t"] >= record[-1]["t"]
    assert hand_events(new) == [("hand_end", "time"), ("match_end", "time")]
    assert 60.0 <= new[-1]["t"] < 61.0


def test_xize_plays_the_deal_in_play_as_its_extra_deal_on_equal_levels(
    match_clip: RenderResult, tmp_path: Path
) -> None:
    """「若同级则加赛一盘」: time runs out inside deal 1 with both sides on 2, so that deal is
    played out as the extra deal and the higher level after it wins."""
    events = replay(match_clip, tmp_path, "xize-1h", 52.0)
    assert hand_events(events) == [
        ("hand_start", None),
        ("hand_end", None),
        ("match_end", "time"),
    ]
    end = events[-1]
    assert events[-2]["t"] > 60.0 and end["t"] == events[-2]["t"]
    assert end["result"]["time"]["at_time"] == "extra_deal"
    assert end["result"]["time"]["by"] == "level" and end["result"]["winner"] in (0, 1)
    levels = end["result"]["levels"]
    assert levels[0] != levels[1]
