"""Trump context and card order: which cards are trumps, how they rank, which are adjacent.

Every judgement reduces a card to three numbers under a (trump, rules) pair: its effective suit
(``T`` for every trump, else its own suit), its strength (higher wins; equal strength means the
first played wins), and its slot on the tractor chain of that suit. The table is built once per
(trump, rules) and cached, so judging a play is dictionary look-ups.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.cards import RANK_INDEX, RANKS, SUITS, Card, parse_card
from engine.tractor.rules import Rules

TRUMP = "T"
# Strength bands for trumps, above every side card (side cards use their rank index 0..12).
_SUIT_BASE = 100
_PERM2_OTHER, _PERM2_MAIN = 150, 155
_LEVEL_OTHER, _LEVEL_MAIN = 200, 210
_SJ, _BJ, _PERM_TOP = 220, 230, 240
# Slots on the trump chain (suit ranks use 0..12; A-low of AA22 uses -1).
_SLOT = {"p2o": 16, "p2m": 17, "lvo": 20, "lvm": 21, "SJ": 22, "BJ": 23, "top": 24}


@dataclass(frozen=True, slots=True)
class Trump:
    """The trump context of a deal: level rank and trump suit (None: no-trump)."""

    level: str
    suit: str | None = None

    def __post_init__(self) -> None:
        if self.level not in RANK_INDEX:
            raise ValueError(f"trump level {self.level!r}: not a rank (2-10, J, Q, K, A)")
        if self.suit is not None and self.suit not in SUITS:
            raise ValueError(f"trump suit {self.suit!r}: expected S, H, C, D or None (no-trump)")

    def __str__(self) -> str:
        return f"level {self.level}, {'no-trump' if self.suit is None else self.suit + ' trump'}"


@dataclass(frozen=True, slots=True)
class CardInfo:
    suit: str
    strength: int
    slot: int


@dataclass(frozen=True, slots=True)
class Context:
    """Per-(trump, rules) tables. ``links[suit]`` holds (lower, upper) slots that are adjacent;
    ``low_a[suit]`` is set when AA22 wraps (A also sits on slot -1 below the 2)."""

    info: dict[Card, CardInfo]
    links: dict[str, frozenset[tuple[int, int]]]
    low_a: dict[str, Card | None]
    next_slot: dict[str, dict[int, int]]


def _perm(rules: Rules) -> set[Card]:
    return {parse_card(c) for c in rules.perm_trumps}


_CACHE: dict[tuple[Trump, int], tuple[Rules, Context]] = {}


def context(trump: Trump, rules: Rules) -> Context:
    """The card tables for this trump context under this profile, built once.

    Keyed by the profile object's identity (hashing a whole ``Rules`` on every look-up would
    cost more than the judging); the entry keeps the object alive so the id stays its own.
    """
    hit = _CACHE.get((trump, id(rules)))
    if hit is not None and hit[0] is rules:
        return hit[1]
    if len(_CACHE) > 4096:
        _CACHE.clear()
    ctx = _build(trump, rules)
    _CACHE[(trump, id(rules))] = (rules, ctx)
    return ctx


def _build(trump: Trump, rules: Rules) -> Context:
    lv = trump.level if rules.level_cards else ""  # 扛旗: level cards are plain cards
    perm = _perm(rules)
    tr = rules.tractor
    info: dict[Card, CardInfo] = {}
    twos = rules.perm_twos and lv != "2"
    info[Card("BJ", None)] = CardInfo(TRUMP, _BJ, _SLOT["BJ"])
    info[Card("SJ", None)] = CardInfo(TRUMP, _SJ, _SLOT["SJ"])
    for c in perm:
        info[c] = CardInfo(TRUMP, _PERM_TOP, _SLOT["top"])
    suit_slots: dict[str, list[int]] = {s: [] for s in (*SUITS, TRUMP)}
    for s in SUITS:
        for r in RANKS:
            c = Card(r, s)
            if c in perm:
                continue
            ri = RANK_INDEX[r]
            main = s == trump.suit
            if r == lv:
                if main and tr.level_in_suit:
                    info[c] = CardInfo(TRUMP, _LEVEL_MAIN, ri)
                    suit_slots[TRUMP].append(ri)
                else:
                    slot = _SLOT["lvm"] if main else _SLOT["lvo"]
                    info[c] = CardInfo(TRUMP, _LEVEL_MAIN if main else _LEVEL_OTHER, slot)
            elif twos and r == "2":
                slot = _SLOT["p2m"] if main else _SLOT["p2o"]
                info[c] = CardInfo(TRUMP, _PERM2_MAIN if main else _PERM2_OTHER, slot)
            elif main:
                info[c] = CardInfo(TRUMP, _SUIT_BASE + ri, ri)
                suit_slots[TRUMP].append(ri)
            else:
                info[c] = CardInfo(s, ri, ri)
                suit_slots[s].append(ri)
    links: dict[str, set[tuple[int, int]]] = {s: set() for s in suit_slots}
    low_a: dict[str, Card | None] = {s: None for s in suit_slots}
    level_ri = RANK_INDEX[lv] if lv else -9
    for s, slots in suit_slots.items():
        present = set(slots)
        for ri in range(12):
            if ri in present and ri + 1 in present:
                links[s].add((ri, ri + 1))
            elif (
                tr.gap
                and ri + 1 == level_ri
                and ri in present
                and ri + 2 in present
                and Card(trump.level, trump.suit if s == TRUMP else s) not in perm
                and not (s == TRUMP and tr.level_in_suit)
            ):
                links[s].add((ri, ri + 2))
        if tr.aa22 and 0 in present and 12 in present:
            links[s].add((-1, 0))
            real = trump.suit if s == TRUMP else s
            low_a[s] = Card("A", real) if real else None
    t = links[TRUMP]
    top_suit = max(suit_slots[TRUMP], default=None)
    has_main = trump.suit is not None and not tr.level_in_suit
    if twos:
        if top_suit is not None and tr.other_a:
            t.add((top_suit, _SLOT["p2o"]))
        if trump.suit is not None and tr.main_other:
            t.add((_SLOT["p2o"], _SLOT["p2m"]))
        below_level = _SLOT["p2m"] if trump.suit is not None else _SLOT["p2o"]
        if tr.other_a:
            t.add((below_level, _SLOT["lvo"]))
    elif top_suit is not None and tr.other_a:
        t.add((top_suit, _SLOT["lvo"]))
    if has_main and tr.main_other:
        t.add((_SLOT["lvo"], _SLOT["lvm"]))
    if tr.sj_main:
        t.add((_SLOT["lvm"] if has_main else _SLOT["lvo"], _SLOT["SJ"]))
    if tr.joker:
        t.add((_SLOT["SJ"], _SLOT["BJ"]))
    if perm and tr.h5_joker:
        t.add((_SLOT["BJ"], _SLOT["top"]))
    frozen = {s: frozenset(v) for s, v in links.items()}
    nxt = {s: {lo: hi for lo, hi in v} for s, v in frozen.items()}
    return Context(info=info, links=frozen, low_a=low_a, next_slot=nxt)


def effective_suit(card: Card, trump: Trump, rules: Rules) -> str:
    """``T`` for a trump under this context, else the card's own suit letter."""
    return context(trump, rules).info[card].suit


def strength(card: Card, trump: Trump, rules: Rules) -> int:
    """Rank of a card in the whole order (higher wins; equal: the first played wins)."""
    return context(trump, rules).info[card].strength


def is_trump(card: Card, trump: Trump, rules: Rules) -> bool:
    return context(trump, rules).info[card].suit == TRUMP


def sort_key(card: Card, trump: Trump, rules: Rules) -> tuple[int, int, str]:
    """Display order: trumps last (highest), suits grouped, then by strength."""
    ci = context(trump, rules).info[card]
    group = 9 if ci.suit == TRUMP else SUITS.index(ci.suit)
    return (group, ci.strength, str(card))
