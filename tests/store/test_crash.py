"""SIGKILL a real store-writing process mid-hand, restart it: nothing acknowledged is lost,
nothing is stored twice, the chain verifies and the hand resumes to its end."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from evidence import EvidenceStore
from evidence.verify import verify_store
from tests.store.records import sample_record

ROOT = Path(__file__).resolve().parents[2]


def start_writer(data: Path, record: Path, delay: float) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.store.writer",
            str(record),
            "--data",
            str(data),
            "--table",
            "t7",
            "--delay",
            str(delay),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


def test_sigkill_mid_hand_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    events = sample_record(hands=2, tricks=6)
    record = tmp_path / "match.jsonl"
    record.write_text("".join(json.dumps(e) + "\n" for e in events))
    data = tmp_path / "data"

    proc = start_writer(data, record, delay=0.005)
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "resume -1"
    acked: list[int] = []
    while len(acked) < 20:  # well inside hand 1 (it spans seqs 1..27)
        line = proc.stdout.readline()
        assert line.startswith("ack "), line
        acked.append(int(line.split()[1]))
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    proc.stdout.close()
    assert proc.returncode == -signal.SIGKILL

    with EvidenceStore(data) as store:
        stored = [e["seq"] for e in store.events("t7")]
    assert set(acked) <= set(stored), "an acknowledged event was lost"
    assert stored == list(range(len(stored))), "the record has a gap or a duplicate"
    assert len(stored) < len(events), "the kill came too late to test a resume"
    assert verify_store(data).ok

    proc = start_writer(data, record, delay=0)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0
    lines = out.splitlines()
    assert lines[0] == f"resume {stored[-1]}" and lines[-1] == "done"

    with EvidenceStore(data) as store:
        final = store.events("t7")
        frames = [m for m in store.media_index() if m["table"] == "t7"]
    assert final == events, "the resumed record differs from the match as played"
    assert sorted(m["seq"] for m in frames) == list(range(len(events)))
    report = verify_store(data)
    assert report.ok, report.summary()
