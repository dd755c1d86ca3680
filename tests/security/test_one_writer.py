"""Fault 1: two nodes on one table and data folder interleaved one record and the referee
accused players of plays that never happened. Now the second node refuses, naming the first."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
from pathlib import Path

from evidence import EvidenceStore
from evidence.lock import TableLocked
from evidence.verify import verify_store
from tablescan.render import RenderResult
from tests.security.conftest import ENV, ROOT, tablescan
from tests.store.records import sample_record


def test_second_table_node_refuses_and_names_the_first(
    hand_clip: RenderResult, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    table = hand_clip.table.stem.removesuffix(".table")
    common = ["run", "--config", str(hand_clip.table), "--detector", "labels", "--data", str(data)]
    first = tablescan(*common, "-o", str(tmp_path / "a.jsonl"), "--speed", "1.0")
    timer = threading.Timer(90, first.kill)  # a hung node fails the test, never hangs it
    timer.start()
    try:
        assert first.stdout is not None
        assert json.loads(first.stdout.readline())["type"] == "match_start"  # it is recording
        second = tablescan(*common, "-o", str(tmp_path / "b.jsonl"), "--speed", "0")
        out, err = second.communicate(timeout=60)
        assert second.returncode == 2, err
        assert out == ""  # not one event from the second node
        assert f"pid {first.pid}" in err and "already being recorded" in err
        assert "Traceback" not in err
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=30)
    finally:
        timer.cancel()
        first.kill()
        first.communicate()
    with EvidenceStore(data) as store:
        record = store.events(table)
    assert [e["seq"] for e in record] == list(range(len(record)))
    assert [e["type"] for e in record].count("match_start") == 1
    assert verify_store(data).ok
    # a SIGKILLed holder leaves no lock behind: the restart takes the table at once
    again = tablescan(*common, "-o", str(tmp_path / "a.jsonl"), "--speed", "0")
    _out, err = again.communicate(timeout=90)
    assert again.returncode == 0, err


def test_two_writer_processes_one_table(tmp_path: Path) -> None:
    record = tmp_path / "record.jsonl"
    record.write_text("".join(json.dumps(e) + "\n" for e in sample_record()))
    data = str(tmp_path / "data")
    cmd = [sys.executable, "-m", "tests.store.writer", "--data", data, "--table", "t1"]
    slow = subprocess.Popen(
        [*cmd, str(record), "--delay", "0.2"],
        cwd=ROOT,
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert slow.stdout is not None
        assert slow.stdout.readline().startswith("resume")
        fast = subprocess.run(
            [*cmd, str(record)], cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=60
        )
        assert fast.returncode == 2, fast.stdout + fast.stderr
        assert f"pid {slow.pid}" in fast.stderr and "Traceback" not in fast.stderr
    finally:
        slow.kill()
        slow.communicate(timeout=30)


def test_lock_is_per_table_and_released_on_close(tmp_path: Path) -> None:
    a, b = EvidenceStore(tmp_path), EvidenceStore(tmp_path)
    try:
        a.lock_table("t1")
        b.lock_table("t2")  # another table: fine
        try:
            b.lock_table("t1")
        except TableLocked as e:
            assert "t1" in str(e) and "pid" in str(e)
        else:
            raise AssertionError("a second writer took a held table")
        a.close()
        b.lock_table("t1")  # the first closed: now free
    finally:
        b.close()
