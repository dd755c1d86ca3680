"""``tablescan profiles`` and ``tablescan demo`` run as real subprocesses."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from engine.games import games
from engine.gouji.rules import Rules as GoujiRules
from engine.tractor import profile_ids

ROOT = Path(__file__).resolve().parents[3]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tablescan", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_profiles_lists_every_game_grouped() -> None:
    out = cli("profiles")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    heads = [i for i, line in enumerate(lines) if not line.startswith(" ")]
    assert [lines[i] for i in heads] == [f"{g.title}:" for g in games()]
    tractor = [line.split()[0] for line in lines[heads[0] + 1 : heads[1]]]
    assert tractor == profile_ids() and len(tractor) == 22
    gouji = [line.split()[0] for line in lines[heads[1] + 1 :]]
    assert gouji == GoujiRules.ids() and "gouji-core" in gouji


def test_profiles_show_cites_and_marks_inherited() -> None:
    out = cli("profiles", "show", "xize-1h")
    assert out.returncode == 0, out.stderr
    assert "[000 「甩错牌每张罚10分」]" in out.stdout
    assert " * ladder = " in out.stdout  # not stated by the sheet: from standard
    assert "[levels]  cite: (standard) A2.1" in out.stdout
    bad = cli("profiles", "show", "nope")
    assert bad.returncode == 2 and "unknown profile 'nope'" in bad.stderr
    assert len(bad.stderr.splitlines()) == 1


def test_demo_prints_referee_report() -> None:
    out = cli("demo", "--engine-only", "--seed", "3", "--hands", "2")
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "== hand 1" in text and "== hand 2" in text
    assert "trump:" in text and "bottom:" in text and "next banker" in text
    assert text.count("->") >= 2 * 10  # one line per trick
