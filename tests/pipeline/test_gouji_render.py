"""Rendered Gouji matches: the deals as one record, the rounds where the drawing sweeps, the
presses a replay feeds in, and the record a replay can rebuild from what the camera sees
plus those presses judged to the truth's places and burns (no video drawn: the timeline)."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from tablescan.render_gouji import judged, round_openings, simulated_deals
from vision.calibration import default_layout
from vision.synth.gouji_video import direct_gouji

PROFILE = "gouji-bie3"  # 憋3, 开点 and bought 3s: the sheet that needs the most presses


def test_two_deals_are_one_record_the_referee_judges_whole() -> None:
    events = simulated_deals(PROFILE, 5, hands=2)
    kinds = [e["type"] for e in events]
    assert kinds.count("match_start") == 1 and kinds.count("hand_start") == 2
    assert kinds[-1] == "match_end" and [e["seq"] for e in events] == list(range(len(events)))
    report = judged(events, PROFILE)
    assert [h["hand"] for h in report["hands"]] == [1, 2]
    assert all(None not in h["finishing_order"] for h in report["hands"])
    assert not report["errors"] and not report["violations"]


def test_rounds_open_with_a_lead_swept_by_the_last_top() -> None:
    events = simulated_deals(PROFILE, 5, hands=1)
    leads, sweepers = round_openings(events, PROFILE)
    first = next(i for i, e in enumerate(events) if e["type"] == "play")
    assert first in leads and first not in sweepers  # nothing lies on the cloth yet
    assert len(leads) > 5 and set(sweepers) <= leads
    assert all(0 <= s < 6 for s in sweepers.values())


def test_camera_plays_plus_presses_judge_to_the_truth() -> None:
    """What a replay can know: the plays (camera) and every other event (presses), in the
    timeline's order and times; judged, the same places, burns and scores as the truth."""
    events = simulated_deals(PROFILE, 2, hands=2)
    leads, sweepers = round_openings(events, PROFILE)
    tl = direct_gouji(events, 2, leads, sweepers)
    stamped: list[dict[str, Any]] = [{**ev, "t": frame / 20.0} for frame, ev in tl.truth]
    assert [e["seq"] for e in stamped] == [e["seq"] for e in events]
    assert all(a["t"] < b["t"] for a, b in itertools.pairwise(stamped))
    truth, rebuilt = judged(events, PROFILE), judged(stamped, PROFILE)
    for a, b in zip(truth["hands"], rebuilt["hands"], strict=True):
        assert a["finishing_order"] == b["finishing_order"] and a["burns"] == b["burns"]
        assert a["scores"] == b["scores"]


def test_six_seat_areas_do_not_overlap() -> None:
    import cv2
    import numpy as np

    layout = default_layout(6)
    seats = [a for a in layout.areas if a.kind == "seat"]
    for i, a in enumerate(seats):
        for b in seats[i + 1 :]:
            inter, _ = cv2.intersectConvexConvex(
                np.array(a.polygon, np.float32), np.array(b.polygon, np.float32)
            )
            assert inter < 1.0, f"{a.name} and {b.name} overlap by {inter:.1f}"


def test_recorded_presses_are_numbered_so_a_resumed_replay_drops_the_stored_ones(
    tmp_path: Path,
) -> None:
    from tablescan.recorded_presses import load_presses

    path = tmp_path / "m.presses.jsonl"
    lines = [
        '{"t": 2.0, "type": "pass", "seat": 3, "what": "button"}',
        "",
        '{"t": 1.0, "type": "button", "seat": 1, "what": "kou", "meta": {"press": "b7"}}',
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    got = load_presses(path)
    assert [b["meta"]["press"] for b in got] == ["b7", "m.presses.jsonl:1"]  # by time
    path.write_text('{"t": 1.0, "type": "pass"}\n{"type": "pass"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"m\.presses\.jsonl:2: a press needs a type and a time"):
        load_presses(path)
