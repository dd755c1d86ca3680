"""``tablescan tournament`` as a real subprocess: the exact JSON contracts and the errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

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


def test_one_line_errors(tmp_path: Path) -> None:
    base = ["standings", "--format", "gouji-qingdao", "--json"]
    ok = {"stage": 1, "round": 1, "a": "队1", "b": "队2", "games": [game("a", 6, 0)] * 3}
    unknown = cli(*base, *files(tmp_path, {**ok, "b": "队9"}))
    assert unknown.returncode == 2
    assert unknown.stderr.strip().endswith("results.jsonl:1: unknown entrant '队9'")
    twice = cli(*base, *files(tmp_path, ok, {**ok, "round": 2}))
    assert (
        twice.returncode == 2
        and "results.jsonl:2: 队1 v 队2 played twice in stage 1" in twice.stderr
    )
    both = {**ok, "games": [game("a", 6, 2)] * 3}
    cannot = cli(*base, *files(tmp_path, both))
    assert cannot.returncode == 2 and "只记正分，不记负分" in cannot.stderr
    four = {**ok, "games": [game("a", 6, 0)] * 4}
    many = cli(*base, *files(tmp_path, four))
    assert "4 games: a match of stage 1 plays at most 3" in many.stderr
    for r in (unknown, twice, cannot, many):
        assert len(r.stderr.strip().splitlines()) == 1 and not r.stdout
