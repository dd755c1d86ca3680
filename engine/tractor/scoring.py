"""Points, the bottom multiplier and the level change after a hand (A8-A11, per profile).

Level tables are data (``advance.bands``); this module only reads them, applies must-play stops
and knock-backs, and names the next banker. A side's level is an index on the profile's ladder.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from engine.cards import Card, parse_cards
from engine.tractor.combos import Combo, Unit, classify
from engine.tractor.order import TRUMP, Trump
from engine.tractor.rules import Rules

POINTS = {"5": 5, "10": 10, "K": 10}


def card_points(card: Card) -> int:
    """5 → 5, 10 and K → 10, in every suit (A8.2); jokers and the rest 0."""
    return POINTS.get(card.rank, 0) if card.suit is not None else 0


def points(cards: Iterable[str | Card]) -> int:
    return sum(card_points(c) for c in parse_cards(cards))


def _largest(combo: Combo, rules: Rules) -> Unit | None:
    if not combo.units:
        return None
    return max(combo.units, key=lambda u: ((u.width // 2) * u.length, u.width, u.key))


def bottom_multiplier(
    winning_play: str | Iterable[str | Card] | Combo, trump: Trump, rules: Rules
) -> int:
    """The factor on the bottom's points when the attackers win the last trick with this play.

    ``doubling``: factor^(pairs+1) (single x2, pair x4, tractor of n pairs x2^(n+1)), capped;
    ``pairs4``: x2 single, x4 per pair (online-super); ``flat``: always ``factor``; ``bonus``:
    ``factor`` (school-2010 adds a flat bonus, see ``bottom_bonus``). A throw counts by its
    largest unit. ``trump_only`` profiles give 0 when the winning play is not trumps.
    """
    combo = (
        winning_play if isinstance(winning_play, Combo) else classify(winning_play, trump, rules)
    )
    br = rules.bottom_rules
    if br.trump_only and combo.suit != TRUMP:
        return 0
    unit = _largest(combo, rules)
    pairs = (unit.width // 2) * unit.length if unit else 0
    if br.throw == "pair_if_any" and combo.is_throw:
        pairs = min(pairs, 1)
    if br.scheme in ("flat", "bonus"):
        mult = br.factor
    elif br.scheme == "pairs4":
        mult = br.factor if pairs == 0 else 2 * br.factor * pairs
    else:
        mult = br.factor ** (pairs + 1)
    return min(mult, br.cap) if br.cap else mult


def bottom_bonus(
    winning_play: str | Iterable[str | Card] | Combo, trump: Trump, rules: Rules
) -> int:
    """Flat points for the capturing unit (school-2010: side 10, trump 20, SJ 30, BJ 40,
    pair 50, tractor 60); 0 for profiles without a bonus table."""
    bonus = dict(rules.bottom_rules.bonus)
    if not bonus:
        return 0
    combo = (
        winning_play if isinstance(winning_play, Combo) else classify(winning_play, trump, rules)
    )
    unit = _largest(combo, rules)
    if unit is None:
        return 0
    if unit.length > 1:
        return bonus.get("tractor", 0)
    if unit.width >= 2:
        return bonus.get("pair", 0)
    card = unit.cards[0]
    if card.rank in ("BJ", "SJ"):
        return bonus.get(card.rank, 0)
    return bonus.get("trump" if combo.suit == TRUMP else "side", 0)


def bottom_score(
    winning_play: str | Iterable[str | Card] | Combo,
    bottom: Iterable[str | Card],
    trump: Trump,
    rules: Rules,
) -> int:
    """Points the attackers add when they win the last trick with ``winning_play``."""
    mult = bottom_multiplier(winning_play, trump, rules)
    if mult == 0:
        return 0
    return points(bottom) * mult + bottom_bonus(winning_play, trump, rules)


@dataclass(frozen=True, slots=True)
class Outcome:
    """Result of a hand. ``side`` advances by ``levels`` (banker side keeps the stage when it
    is ``banker``). ``new_level`` is the advancing side's next level, ``banker_level`` the
    banker side's level after any knock-back. ``next_banker`` is ``partner`` or ``next`` (the
    banker's 下家), or a seat index when the banker seat was given. ``game_over``: the side
    passed the last level."""

    side: str
    levels: int
    new_level: str
    banker_level: str
    next_banker: str | int
    keeps_stage: bool
    game_over: bool
    knocked_back: str = ""
    stopped_at: str = ""

    def as_dict(self) -> dict[str, object]:
        return {
            "side": self.side,
            "levels": self.levels,
            "new_level": self.new_level,
            "banker_level": self.banker_level,
            "next_banker": self.next_banker,
            "keeps_stage": self.keeps_stage,
            "game_over": self.game_over,
            "knocked_back": self.knocked_back,
            "stopped_at": self.stopped_at,
        }


def band_for(score: int, rules: Rules) -> tuple[str, int]:
    """(side, levels) from the profile's table for an attackers' score."""
    for b in rules.bands:
        if b.lo <= score <= b.hi:
            return b.side, b.levels_for(score)
    raise ValueError(f"profile {rules.id}: no band for score {score}")  # pragma: no cover


def advance(level: str, levels: int, rules: Rules, as_banker: bool) -> tuple[str, bool, str]:
    """Move ``levels`` up the ladder from ``level``: stops on must-play levels and on the last
    level; passing the last level as banker ends the game. -> (new level, game over, stop)."""
    ladder = rules.ladder
    i = ladder.index(level)
    last = len(ladder) - 1
    if levels <= 0:
        return level, False, ""
    if as_banker and i == last and rules.win in ("pass", "complete"):
        return level, True, ""
    target = i + levels
    for m in rules.must_play:
        mi = ladder.index(m)
        if i < mi < target:
            return m, False, m
    if target > last:
        if rules.win == "cycle":
            return ladder[target % len(ladder)], False, ""
        return ladder[last], False, ladder[last]
    return ladder[target], False, ""


def _knockback(level: str, capture: Combo | None, rules: Rules) -> tuple[str, str] | None:
    if capture is None or not capture.units:
        return None
    ranks = {c.rank for c in capture.cards}
    for k in rules.knockbacks:
        if k.level not in ("*", level):
            continue
        if k.unit == "5-10-K":
            if capture.kind == "fiveten":
                return k.to, k.then
        elif ranks == {k.unit} and len(capture.units) == 1 and capture.units[0].length == 1:
            return k.to, k.then
    return None


def level_outcome(
    attacker_points: int,
    rules: Rules,
    level: str,
    *,
    attacker_level: str | None = None,
    banker: int | None = None,
    capture: str | Iterable[str | Card] | Combo | None = None,
    trump: Trump | None = None,
) -> Outcome:
    """Who advances, by how many levels, and who banks next.

    ``level`` is the banker side's level this hand, ``attacker_level`` the attackers' own
    (defaults to ``level``). ``capture`` is the attackers' winning play of the last trick when
    they captured the bottom (for knock-backs); ``banker`` the banker's seat (0-3, play order).
    """
    for name, lv in (("level", level), ("attacker_level", attacker_level)):
        if lv is not None and lv not in rules.ladder:
            raise ValueError(
                f"level_outcome: {name} {lv!r} is not on profile {rules.id}'s ladder "
                f"{list(rules.ladder)}"
            )
    side, n = band_for(attacker_points, rules)
    knock = None
    if capture is not None:
        tr = trump or Trump(level)
        combo = capture if isinstance(capture, Combo) else classify(capture, tr, rules)
        knock = _knockback(level, combo, rules)
    banker_level = level
    knocked = ""
    if knock:
        banker_level, then = knock
        knocked = banker_level
        if side == "banker" and then == "stay":
            n = 0
    if side == "banker":
        new, over, stop = advance(banker_level, n, rules, as_banker=True)
        if knock:
            over = False
        keeps = True
        nb: str | int = "partner" if rules.rotation_keep == "partner" else "same"
        if banker is not None:
            nb = (banker + 2) % 4 if rules.rotation_keep == "partner" else banker
        return Outcome(side, n, new, new, nb, keeps, over, knocked, stop)
    a_level = attacker_level or level
    new, over, stop = advance(a_level, n, rules, as_banker=False)
    nb = "next" if banker is None else (banker + 1) % 4
    return Outcome(side, n, new, banker_level, nb, False, over, knocked, stop)
