"""Profile loading: inheritance, overrides, TOML paths, and one clear error per bad file."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.tractor import ProfileError, Rules


def write(tmp_path: Path, text: str, name: str = "custom.toml") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_inherits_standard_and_marks_it() -> None:
    rules = Rules.load("shanghai-2000")
    assert rules.tractor.aa22 and rules.must_play == ("A",)
    assert rules.decks == 2  # not stated by the sheet: from standard
    assert "cards.decks" in rules.inherited
    assert "tractor.aa22" not in rules.inherited
    assert "AA22" in rules.cite("tractor")


def test_overrides_and_path(tmp_path: Path) -> None:
    four = Rules.load("standard", {"cards.decks": 4, "cards.hand": 52, "tractor.triples": True})
    assert (four.decks, four.hand, four.tractor.triples) == (4, 52, True)
    assert "cards.decks" not in four.inherited
    p = write(tmp_path, 'name = "house rules"\n[tractor]\njoker = false\n')
    rules = Rules.load(p)
    assert rules.id == "custom" and not rules.tractor.joker and rules.inherits == "standard"
    assert Rules.load(str(p)) == rules


@pytest.mark.parametrize(
    ("text", "key", "problem"),
    [
        ("[tractor]\njokers = true\n", "tractor.jokers", "unknown key"),
        ("[tractors]\njoker = true\n", "tractors", "unknown section"),
        ("[cards]\ndecks = 'two'\n", "cards.decks", "expected int"),
        ("[cards]\nhand = 26\n", "cards.hand", "impossible table"),
        ("[levels]\nstart = '1'\n", "levels.start", "is not a level"),
        ("[bottom]\nscheme = 'triple'\n", "bottom.scheme", "is not one of"),
        (
            "[advance]\nbands = [{ max = 75, side = 'banker', levels = 1 }]\n",
            "advance.bands",
            "no band covers score 80",
        ),
        (
            "[advance]\nbands = [{ side = 'banker', levels = 1 }, { min = 80, side = 'attackers', "
            "levels = 0 }]\n",
            "advance.bands",
            "overlap at score 80",
        ),
        (
            "[advance]\nbands = [{ min = 0, side = 'banker' }]\n",
            "advance.bands[0].levels",
            "missing",
        ),
        (
            "[advance]\nbands = [{ side = 'judge', levels = 1 }]\n",
            "advance.bands[0].side",
            "is not",
        ),
        ("[follow]\nladder5 = ['4+2']\n", "follow.ladder5", "not a split of 5"),
        (
            "[knockback]\nrules = [{ level = 'J', unit = 'J' }]\n",
            "knockback.rules[0].to",
            "missing",
        ),
        ("[penalties.revoke]\npoint = 3\n", "penalties.revoke.point", "unknown key"),
    ],
)
def test_bad_profile_is_one_clear_error(tmp_path: Path, text: str, key: str, problem: str) -> None:
    p = write(tmp_path, text)
    with pytest.raises(ProfileError) as err:
        Rules.load(p)
    msg = str(err.value)
    assert str(p) in msg and key in msg and problem in msg


def test_missing_value_without_parent(tmp_path: Path) -> None:
    p = write(tmp_path, 'inherits = ""\nid = "bare"\n[cards]\ndecks = 2\n')
    with pytest.raises(ProfileError, match=r"bare.*|missing value"):
        Rules.load(p)


def test_unknown_profile_and_override(tmp_path: Path) -> None:
    with pytest.raises(ProfileError, match=r"unknown .*known: standard"):
        Rules.load("no-such-profile")
    with pytest.raises(ProfileError, match=r"options: key 'colour': unknown \(use 'section.key'\)"):
        Rules.load("standard", {"colour": "red"})
    with pytest.raises(ProfileError, match=r"options: key 'decks': unknown \(use 'cards.decks'\)"):
        Rules.load("standard", {"decks": 4})
    with pytest.raises(ProfileError, match=r"options: key 'tractor.colour': unknown"):
        Rules.load("standard", {"tractor.colour": True})
    with pytest.raises(ProfileError, match=r"key 'tractor.gap': expected bool"):
        Rules.load("standard", {"tractor.gap": 1})
    with pytest.raises(ProfileError, match="not valid TOML"):
        Rules.load(write(tmp_path, "[cards\n"))
    with pytest.raises(ProfileError, match="no such profile file"):
        Rules.load(tmp_path / "absent.toml")


def test_a_deck_count_alone_derives_the_hand_from_the_sheets_bottom() -> None:
    """``Rules.load``'s own example: four decks on ``standard`` is the four-deck sheet's table
    (TRACTOR.md B7: 52 cards each, a bottom of 8), not an impossible one."""
    four = Rules.load("standard", {"cards.decks": 4})
    assert (four.decks, four.hand, four.bottom) == (4, 52, 8)
    sheet = Rules.load("four-deck")
    assert (sheet.hand, sheet.bottom) == (four.hand, four.bottom)
    given = Rules.load("standard", {"cards.decks": 1, "cards.hand": 12})
    assert (given.hand, given.bottom) == (12, 6)
    with pytest.raises(ProfileError, match=r"options: key 'cards.decks': 3 decks .*cards.hand"):
        Rules.load("standard", {"cards.decks": 3})
