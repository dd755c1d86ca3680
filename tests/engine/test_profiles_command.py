"""``tablescan profiles`` over the game registry: both games listed, ``show`` for each."""

from __future__ import annotations

import argparse

import pytest

from engine.games import find_game, game_of_profile, games
from tablescan.commands import profiles


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    action, ident = (*argv, None, None)[:2]
    rc = profiles.run(argparse.Namespace(action=action or "list", id=ident))
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_list_groups_every_profile_under_its_game(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out, _ = run(capsys)
    assert rc == 0
    groups: dict[str, list[str]] = {}
    for line in out.splitlines():
        if not line.startswith(" "):
            current = groups.setdefault(line.rstrip(":"), [])
        else:
            current.append(line.split()[0])
    assert groups == {g.title: g.profile_ids() for g in games()}
    assert "gouji-core" in groups[find_game("gouji").title]
    assert "standard" in groups[find_game("tractor").title]


@pytest.mark.parametrize("pid", ["gouji-core", "gouji-bie3", "xize-1h", "standard"])
def test_show_works_for_each_game(capsys: pytest.CaptureFixture[str], pid: str) -> None:
    rc, out, err = run(capsys, "show", pid)
    assert rc == 0 and err == ""
    assert out.splitlines()[0].startswith(f"{pid}: ")
    sections = [line for line in out.splitlines() if line.startswith("[")]
    if game_of_profile(pid).name == "gouji":
        assert [s.strip("[]") for s in sections] == list(profiles.GOUJI_SECTIONS)


def test_show_gouji_cites_the_sheet_and_marks_what_comes_from_core(
    capsys: pytest.CaptureFixture[str],
) -> None:
    rc, out, _ = run(capsys, "show", "gouji-bie3")
    assert rc == 0
    lines = out.splitlines()
    i = lines.index("   tieqian = False")  # the sheet's own rule, not starred
    assert lines[i + 1].strip().startswith("cite: ") and "L247" in lines[i + 1]
    assert " * joker_compare = 'two_part'" in lines  # not stated by the sheet: gouji-core
    _, core, _ = run(capsys, "show", "gouji-core")
    assert " * " not in core and "inherits" not in core


def test_show_unknown_profile_is_one_line_naming_both_games(
    capsys: pytest.CaptureFixture[str],
) -> None:
    rc, out, err = run(capsys, "show", "nope")
    assert rc == 2 and out == ""
    assert len(err.splitlines()) == 1
    assert "unknown profile 'nope'" in err and "gouji-core" in err and "standard" in err
    rc, _, err = run(capsys, "show")
    assert rc == 2 and "usage" in err
