"""Throws (甩牌): is a multi-unit lead unbeatable, and if not, what must be played instead.

A throw stands only if no other hand can beat any of its units with a higher unit of the same
shape in the same suit (A4.4; ruffing is not beating here). If one can, the thrower plays the
smallest unit of the failing shape (B5, B10, B18; of the largest such shape when several
fail, as the sheets' examples read) and the profile's penalty applies.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from engine.cards import Card, parse_cards
from engine.tractor.combos import Combo, Unit, best_key, classify
from engine.tractor.order import Trump, context
from engine.tractor.rules import Penalty, Rules


@dataclass(frozen=True, slots=True)
class ThrowCheck:
    """``ok``: the throw stands. Otherwise ``forced`` is what the thrower must play,
    ``beaten`` the failing unit, ``by`` the index of a hand that beats it, and ``penalty``
    what the profile charges (``cards_back``: how many cards were not thrown)."""

    ok: bool
    forced: list[Card] = field(default_factory=list)
    reason: str = ""
    beaten: tuple[Card, ...] = ()
    by: int | None = None
    penalty: Penalty | None = None
    cards_back: int = 0


def beats(unit: Unit, counts: Counter[Card], trump: Trump, rules: Rules) -> bool:
    ctx = context(trump, rules)
    k = best_key(counts, unit.shape, unit.suit, ctx)
    if k is not None and k > unit.key:
        return True
    if rules.decks >= 4 and unit.width == 2 and unit.length >= 2:
        for w in (3, 4):
            if (
                unit.size % w == 0
                and best_key(counts, (w, unit.size // w), unit.suit, ctx) is not None
            ):
                return True
    return False


def check_throw(
    lead: str | Iterable[str | Card] | Combo,
    other_hands: Iterable[str | Iterable[str | Card]],
    trump: Trump,
    rules: Rules,
) -> ThrowCheck:
    """Judge a lead against the other hands (or, for ``against = "unplayed"`` profiles, one
    list holding every unplayed card outside the thrower's hand)."""
    combo = lead if isinstance(lead, Combo) else classify(lead, trump, rules)
    if combo.suit is None:
        return ThrowCheck(False, [], "a throw must be of one suit", ())
    if not combo.is_throw:
        return ThrowCheck(True, list(combo.cards), "a single unit, not a throw")
    if not rules.throw.allowed:
        u = min(combo.units, key=lambda u: (u.size, u.key))
        return ThrowCheck(False, list(u.cards), "throws are not allowed", u.cards)
    ctx = context(trump, rules)
    hands: list[Counter[Card]] = []
    for h in other_hands:
        hands.append(Counter(c for c in parse_cards(h) if ctx.info[c].suit == combo.suit))
    failing: list[tuple[Unit, int]] = []
    for unit in combo.units:
        for i, counts in enumerate(hands):
            if beats(unit, counts, trump, rules):
                failing.append((unit, i))
                break
    if not failing:
        return ThrowCheck(True, list(combo.cards), "no other hand beats any unit")
    # The largest failing shape decides (B5: AA beats the pairs -> QQ, though an A also beats
    # the single J; B18: QQ or 55 -> 44, though a Q also beats the 9), then its smallest unit.
    shape = max((u.shape for u, _ in failing), key=lambda s: (s[0] * s[1], s[0]))
    forced = min((u for u in combo.units if u.shape == shape), key=lambda u: u.key)
    beaten, by = next((u, i) for u, i in failing if u.shape == forced.shape)
    back = len(combo.cards) - forced.size
    return ThrowCheck(
        False,
        list(forced.cards),
        f"{beaten} can be beaten by hand {by}; the smallest {forced.kind} {forced} is forced",
        beaten.cards,
        by,
        rules.throw.penalty,
        back,
    )


def throw_penalty_points(check: ThrowCheck, thrown: int) -> int:
    """Points a failed throw costs: flat plus per card of the attempted throw (``thrown``
    cards) or per card not thrown (``check.cards_back``), as the profile says."""
    if check.ok or check.penalty is None:
        return 0
    n = check.cards_back if check.penalty.per == "back" else thrown
    return check.penalty.points + check.penalty.per_card * n
