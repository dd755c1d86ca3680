"""Blocker: ``tablescan run`` on a rendered Gouji video fed no seat presses, so no deal had a
start or an end and every play waited for a referee. ``run`` now reads ``--presses`` or the
``NAME.presses.jsonl`` beside a video-file source (as ``replay`` does), and warns when a Gouji
table has neither that nor a seat controller."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tablescan.render_gouji import GoujiRender
from tests.security.conftest import ENV


def _run(clip: GoujiRender, out: Path, *extra: str) -> tuple[list[dict[str, object]], str]:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tablescan",
            "run",
            "--config",
            str(clip.table),
            "--detector",
            "labels",
            "-o",
            str(out),
            *extra,
        ],
        cwd=clip.video.parent,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in out.read_text().splitlines()], done.stderr


def test_run_reads_the_presses_beside_the_video(gouji_clip: GoujiRender, tmp_path: Path) -> None:
    record, err = _run(gouji_clip, tmp_path / "a.jsonl")
    truth = [json.loads(x) for x in gouji_clip.presses.read_text().splitlines()]
    assert [e["seat"] for e in record if e["type"] == "pass"] == [p["seat"] for p in truth]
    assert "seat presses from" in err and "no seat presses" not in err


def test_run_without_presses_says_so(gouji_clip: GoujiRender, tmp_path: Path) -> None:
    empty = tmp_path / "none.presses.jsonl"
    empty.write_text("", encoding="utf-8")
    record, err = _run(gouji_clip, tmp_path / "b.jsonl", "--presses", str(empty))
    assert not [e for e in record if e["type"] == "pass"]
    hidden = gouji_clip.presses.with_name("hidden.jsonl")
    gouji_clip.presses.rename(hidden)
    try:
        _record, err = _run(gouji_clip, tmp_path / "c.jsonl")
    finally:
        hidden.rename(gouji_clip.presses)
    assert "table g (Gouji): no seat presses" in err, err
