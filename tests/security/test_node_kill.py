"""Fault 8 (node): a kill right after ``hand_end`` lost that hand's outcome rulings (the
restart refuses a finished hand), and the ``-o`` JSONL missed an event stored just before a
kill (a resumed node does not write stored events again). The kill is made exact by
``tests.security.killer`` (the real CLI, SIGKILLing itself at that point).

Now: a restart resumes between deals and the stored record is judged again, its rulings
chained once each (a finished match: chained, then the start is refused); a resumed node first
appends to ``-o`` the stored events its last run did not write there."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from evidence import EvidenceStore
from tablescan.render import RenderResult
from tests.security.conftest import ENV, ROOT


def node_args(clip: RenderResult, data: Path, out: Path) -> list[str]:
    node = ["run", "--config", str(clip.table), "--detector", "labels"]
    return [*node, "--data", str(data), "-o", str(out)]


def run(args: list[str], killer: list[str] | None = None) -> subprocess.CompletedProcess[str]:
    prefix = ["-m", "tests.security.killer", *killer, "--"] if killer else ["-m", "tablescan"]
    return subprocess.run(
        [sys.executable, *prefix, *args],
        cwd=ROOT,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=120,
    )


def stored(data: Path, table: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    with EvidenceStore(data) as store:
        return store.events(table), [r.data for r in store.rows(table=table, kind="ruling")]


def table_of(clip: RenderResult) -> str:
    return clip.table.stem.removesuffix(".table")


def test_kill_right_after_hand_end_keeps_the_outcome_rulings(
    hand_clip: RenderResult, tmp_path: Path
) -> None:
    table = table_of(hand_clip)
    clean = run(node_args(hand_clip, tmp_path / "clean", tmp_path / "clean.jsonl"))
    assert clean.returncode == 0, clean.stderr[-2000:]
    _events, want = stored(tmp_path / "clean", table)
    data = tmp_path / "killed"
    args = node_args(hand_clip, data, tmp_path / "killed.jsonl")
    killed = run(args, ["after-hand-end", "0"])
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    events, before = stored(data, table)
    assert events[-1]["type"] == "hand_end" and len(before) < len(want)  # the window was hit
    run(args)  # the operator restarts the node
    _events, after = stored(data, table)
    assert after == want


def test_output_jsonl_misses_no_event_after_a_kill(hand_clip: RenderResult, tmp_path: Path) -> None:
    table = table_of(hand_clip)
    data, out = tmp_path / "data", tmp_path / "out.jsonl"
    args = node_args(hand_clip, data, out)
    killed = run(args, ["after-event", "5"])
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    again = run(args)
    assert again.returncode == 0, again.stderr[-2000:]
    record, _rulings = stored(data, table)
    written = [json.loads(line) for line in out.read_text().splitlines()]
    assert [e["seq"] for e in written] == [e["seq"] for e in record]
