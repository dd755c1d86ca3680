"""``tablescan demo`` as ``make demo`` runs it: a real subprocess judging a rendered clip live,
with the dashboard up and the match chained into the evidence store it serves from. The
renderer's labels stand in for the recognizer so the wiring is checked exactly (the model's
own accuracy is measured by ``python -m vision.eval`` and ``bench/bench_pipeline.py``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from evidence.store import EvidenceStore
from tablescan.render import RenderResult


def test_demo_command_judges_the_clip_into_the_dashboards_store(
    clip: RenderResult, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    out = subprocess.run(
        [
            *(sys.executable, "-m", "tablescan", "demo", "--video", str(clip.video)),
            *("--labels", "--speed", "0", "--linger", "0", "--port", "0", "--data", str(data)),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert "dashboard: http://127.0.0.1:" in out.stdout and "/overlay/demo?token=" in out.stdout
    store = EvidenceStore(data)
    try:
        events = store.events("demo")
    finally:
        store.close()
    kinds = [e["type"] for e in events]
    assert kinds[0] == "match_start" and "hand_end" in kinds
    assert [e["seq"] for e in events] == list(range(events[0]["seq"], events[-1]["seq"] + 1))
    assert kinds.count("play") == 8 and "needs_referee" not in kinds  # the clip's two tricks
    assert "reader: the renderer's labels" in out.stdout
