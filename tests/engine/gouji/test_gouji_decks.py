"""The deck count as a profile setting (``deal.decks``): every sheet plays four decks (C2,
「共216张牌」 L247), a house may play 2 or 3; the deal, the card counts and the physical-limit
check follow the rules' value, never a hard-coded four."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from engine.gouji import ProfileError, Rules
from engine.gouji.rules import load_profile

HEAD = 'id = "gouji-house"\ninherits = "gouji-core"\ntitle = "house"\nlines = "L1"\n'


def test_every_sheet_plays_four_decks_of_36_a_seat() -> None:
    for pid in Rules.ids():
        rules = Rules.load(pid)
        assert (rules.deal.decks, rules.deal.hand) == (4, 36), pid


@pytest.mark.parametrize(("decks", "hand"), [(2, 18), (3, 27), (4, 36)])
def test_a_house_sets_the_decks_by_option_or_by_its_own_file(
    tmp_path: Path, decks: int, hand: int
) -> None:
    assert Rules.load("gouji-bie3", {"deal.decks": decks}).deal.hand == hand
    (tmp_path / "gouji-house.toml").write_text(
        HEAD + f'[deal]\ndecks = {decks}\n[cite]\n"deal.decks" = "house rule"\n',
        encoding="utf-8",
    )
    rules = load_profile("gouji-house", folder=tmp_path)
    assert (rules.deal.decks, rules.deal.hand) == (decks, hand)


@pytest.mark.parametrize("bad", [1, 5, 0, "4", True, 3.0])
def test_a_bad_deck_count_is_refused_naming_the_key(tmp_path: Path, bad: Any) -> None:
    with pytest.raises(ProfileError, match=r"key deal\.decks: expected"):
        Rules.load("gouji-core", {"deal.decks": bad})
    value = f'"{bad}"' if isinstance(bad, str) else str(bad).lower()
    (tmp_path / "gouji-house.toml").write_text(
        HEAD + f'[deal]\ndecks = {value}\n[cite]\n"deal.decks" = "house rule"\n',
        encoding="utf-8",
    )
    with pytest.raises(ProfileError, match=r"gouji-house\.toml: key deal\.decks: expected"):
        load_profile("gouji-house", folder=tmp_path)


def test_an_uncited_deck_count_in_a_profile_is_refused(tmp_path: Path) -> None:
    (tmp_path / "gouji-house.toml").write_text(HEAD + "[deal]\ndecks = 3\n", encoding="utf-8")
    with pytest.raises(ProfileError, match=r"key deal\.decks: overridden without a \[cite\]"):
        load_profile("gouji-house", folder=tmp_path)
