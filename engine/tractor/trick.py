"""Trick winner (A7): the highest same-shape unit of the led suit, or the highest valid ruff.

A follow can only win by copying the lead's structure: one unit of the same shape for a
single-unit lead, and for a throw a ruff in trumps that contains the throw's structure (its
tractors and pairs). Between such plays the deciding unit is compared: the lead's largest
component (for throws, Shanghai's "biggest pair, else biggest card"). Ties go to the first
played, because only a strictly higher play takes the trick.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine.cards import Card
from engine.tractor.combos import Combo, Unit, classify
from engine.tractor.follow import follow_score
from engine.tractor.order import TRUMP, Trump, context
from engine.tractor.rules import Rules


def _rank(play: Combo, lead: Combo, trump: Trump, rules: Rules) -> tuple[int, int, int] | None:
    """A comparable strength for a play that can win against ``lead``; None if it cannot."""
    if play.suit is None or lead.suit is None:
        return None
    ruff = play.suit == TRUMP and lead.suit != TRUMP
    if play.suit != lead.suit and not ruff:
        return None
    if len(lead.units) == 1:
        lu = lead.units[0]
        if len(play.units) == 1:
            pu = play.units[0]
            if pu.shape == lu.shape:
                return (int(ruff), pu.width, pu.key)
            if _stronger_form(pu, lu, rules):
                return (int(ruff), pu.width, pu.key)
        if lu.width == 1 and lu.length == 1:
            return None
        if not ruff:
            return None
    elif not ruff:
        return None
    # A ruff against a structured lead (or any throw) must contain the whole structure.
    ctx = context(trump, rules)
    full, _ = follow_score(play.cards, lead, ctx, rules, structure=True)
    lead_full, _ = follow_score(lead.cards, lead, ctx, rules, structure=True)
    if full < lead_full:
        return None
    top = _deciding(lead)
    keys = [u.key for u in play.units if u.shape == top.shape]
    if top.length == 1 or not keys:
        # The ruff may hold the deciding shape inside a bigger unit (a pair inside a trump
        # tractor): that unit counts by its top group, in card strength like a group's key.
        # When the deciding unit is a group (the lead has no tractor) a group's key is its
        # card strength too, so the ruff's largest group decides, wherever it sits (000:
        # 「敲牌时，以最大对子…或最大牌为大」).
        keys += [
            ctx.info[u.cards[0]].strength
            for u in _units_covering(play, top)
            if u.shape != top.shape
        ]
    return (1, top.width, max(keys)) if keys else None


def _stronger_form(play: Unit, lead: Unit, rules: Rules) -> bool:
    """Four-deck: wider groups beat a pair-tractor of the same card count (B7)."""
    return (
        rules.decks >= 4
        and lead.width == 2
        and lead.length >= 2
        and play.width > 2
        and play.size == lead.size
    )


def _deciding(lead: Combo) -> Unit:
    """The lead component whose counterpart decides between ruffs: the largest one."""
    return lead.units[0]


def _units_covering(play: Combo, top: Unit) -> list[Unit]:
    return [u for u in play.units if u.width >= top.width and u.length >= top.length]


def trick_winner(
    plays: Sequence[str | Iterable[str | Card]] | Sequence[Combo], trump: Trump, rules: Rules
) -> int:
    """Index of the winning play; ``plays[0]`` is the lead."""
    combos = [p if isinstance(p, Combo) else classify(p, trump, rules) for p in plays]
    return winner_of(combos, trump, rules)


def winner_of(combos: Sequence[Combo], trump: Trump, rules: Rules) -> int:
    lead = combos[0]
    if lead.suit is None:
        return 0
    best = 0
    lu = lead.units[0]
    best_rank: tuple[int, int, int] = (0, lu.width, lu.key if len(lead.units) == 1 else -1)
    if len(lead.units) > 1:
        best_rank = (0, _deciding(lead).width, _deciding(lead).key)
    for i in range(1, len(combos)):
        r = _rank(combos[i], lead, trump, rules)
        if r is not None and r > best_rank:
            best, best_rank = i, r
    return best
