"""Declarations (亮主 / 反主 / 炒底): what may be shown, what overcalls what, and the fallback
when nobody declares. The strength order is the profile's ``declare.ladder`` (low to high)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.cards import RANK_INDEX, SUITS, Card, parse_cards
from engine.tractor.follow import Verdict
from engine.tractor.order import Trump
from engine.tractor.rules import Rules

CYCLE = ("BJ", "SJ", "S", "H", "C", "D")


@dataclass(frozen=True, slots=True)
class Declaration:
    """A shown declaration: ``what`` is a suit letter, ``SJ``/``BJ`` (joker pair) or ``5H``."""

    seat: int
    cards: tuple[Card, ...]
    what: str
    count: int

    @property
    def is_pair(self) -> bool:
        return self.count >= 2


def read_declaration(
    seat: int, cards: Iterable[str | Card], level: str, rules: Rules
) -> Declaration:
    """Parse shown cards as a declaration; ``ValueError`` naming the problem if they are none."""
    cs = tuple(parse_cards(cards))
    if not cs:
        raise ValueError(f"seat {seat}: an empty declaration")
    if len(set(cs)) != 1:
        raise ValueError(f"seat {seat}: {' '.join(map(str, cs))} are not copies of one card")
    c = cs[0]
    if c.suit is None:
        if len(cs) < 2 and not rules.declare.jokers_declare:
            raise ValueError(f"seat {seat}: a single {c} cannot declare")
        return Declaration(seat, cs, c.rank, len(cs))
    if str(c) in rules.perm_trumps:
        if len(cs) < 2:
            raise ValueError(f"seat {seat}: a single {c} cannot declare")
        return Declaration(seat, cs, str(c), len(cs))
    if c.rank != level:
        raise ValueError(f"seat {seat}: {c} is not a level card (level {level})")
    if len(cs) < rules.declare.min_cards:
        raise ValueError(f"seat {seat}: this profile needs {rules.declare.min_cards} cards")
    return Declaration(seat, cs, c.suit, len(cs))


def _ladder_rank(d: Declaration, rules: Rules) -> int:
    ladder = rules.declare.ladder
    return ladder.index(d.what) if d.what in ladder else -1


def can_overcall(prev: Declaration, new: Declaration, rules: Rules) -> Verdict:
    """Does ``new`` legally overcall ``prev`` under the profile's ladder?"""
    mode = rules.declare.overcall
    if mode == "none":
        return Verdict(False, "this profile allows no overcall", "illegal_overcall")
    if new.what in ("SJ", "BJ") and not rules.declare.jokers_overcall:
        return Verdict(False, "jokers may not overcall in this profile", "illegal_overcall")
    if new.seat == prev.seat and new.what != prev.what:
        return Verdict(False, "a player cannot overcall himself", "illegal_overcall")
    if mode == "more_cards":
        if new.count >= prev.count + 1:
            return Verdict(True, "more cards than the previous declaration")
        return Verdict(False, "an overcall needs at least one more card", "illegal_overcall")
    if mode == "last_shown":
        return Verdict(True, "the last level card shown sets trump")
    if not new.is_pair:
        return Verdict(False, "an overcall needs a pair", "illegal_overcall")
    if mode == "any_later":
        return Verdict(True, "any later pair overcalls (order, not strength)")
    if mode == "cyclic":
        if not prev.is_pair:
            return Verdict(True, "a pair overcalls a single")
        a, b = CYCLE.index(prev.what), CYCLE.index(new.what)
        if b < a or (new.what == "D" and prev.what == "BJ"):
            return Verdict(True, "higher in the cyclic order")
        return Verdict(False, "not higher in the cyclic order", "illegal_overcall")
    if not prev.is_pair:
        return Verdict(True, "a pair overcalls a single")
    if _ladder_rank(new, rules) > _ladder_rank(prev, rules):
        return Verdict(True, "higher on the ladder")
    return Verdict(False, f"{new.what} pair is not above {prev.what} pair", "illegal_overcall")


def trump_of(d: Declaration | None, level: str, choice: str | None = None) -> Trump:
    """The trump a declaration sets. Joker pairs give no-trump; a ♥5 pair takes ``choice``."""
    if d is None or d.what in ("SJ", "BJ"):
        return Trump(level, choice if d is not None and d.what == "BJ" else None)
    if d.what == "5H":
        return Trump(level, choice)
    return Trump(level, d.what)


def fallback_trump(bottom: Sequence[str | Card], level: str, rules: Rules) -> tuple[Trump, int]:
    """Trump when nobody declared, from the bottom turned in order -> (trump, index turned).

    Index -1 means no card decided it (no-trump by rule). ``banker_must_declare`` has no
    card rule; it falls back like ``bottom_first_level_else_highest`` for simulation only.
    """
    cs = parse_cards(bottom)
    mode = rules.declare.fallback
    if mode == "notrump" or not cs:
        return Trump(level, None), -1
    if mode == "bottom_first":
        c = cs[0]
        if c.suit is None:
            return Trump(level, None), 0
        return Trump(level, c.suit), 0
    if mode == "bottom_third":
        c = cs[min(2, len(cs) - 1)]
        return Trump(level, c.suit), min(2, len(cs) - 1)
    if mode == "bottom_most_suit":
        counts = {s: sum(1 for c in cs if c.suit == s) for s in SUITS}
        best = max(counts.values())
        suit = next(s for s in SUITS if counts[s] == best)
        return Trump(level, suit), -1
    if mode == "bottom_until_two":
        for i, c in enumerate(cs):
            if c.rank == "2" and c.suit is not None:
                return Trump(level, c.suit), i
    else:
        for i, c in enumerate(cs):
            if c.rank == level and c.suit is not None:
                return Trump(level, c.suit), i
    best_i, best_r = -1, -1
    for i, c in enumerate(cs):
        if c.suit is not None and RANK_INDEX[c.rank] > best_r:
            best_i, best_r = i, RANK_INDEX[c.rank]
    if best_i < 0:
        return Trump(level, None), -1
    return Trump(level, cs[best_i].suit), best_i


@dataclass(frozen=True, slots=True)
class DeclarationRuling:
    """The outcome of a whole declaration sequence: one verdict per shown declaration, the
    standing declaration (None: nobody declared validly) and the banker it makes, if any."""

    verdicts: tuple[Verdict, ...]
    standing: Declaration | None
    banker: int | None


def judge_declarations(
    shown: Sequence[tuple[int, str | Iterable[str | Card]]],
    level: str,
    rules: Rules,
    first_deal: bool,
    banker: int | None = None,
) -> DeclarationRuling:
    """Judge declarations in the order shown: each must be a declaration and overcall the one
    standing (the first needs neither). An invalid one is ruled and ignored; the rest stand.
    In the first deal the first declarer banks, or the last one where the profile lets an
    overcall take the bank; later deals keep ``banker`` unless overcalls always change it."""
    verdicts: list[Verdict] = []
    standing: Declaration | None = None
    first: Declaration | None = None
    for seat, cards in shown:
        try:
            d = read_declaration(seat, cards, level, rules)
        except ValueError as e:
            verdicts.append(Verdict(False, str(e), "illegal_declaration"))
            continue
        if standing is None:
            verdicts.append(Verdict(True, "first declaration"))
            standing = first = d
            continue
        v = can_overcall(standing, d, rules)
        verdicts.append(v)
        if v.ok:
            standing = d
    who = banker
    changes = rules.declare.overcall_changes_banker
    if first is not None and standing is not None:
        if first_deal:
            take_last = changes in ("first_deal", "always") or (
                rules.declare.first_banker in ("last_declarer", "overcaller")
            )
            who = standing.seat if take_last else first.seat
        elif changes == "always":
            who = standing.seat
    return DeclarationRuling(tuple(verdicts), standing, who)
