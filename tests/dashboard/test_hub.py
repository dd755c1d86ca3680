"""The hub follows a store that another process writes (the table node) and judges it with the
real referee as the events arrive; a restarted dashboard rebuilds the same view."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from dashboard.hub import Hub
from engine.tractor.referee import Referee
from engine.tractor.rules import Rules
from evidence import EvidenceStore
from tests.dashboard.conftest import match_record

ROOT = Path(__file__).resolve().parents[2]


def test_hub_follows_a_writer_in_another_process(tmp_path: Path) -> None:
    events = match_record()
    record = tmp_path / "match.jsonl"
    record.write_text("".join(json.dumps(e) + "\n" for e in events))
    data = tmp_path / "data"
    store = EvidenceStore(data, durable=False)
    hub = Hub(store, poll_s=0.02)
    hub.start()
    try:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tests.store.writer",
                str(record),
                "--data",
                str(data),
                "--table",
                "t5",
                "--delay",
                "0.002",
            ],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        seen_mid_match = False
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            table = hub.tables.get("t5")
            if table is not None and 0 < table.seq < events[-1]["seq"]:
                seen_mid_match = True
            if table is not None and table.seq == events[-1]["seq"]:
                break
            time.sleep(0.01)
        assert proc.wait(timeout=60) == 0
    finally:
        hub.stop()
    assert seen_mid_match, "the hub only saw the match once it was over"
    live = hub.tables["t5"]
    assert live.seq == events[-1]["seq"] and live.engine == "engine.tractor.referee.Referee"
    # the same record judged directly by the engine gives the same report: no parallel judging
    ref = Referee(Rules.load("school-2010"))
    for e in events:
        ref.feed(e)
    assert live.report == json.loads(json.dumps(ref.report()))
    # a dashboard restarted on the same store rebuilds the same view and stores no ruling twice
    rulings = len(store.rows(kind="ruling"))
    again = Hub(store)
    again.poll()
    assert again.tables["t5"].view["violations"] == live.view["violations"]
    assert len(store.rows(kind="ruling")) == rulings
    store.close()
