"""The dashboard's referees append to the same record as the running node (rulings,
corrections, violations the camera cannot see): the node takes their events in, numbers its own
after them, and the record stays gap-free and complete."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tablescan.config import load_config
from tablescan.render import RenderResult, played, read_truth
from tablescan.wiring import build_node, store_wiring
from vision.sources import open_source
from vision.synth.labels import LabelDetector


def test_referee_events_interleave_with_the_node(hand_clip: RenderResult, tmp_path: Path) -> None:
    cfg = load_config(hand_clip.table)
    hooks, closers, store = store_wiring(tmp_path / "data", cfg)
    table = cfg.table_id
    store_event = hooks.on_event
    assert store_event is not None
    raced: list[int] = []

    def on_event(ev: dict[str, Any]) -> None:
        if ev["type"] == "play" and ev["seat"] == 1 and not raced:
            # a referee's event lands between the node numbering its play and storing it
            note = {"v": 1, "t": ev["t"], "type": "violation", "seat": 2, "rule": "talking"}
            raced.append(store.append_event(table, {**note, "note": "race", "by": "ref1"}))
        store_event(ev)

    hooks.on_event = on_event
    labels = hand_clip.video.with_name(hand_clip.video.stem + ".labels.jsonl")
    node = build_node(cfg, LabelDetector(labels), hooks, evidence_dir=tmp_path / "ev")
    checked: list[int] = []
    try:
        for frame in open_source(str(hand_clip.video), cfg.fps).frames():
            node.process(frame)
            plays = [e for e in node.events if e["type"] == "play"]
            if len(plays) == 2 and not checked:  # a referee confirms a play between frames
                fix = {"v": 1, "t": frame.t, "type": "correction", "ref": plays[0]["seq"]}
                fix |= {"by": "ref1", "why": "checked", "cards": plays[0]["cards"]}
                checked.append(store.append_event(table, fix))
        node.finish(node.t_now)
        record = store.events(table)
    finally:
        for close in closers:
            close()
    assert raced and checked
    assert [e["seq"] for e in record] == list(range(len(record)))
    assert record == node.events
    by_ref = [e["seq"] for e in record if e.get("by") == "ref1"]
    assert by_ref == sorted(raced + checked)
    assert played(record) == played(read_truth(hand_clip.truth))
    assert not node.stats.errors
