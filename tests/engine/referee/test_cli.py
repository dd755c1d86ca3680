"""``tablescan simulate`` and ``tablescan judge`` as real subprocesses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[3]


def tablescan(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tablescan", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        input=stdin,
        timeout=120,
        check=False,
    )


def test_simulate_then_judge_json_finds_every_injection(tmp_path: Path) -> None:
    record = tmp_path / "match.jsonl"
    sim = tablescan(
        "simulate", "--profile", "xize-1h", "--seed", "5", "--revokes", "4", "-o", str(record)
    )
    assert sim.returncode == 0, sim.stderr
    truth = json.loads((tmp_path / "match.truth.json").read_text(encoding="utf-8"))
    assert len(truth["injected"]) == 4
    out = tablescan("judge", str(record), "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    hand = report["hands"][0]
    assert set(hand) >= {
        "hand",
        "trump",
        "banker",
        "tricks",
        "bottom",
        "attacker_points",
        "violations",
        "outcome",
        "levels_after",
    }
    assert set(hand["trump"]) == {"level", "suit"}
    assert set(hand["tricks"][0]) >= {"leader", "plays", "winner", "points"}
    assert set(hand["tricks"][0]["plays"][0]) == {"seat", "cards", "seq"}
    assert set(hand["bottom"]) == {"cards", "multiplier", "points"}
    assert set(hand["outcome"]) >= {"side", "levels", "next_banker"}
    assert all(len(h["levels_after"]) == 2 for h in report["hands"] if h["outcome"])
    flagged = {
        (v["seat"], v["at_seq"], v["proven_by_seq"])
        for h in report["hands"]
        for v in h["violations"]
    }
    for inj in truth["injected"]:
        assert (inj["seat"], inj["at_seq"], inj["proven_by_seq"]) in flagged
    assert len(flagged) == 4


def test_simulate_to_stdout_and_judge_text_from_stdin() -> None:
    sim = tablescan("simulate", "--profile", "standard", "--seed", "2", "--hands", "1")
    assert sim.returncode == 0
    assert "truth not written" in sim.stderr
    out = tablescan("judge", "-", stdin=sim.stdout)
    assert out.returncode == 0, out.stderr
    assert "tractor match, profile standard" in out.stdout
    assert "trick  1 (" in out.stdout
    assert "outcome:" in out.stdout


def test_judge_profile_override_and_bad_lines(tmp_path: Path) -> None:
    sim = tablescan("simulate", "--profile", "standard", "--seed", "3", "--hands", "1")
    lines = sim.stdout.splitlines()
    lines.insert(3, "not json at all")
    record = tmp_path / "m.jsonl"
    record.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tablescan("judge", str(record), "--profile", "jiawang", "--json")
    assert out.returncode == 1
    assert "record error: line 4: not JSON" in out.stderr
    report = json.loads(out.stdout)
    assert report["profile"] == "jiawang"
    assert report["record_errors"][0]["line"] == 4
    assert len(report["hands"]) == 1


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("simulate", "--profile", "no-such-sheet"), "unknown profile 'no-such-sheet'"),
        (("judge", "/nonexistent/m.jsonl"), "cannot read"),
    ],
)
def test_clear_errors(args: tuple[str, ...], words: str) -> None:
    out = tablescan(*args)
    assert out.returncode == 2
    assert words in out.stderr


def test_gouji_profile_dispatches_to_the_gouji_engine(tmp_path: Path) -> None:
    record = tmp_path / "g.jsonl"
    sim = tablescan("simulate", "--profile", "gouji-bie3", "--seed", "4", "-o", str(record))
    assert sim.returncode == 0, sim.stderr
    assert (tmp_path / "g.truth.json").exists()
    out = tablescan("judge", str(record), "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["game"] == "gouji"
