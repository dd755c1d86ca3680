"""``tablescan tournament`` as a real subprocess: the exact JSON contracts and the errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tablescan.cli import main

ROOT = Path(__file__).resolve().parents[2]


def cli(*argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "TABLESCAN_LANG": "en"}
    return subprocess.run(
        [sys.executable, "-m", "tablescan", "tournament", *argv],
        capture_output=True, text=True, env=env, cwd=ROOT, check=False,
    )  # fmt: skip


def files(tmp_path: Path, *matches: dict[str, object]) -> list[str]:
    (tmp_path / "entrants.csv").write_text("entrant,seed\n队1,1\n队2,2\n队3,3\n队4,\n")
    (tmp_path / "results.jsonl").write_text(
        "".join(json.dumps(m, ensure_ascii=False) + "\n" for m in matches)
    )
    return [
        "--entrants",
        str(tmp_path / "entrants.csv"),
        "--results",
        str(tmp_path / "results.jsonl"),
    ]


def game(winner: str, a: int, b: int) -> dict[str, object]:
    return {"winner": winner, "a_points": a, "b_points": b}


def test_formats_and_show_name_kinds_and_citations() -> None:
    out = cli("formats").stdout
    assert "gouji-qingdao" in out and "round_robin → knockout" in out
    shown = cli("show", "chaodipi-h5")
    assert shown.returncode == 0
    assert "(kind: knockout)" in shown.stdout and "(kind: swiss)" in shown.stdout
    assert "「进行三轮瑞士赛」[002]" in shown.stdout
    bad = cli("show", "no-such")
    assert bad.returncode == 2 and bad.stderr.startswith("error: unknown format 'no-such'")


def test_standings_json(tmp_path: Path) -> None:
    r = cli(
        "standings", "--format", "gouji-qingdao", "--json",
        *files(
            tmp_path,
            {"stage": 1, "round": 1, "a": "队1", "b": "队2",
             "games": [game("a", 6, 0), game("a", 2, 0), game("b", 0, 4)]},
            {"stage": 1, "round": 1, "a": "队3", "b": "队4",
             "games": [game("a", 6, 0), game("b", 0, 2), game("b", 0, 4)]},
        ),
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["standings"][0] == {
        "rank": 1, "entrant": "队1", "match_points": 1, "game_points": 8,
        "tiebreak": "ahead of 队4 on accumulated game points",
    }  # fmt: skip
    assert [s["entrant"] for s in doc["standings"]] == ["队1", "队4", "队3", "队2"]


def test_pair_json_is_reproducible(tmp_path: Path) -> None:
    args = ["pair", "--format", "community-10ka", "--round", "1", "--seed", "7", "--json"]
    one = cli(*args, *files(tmp_path))
    assert one.returncode == 0, one.stderr
    doc = json.loads(one.stdout)
    assert len(doc["pairs"]) == 2 and doc["bye"] is None
    assert sorted(x for p in doc["pairs"] for x in p) == ["队1", "队2", "队3", "队4"]
    assert cli(*args, *files(tmp_path)).stdout == one.stdout


def test_an_error_is_one_line_and_exit_2(tmp_path: Path) -> None:
    ok = {"stage": 1, "round": 1, "a": "队1", "b": "队9", "games": [game("a", 6, 0)] * 3}
    r = cli("standings", "--format", "gouji-qingdao", "--json", *files(tmp_path, ok))
    assert r.returncode == 2 and not r.stdout
    assert r.stderr.strip().endswith("results.jsonl:1: unknown entrant '队9'")
    assert len(r.stderr.strip().splitlines()) == 1


def inproc(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    """The same command in this process (the subprocess start-up is the slow part)."""
    rc = main(["tournament", *argv, "--lang", "en"])
    out = capsys.readouterr()
    assert not out.out and len(out.err.strip().splitlines()) == 1, out
    return rc, out.err


def test_results_the_format_cannot_have(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    base = ["standings", "--format", "gouji-qingdao", "--json"]
    ok = {"stage": 1, "round": 1, "a": "队1", "b": "队2", "games": [game("a", 6, 0)] * 3}
    rc, err = inproc(capsys, *base, *files(tmp_path, ok, {**ok, "round": 2}))
    assert rc == 2 and "results.jsonl:2: 队1 v 队2 played twice in stage 1" in err
    _, err = inproc(capsys, *base, *files(tmp_path, {**ok, "games": [game("a", 6, 2)] * 3}))
    assert "只记正分，不记负分" in err
    _, err = inproc(capsys, *base, *files(tmp_path, {**ok, "games": [game("a", 6, 0)] * 4}))
    assert "4 games: a match of stage 1 plays at most 3" in err
    _, err = inproc(capsys, *base, *files(tmp_path, {**ok, "games": [game("b", 6, 0)] * 3}))
    assert "winner b with 0 points to 6" in err
    ko = ["standings", "--format", "community-10ka", "--json"]
    first = {"stage": 1, "round": 1, "a": "队1", "b": "队2", "games": [game("a", 12, 4)]}
    again = {"stage": 1, "round": 2, "a": "队2", "b": "队3", "games": [game("a", 12, 4)]}
    _, err = inproc(capsys, *ko, *files(tmp_path, first, again))
    assert "results.jsonl:2: 队2 was knocked out in stage 1 round 1 (" in err
    _, err = inproc(capsys, *ko, *files(tmp_path, {**first, "games": [game("draw", 5, 5)]}))
    assert "a draw, which a game of format community-10ka cannot be" in err
    (tmp_path / "bad.csv").write_text("team,seed\nA,1\n")
    _, err = inproc(
        capsys,
        "pair",
        "--format",
        "cyclic-eat",
        "--entrants",
        str(tmp_path / "bad.csv"),
        "--round",
        "1",
    )
    assert "bad.csv: line 1: header needs an 'entrant' column" in err
