"""Combinations (牌型): singles, pairs, tractors, four-deck triples/quads, and throws (甩牌).

A play of one effective suit splits into units. A unit has a width (1 single, 2 pair, 3 triple,
4 quad) and a length (1, or the number of linked groups in a tractor). Units of the same shape
compare by ``key``: card strength for groups, the top chain slot for tractors (so AA22, whose A
sits below the 2, is the smallest, and other-level pairs of different suits tie). A throw is the
greedy split: widest tractors first, then groups, then singles.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.cards import Card, parse_cards
from engine.tractor.order import Context, Trump, context
from engine.tractor.rules import Rules

KIND = {1: "single", 2: "pair", 3: "triple", 4: "quad"}


@dataclass(frozen=True, slots=True)
class Unit:
    """One component of a play: ``width`` identical cards on each of ``length`` linked slots."""

    width: int
    length: int
    cards: tuple[Card, ...]
    key: int
    suit: str

    @property
    def kind(self) -> str:
        if self.width == 1 and self.length == 3:
            return "fiveten"
        if self.length == 1:
            return KIND[self.width]
        return "tractor" if self.width == 2 else f"tractor{self.width}"

    @property
    def shape(self) -> tuple[int, int]:
        return (self.width, self.length)

    @property
    def size(self) -> int:
        return self.width * self.length

    def __str__(self) -> str:
        return " ".join(str(c) for c in self.cards)


@dataclass(frozen=True, slots=True)
class Combo:
    """A classified play. ``suit`` is None when the cards span several effective suits."""

    cards: tuple[Card, ...]
    suit: str | None
    units: tuple[Unit, ...]

    @property
    def kind(self) -> str:
        if not self.cards:
            return "empty"
        if self.suit is None:
            return "mixed"
        return self.units[0].kind if len(self.units) == 1 else "throw"

    @property
    def is_throw(self) -> bool:
        return self.suit is not None and len(self.units) > 1

    @property
    def pairs(self) -> int:
        """Pairs contained (a triple holds one, a quad two, a tractor one per link)."""
        return sum((u.width // 2) * u.length for u in self.units)


def widths(rules: Rules) -> tuple[int, ...]:
    """Group widths this profile knows, widest first."""
    out = [2]
    if rules.tractor.triples:
        out.insert(0, 3)
    if rules.tractor.quads:
        out.insert(0, 4)
    return tuple(out)


def slot_cards(counts: Counter[Card], ctx: Context, w: int) -> dict[int, Card]:
    """For each chain slot, one identity with at least ``w`` copies (the strongest)."""
    out: dict[int, Card] = {}
    info = ctx.info
    for c, n in counts.items():
        if n >= w:
            slot = info[c].slot
            prev = out.get(slot)
            if prev is None or info[c].strength > info[prev].strength:
                out[slot] = c
    return out


def runs(slots: Iterable[int], ctx: Context, suit: str) -> list[list[int]]:
    """Maximal linked runs among ``slots`` (ascending), AA22 wrap included."""
    have = set(slots)
    nxt = ctx.next_slot[suit]
    prev = {hi: lo for lo, hi in nxt.items()}
    if ctx.low_a[suit] is not None and 12 in have:
        have.add(-1)
    out: list[list[int]] = []
    for s in sorted(have):
        p = prev.get(s)
        if p is not None and p in have:
            continue
        run = [s]
        while True:
            n = nxt.get(run[-1])
            if n is None or n not in have:
                break
            run.append(n)
        out.append(run)
    if -1 in have:
        # A is one identity: keep it at the top unless the wrap makes a tractor it otherwise
        # would not be part of.
        low = next(r for r in out if r[0] == -1)
        high = next(r for r in out if r[-1] == 12 or 12 in r)
        if low is high or len(high) > 1 or len(low) < 2:
            low.remove(-1)
            if not low:
                out.remove(low)
        else:
            out.remove(high)
    return out


def _card_at(slot: int, sc: dict[int, Card], ctx: Context, suit: str) -> Card:
    if slot == -1:
        c = ctx.low_a[suit]
        assert c is not None
        return c
    return sc[slot]


def split(cards: Sequence[Card], suit: str, ctx: Context, rules: Rules) -> list[Unit]:
    """Greedy split of cards of one effective suit into units (widest, longest first)."""
    info = ctx.info
    if len(cards) == 1:
        c = cards[0]
        return [Unit(1, 1, (c,), info[c].strength, suit)]
    if len(cards) == 2:
        a, b = cards
        if a == b:
            return [Unit(2, 1, (a, a), info[a].strength, suit)]
        ka, kb = info[a].strength, info[b].strength
        ua, ub = Unit(1, 1, (a,), ka, suit), Unit(1, 1, (b,), kb, suit)
        return [ua, ub] if ka >= kb else [ub, ua]
    counts: Counter[Card] = Counter(cards)
    units: list[Unit] = []
    min_len = rules.tractor.min_pairs
    for w in widths(rules):
        while True:
            sc = slot_cards(counts, ctx, w)
            found = [r for r in runs(sc, ctx, suit) if len(r) >= min_len]
            if not found:
                break
            for run in found:
                group = [_card_at(s, sc, ctx, suit) for s in run]
                if any(counts[c] < w for c in group):
                    continue
                for c in group:
                    counts[c] -= w
                tcards = tuple(c for c in reversed(group) for _ in range(w))
                units.append(Unit(w, len(run), tcards, run[-1], suit))
        for c in sorted(counts, key=lambda c: -info[c].strength):
            while counts[c] >= w:
                counts[c] -= w
                units.append(Unit(w, 1, (c,) * w, info[c].strength, suit))
    for c in sorted(counts, key=lambda c: -info[c].strength):
        for _ in range(counts[c]):
            units.append(Unit(1, 1, (c,), info[c].strength, suit))
    units.sort(key=lambda u: (-u.width * u.length, -u.width, -u.key))
    return units


def classify(cards: str | Iterable[str | Card], trump: Trump, rules: Rules) -> Combo:
    """Classify a play: its effective suit and its units (one unit, or a throw's components)."""
    cs = tuple(parse_cards(cards))
    if not cs:
        return Combo((), None, ())
    ctx = context(trump, rules)
    suits = {ctx.info[c].suit for c in cs}
    if len(suits) != 1:
        return Combo(cs, None, ())
    suit = suits.pop()
    if rules.tractor.fiveten and len(cs) == 3 and is_fiveten(cs):
        return Combo(cs, suit, (Unit(1, 3, cs, 0, suit),))
    return Combo(cs, suit, tuple(split(cs, suit, ctx, rules)))


FIVETEN = frozenset(("5", "10", "K"))


def is_fiveten(cards: Sequence[Card]) -> bool:
    """One 5, one 10 and one K of one suit (炒地皮's 5-10-K, B20.14)."""
    return (
        len(cards) == 3
        and {c.rank for c in cards} == FIVETEN
        and len({c.suit for c in cards}) == 1
        and cards[0].suit is not None
    )


def fiveten_in(counts: Counter[Card], suit: str, ctx: Context) -> list[Card] | None:
    """A 5-10-K of one real suit among ``counts`` (cards of effective suit ``suit``)."""
    for real in ("S", "H", "C", "D"):
        cs = [Card(r, real) for r in ("5", "10", "K")]
        if all(counts[c] > 0 and ctx.info[c].suit == suit for c in cs):
            return cs
    return None


def best_key(counts: Counter[Card], shape: tuple[int, int], suit: str, ctx: Context) -> int | None:
    """The highest key of a unit of ``shape`` that ``counts`` (cards of ``suit``) can form."""
    w, length = shape
    if length == 1:
        keys = [ctx.info[c].strength for c, n in counts.items() if n >= w]
        return max(keys) if keys else None
    sc = slot_cards(counts, ctx, w)
    best: int | None = None
    for run in runs(sc, ctx, suit):
        if len(run) >= length and (best is None or run[-1] > best):
            best = run[-1]
    return best


def in_suit(cards: Iterable[Card], suit: str, ctx: Context) -> list[Card]:
    info = ctx.info
    return [c for c in cards if info[c].suit == suit]
