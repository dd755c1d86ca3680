"""The shared card notation: parsing, formatting and decks."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.cards import Card, CardError, deck, format_cards, parse_card, parse_cards


def test_parse_examples() -> None:
    assert parse_cards("10H AS BJ, SJ 2c") == [
        Card("10", "H"),
        Card("A", "S"),
        Card("BJ", None),
        Card("SJ", None),
        Card("2", "C"),
    ]
    assert str(parse_card("qd")) == "QD"


@pytest.mark.parametrize("bad", ["", "1H", "11S", "AX", "JOKER", "H10", "10"])
def test_bad_card_is_clear_error(bad: str) -> None:
    with pytest.raises(CardError, match="card"):
        parse_card(bad)


def test_bad_entry_names_position() -> None:
    with pytest.raises(CardError, match="position 2"):
        parse_cards(["AS", "KS", "ZZ"])


def test_deck_sizes_and_points() -> None:
    two = deck(2)
    assert len(two) == 108 and len(set(two)) == 54
    assert sum(c.points for c in two) == 200


@given(st.lists(st.sampled_from(deck(1)), max_size=30))
def test_format_round_trip(cards: list[Card]) -> None:
    assert parse_cards(format_cards(cards)) == cards
