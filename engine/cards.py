"""The card model and the one notation used everywhere (record, CLI, vision, dashboard).

A card is one of 54 identities: rank + suit (``10H``, ``AS``, ``2C``, ``QD``) or a joker
(``BJ`` big/red, ``SJ`` small/black). Several decks simply repeat identities, so two equal
``Card`` objects are two physical copies of the same face.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

RANKS: tuple[str, ...] = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS: tuple[str, ...] = ("S", "H", "C", "D")
JOKERS: tuple[str, ...] = ("BJ", "SJ")
RANK_INDEX = {r: i for i, r in enumerate(RANKS)}


class CardError(ValueError):
    """A card string that is not in the shared notation."""


@dataclass(frozen=True, slots=True)
class Card:
    """One card face. ``suit`` is None for the two jokers, whose ``rank`` is ``BJ``/``SJ``."""

    rank: str
    suit: str | None

    def __post_init__(self) -> None:
        if self.suit is None:
            if self.rank not in JOKERS:
                raise CardError(f"card {self.rank!r}: only BJ and SJ have no suit")
        elif self.rank not in RANK_INDEX or self.suit not in SUITS:
            raise CardError(f"card {self.rank}{self.suit!s}: unknown rank or suit")

    @property
    def is_joker(self) -> bool:
        return self.suit is None

    @property
    def points(self) -> int:
        """Counting value in the 80-points family: 5 → 5, 10 and K → 10."""
        return {"5": 5, "10": 10, "K": 10}.get(self.rank, 0) if self.suit else 0

    def __str__(self) -> str:
        return self.rank if self.suit is None else self.rank + self.suit

    def __repr__(self) -> str:
        return f"Card({self})"


def parse_card(text: str) -> Card:
    """``"10H"`` → Card. Case-insensitive; anything else is a ``CardError`` naming the text."""
    if not isinstance(text, str):
        raise CardError(f"card {text!r}: expected a string such as '10H', 'AS' or 'BJ'")
    s = text.strip().upper()
    if s in JOKERS:
        return Card(s, None)
    rank, suit = s[:-1], s[-1:]
    if rank not in RANK_INDEX or suit not in SUITS:
        raise CardError(
            f"card {text!r}: expected rank (2-10, J, Q, K, A) + suit (S, H, C, D), or BJ / SJ"
        )
    return Card(rank, suit)


def parse_cards(cards: str | Iterable[str | Card]) -> list[Card]:
    """``"10H AS BJ"`` (spaces or commas) or ``["10H", "AS", "BJ"]`` → list of ``Card``.

    A bad entry raises ``CardError`` naming it and its position.
    """
    items: Iterable[str | Card]
    items = cards.replace(",", " ").split() if isinstance(cards, str) else cards
    out: list[Card] = []
    for i, item in enumerate(items):
        if isinstance(item, Card):
            out.append(item)
            continue
        try:
            out.append(parse_card(item))
        except CardError as e:
            raise CardError(f"position {i}: {e}") from None
    return out


def format_cards(cards: Iterable[Card]) -> str:
    """The inverse of ``parse_cards`` for strings: space-separated notation."""
    return " ".join(str(c) for c in cards)


def deck(decks: int = 1, jokers: bool = True) -> list[Card]:
    """All cards of ``decks`` full packs, in a fixed order (shuffle it yourself)."""
    if decks < 1:
        raise ValueError(f"decks must be >= 1, got {decks}")
    one = [Card(r, s) for s in SUITS for r in RANKS]
    if jokers:
        one += [Card("BJ", None), Card("SJ", None)]
    return one * decks
