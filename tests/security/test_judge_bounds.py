"""Fault 8 (judge): ``judge`` ran out of memory on a seq jump or a profile path like
``/dev/zero``. Now a gap is reported by its ends, reads are bounded and only regular files
(or pipes, for records) are read. Real ``tablescan judge`` processes under a memory cap."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.dashboard.conftest import match_record
from tests.security.conftest import ENV, ROOT

MEMORY_CAP = 2 << 30  # far above what judging a record needs


def capped() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def judge(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tablescan", "judge", *args],
        cwd=ROOT,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=capped,
    )


def write(path: Path, events: list[dict[str, Any]], extra: str = "") -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in events) + extra)
    return path


def test_a_seq_jump_is_one_gap_not_a_memory_error(tmp_path: Path) -> None:
    events = match_record()[:10]
    jump = {**events[-1], "seq": 10**12}
    result = judge(str(write(tmp_path / "r.jsonl", [*events[:-1], jump])))
    assert result.returncode == 1, result.stderr[-2000:]
    assert "gap: seq 9..999999999999 missing" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_profile_path_to_a_device_is_refused(tmp_path: Path) -> None:
    events = match_record()[:10]
    start = {**events[0], "profile": "/dev/zero"}
    result = judge(str(write(tmp_path / "r.jsonl", [start, *events[1:]])))
    assert result.returncode == 2 and "/dev/zero: not a regular file" in result.stderr, (
        result.stderr[-2000:]
    )
    link = tmp_path / "zero.toml"
    link.symlink_to("/dev/zero")
    result = judge(str(tmp_path / "r.jsonl"), "--profile", str(link))
    assert result.returncode == 2 and "not a regular file" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_record_that_never_ends_is_refused(tmp_path: Path) -> None:
    result = judge("/dev/zero")
    assert result.returncode == 2 and "not a regular file" in result.stderr
    assert "Traceback" not in result.stderr


def test_an_endless_line_is_skipped_and_the_rest_judged(tmp_path: Path) -> None:
    events = match_record()[:10]
    path = write(tmp_path / "r.jsonl", events[:5], extra="x" * (3 << 20) + "\n")
    with path.open("a") as f:
        f.write("".join(json.dumps(e) + "\n" for e in events[5:]))
    result = judge(str(path), "--json")
    assert result.returncode == 1, result.stderr[-2000:]
    assert "line 6: line longer than" in result.stderr
    assert "Traceback" not in result.stderr


def test_deep_nesting_huge_numbers_and_lone_surrogates_are_one_line_each(tmp_path: Path) -> None:
    """Before: RecursionError / ValueError tracebacks out of json.loads ended the judging."""
    events = match_record()[:10]
    poison = [
        "[" * 100_000 + "]" * 100_000,
        '{"v":1,"seq":' + "9" * 100_000 + ',"t":1.0,"type":"pass","seat":1}',
        '{"v":1,"seq":20,"t":1.0,"type":"pass","seat":1,"meta":{"who":"\\ud800"}}',
    ]
    for mode in ([], ["--json"]):
        result = judge(str(write(tmp_path / "r.jsonl", events, "\n".join(poison) + "\n")), *mode)
        assert result.returncode == 1, result.stderr[-2000:]
        assert "Traceback" not in result.stderr
        errors = [ln for ln in result.stderr.splitlines() if ln.startswith("record error")]
        assert [e.split(": ", 1)[1] for e in errors] == [
            "line 11: not JSON: nested 100000 deep (at most 64)",
            "line 12: not JSON: a number with 100000 digits (at most 40)",
            "line 13: not JSON: a lone surrogate '\\ud800' in a string",
        ]
