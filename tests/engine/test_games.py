"""The game registry: one way from a record's ``match_start`` to a referee with its rules."""

from __future__ import annotations

from typing import Any

import pytest

from engine.errors import ProfileError
from engine.games import find_game, game_of_profile, games, referee_for
from engine.gouji import ProfileError as GoujiProfileError
from engine.gouji.referee import GoujiReferee
from engine.record import RecordError
from engine.tractor import ProfileError as TractorProfileError
from engine.tractor.referee import Referee

TRACTOR_START: dict[str, Any] = {
    "v": 1,
    "seq": 0,
    "t": 0.0,
    "type": "match_start",
    "game": "tractor",
    "profile": "standard",
    "seats": ["Ann", "Bo", "Cy", "Di"],
    "teams": [[0, 2], [1, 3]],
    "levels": ["2", "2"],
}
GOUJI_START = TRACTOR_START | {
    "game": "gouji",
    "profile": "gouji-core",
    "seats": ["A", "B", "C", "D", "E", "F"],
    "teams": [[0, 2, 4], [1, 3, 5]],
}


def test_every_game_is_found_by_name_and_lists_its_profiles() -> None:
    assert [g.name for g in games()] == ["tractor", "gouji"]
    assert find_game("gouji").profile_ids()[0].startswith("gouji-")
    assert "standard" in find_game("tractor").profile_ids()
    with pytest.raises(RecordError, match=r"unknown game 'poker' \(known: tractor, gouji\)"):
        find_game("poker")


def test_a_profile_names_its_game() -> None:
    assert game_of_profile("xize-1h").name == "tractor"
    assert game_of_profile("gouji-bie3").name == "gouji"
    assert game_of_profile("house/rules.toml").name == "tractor"
    with pytest.raises(RecordError, match=r"unknown profile 'nope'.*tractor: .*gouji: "):
        game_of_profile("nope")


def test_referee_for_builds_each_games_referee_with_the_records_options() -> None:
    ref = referee_for(TRACTOR_START | {"options": {"throw.allowed": False, "cards.decks": 4}})
    assert isinstance(ref, Referee)
    assert not ref.rules.throw.allowed and (ref.rules.decks, ref.rules.hand) == (4, 52)
    gouji = referee_for(GOUJI_START | {"options": {"sets.tieqian": False}})
    assert isinstance(gouji, GoujiReferee) and gouji.rules.sets.tieqian is False
    chosen = referee_for(TRACTOR_START, profile="xize-1h")
    assert isinstance(chosen, Referee) and chosen.rules.id == "xize-1h"


def test_referee_for_refuses_what_it_cannot_judge() -> None:
    with pytest.raises(RecordError, match="unknown game"):
        referee_for(TRACTOR_START | {"game": "poker"})
    with pytest.raises(RecordError, match="needs a match_start"):
        referee_for({"type": "hand_end"})
    with pytest.raises(RecordError, match="names no profile"):
        referee_for({"type": "match_start", "game": "gouji"})
    with pytest.raises(ProfileError, match=r"options: key 'decks'.*'cards.decks'"):
        referee_for(TRACTOR_START | {"options": {"decks": 4}})


def test_one_profile_error_for_both_games() -> None:
    assert TractorProfileError is ProfileError is GoujiProfileError
    for game, bad in (("tractor", {"tractor.nope": 1}), ("gouji", {"sets.nope": 1})):
        with pytest.raises(ProfileError, match="options: key"):
            find_game(game).load_rules(find_game(game).profile_ids()[0], bad)
