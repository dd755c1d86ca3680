"""SIGKILL the real table node (``tablescan run`` as a subprocess) mid-hand, start it again on
the same store: it resumes the hand, and the stored record is the truth, with no event lost or
stored twice, seq gap-free and the hash chain intact."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from evidence import EvidenceStore
from evidence.verify import verify_store
from tablescan.config import load_config
from tablescan.render import RenderResult, played, read_truth
from tablescan.wiring import build_node
from tests.keys import node_key_id
from vision.sources import open_source
from vision.synth.labels import LabelDetector

ROOT = Path(__file__).resolve().parents[2]
KILL_AFTER_PLAYS = 6  # mid-hand: the second trick is half played


def run_node(clip: RenderResult, data: Path, speed: float) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tablescan",
            "run",
            "--config",
            str(clip.table),
            "--detector",
            "labels",
            "--data",
            str(data),
            "-o",
            str(data.parent / "record.jsonl"),
            "--speed",
            str(speed),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def stored(data: Path, table: str) -> list[dict[str, Any]]:
    store = EvidenceStore(data)
    try:
        return store.events(table)
    finally:
        store.close()


def test_sigkill_mid_hand_then_resume(hand_clip: RenderResult, tmp_path: Path) -> None:
    data = tmp_path / "data"
    table = hand_clip.table.stem.removesuffix(".table")
    acked: list[dict[str, Any]] = []  # printed after the store made them durable
    with run_node(hand_clip, data, speed=3.0) as node:
        assert node.stdout is not None and node.stderr is not None
        timer = threading.Timer(60, node.kill)  # a hung node fails the test, not hangs it
        timer.start()
        try:
            for line in node.stdout:
                acked.append(json.loads(line))
                if sum(e["type"] == "play" for e in acked) >= KILL_AFTER_PLAYS:
                    node.send_signal(signal.SIGKILL)
                    break
        finally:
            timer.cancel()
        node.wait(timeout=30)
        assert node.returncode == -signal.SIGKILL, node.stderr.read()
    before = stored(data, table)
    assert not any(e["type"] == "hand_end" for e in before), "killed too late: hand over"
    assert before[: len(acked)] == acked  # every acknowledged event is durable

    with run_node(hand_clip, data, speed=0.0) as again:
        out, err = again.communicate(timeout=60)
    assert again.returncode == 0, err
    assert "resuming after seq" in err
    resumed = [json.loads(line) for line in out.splitlines()]
    assert resumed and resumed[0]["seq"] == before[-1]["seq"] + 1  # nothing written twice

    record = stored(data, table)
    assert [e["seq"] for e in record] == list(range(len(record)))
    assert record == before + resumed
    truth = read_truth(hand_clip.truth)
    assert played(record) == played(truth)  # no play lost, none doubled
    assert [e["type"] for e in record].count("hand_start") == 1
    assert [e["type"] for e in record].count("hand_end") == 1
    assert not any(e["type"] == "needs_referee" for e in record)
    report = verify_store(data)
    assert report.ok, report
    verify = subprocess.run(
        [sys.executable, "-m", "tablescan", "verify", "--data", str(data), "--key", node_key_id()],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
    )
    assert verify.returncode == 0, verify.stdout + verify.stderr


def test_live_camera_resumes_from_the_record(hand_clip: RenderResult, tmp_path: Path) -> None:
    """A camera cannot rewind: a node restarted mid-trick learns from the stored record what
    was played and what lies on the table, then reads on from the frames that come next."""
    cfg = load_config(hand_clip.table)
    labels = hand_clip.video.with_name(hand_clip.video.stem + ".labels.jsonl")
    frames = open_source(str(hand_clip.video), cfg.fps).frames()
    first = build_node(cfg, LabelDetector(labels), evidence_dir=tmp_path / "ev")
    for frame in frames:
        first.process(frame)
        if sum(e["type"] == "play" for e in first.events) >= KILL_AFTER_PLAYS:
            break
    record = list(first.events)
    again = build_node(cfg, LabelDetector(labels), resume=record, evidence_dir=tmp_path / "ev")
    again.continue_live()
    assert again.seq.next_seq == len(record)
    for frame in frames:  # the camera goes on
        again.process(frame)
    again.finish(again.t_now)
    assert again.events[: len(record)] == record
    assert [e["seq"] for e in again.events] == list(range(len(again.events)))
    assert played(again.events) == played(read_truth(hand_clip.truth))
    assert not any(e["type"] == "needs_referee" for e in again.events)
    assert not again.stats.errors
