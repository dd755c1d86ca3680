"""The short rendered clip replayed end to end with the shipped recognizer (real onnxruntime).

The recognizer is imperfect on held-out designs; what must hold is the pipeline's contract:
the record stays valid, and no play it writes is a silent misread (each wrong one carries a
``needs_referee``).
"""

from __future__ import annotations

import json
from pathlib import Path

from engine.record import read_record
from tablescan.config import load_config
from tablescan.render import RenderResult, played, read_truth
from tablescan.wiring import build_node, load_detector, run_source
from vision.sources import open_source

MODEL = Path(__file__).resolve().parents[2] / "models" / "cards.onnx"


def test_shipped_model_replay_keeps_the_record_valid_and_never_guesses_silently(
    clip: RenderResult,
) -> None:
    cfg = load_config(clip.table)
    node = build_node(cfg, load_detector(cfg, MODEL), keep_evidence=False)
    stats = run_source(node, open_source(str(clip.video)))
    assert stats.reads > 0 and not stats.errors
    events, errors = read_record([json.dumps(e) for e in node.events])
    assert errors == [] and events[-1]["type"] == "hand_end"
    truth = played(read_truth(clip.truth))
    flagged = {e["ref"] for e in node.events if e["type"] == "needs_referee"}
    plays = [e for e in node.events if e["type"] == "play"]
    for ev, read in zip(plays, played(node.events), strict=True):
        if read not in truth:
            assert ev["seq"] in flagged, f"silent misread: {read}"
