"""What one Gouji play is, whether it beats another, and whether it is 够级 (GOUJI.md C5–C7).

Suits never matter. A play is one natural rank (2s attached as 贴钱 fillers count as that rank)
plus any jokers attached (挂花). The comparison is profile-driven: the two-part test of
``gouji-bie3``/``gouji-tongsu`` (both the joker part and the natural part must be higher), the
死牌 rule of ``gouji-16tiao``, 两大灭一大 and bie3's three 2s over a big joker.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from engine.cards import Card, parse_cards
from engine.gouji.rules import Rules

RANK_VALUE = {
    "3": 3,
    "4": 4,
    "5": 5,
    "6": 6,
    "7": 7,
    "8": 8,
    "9": 9,
    "10": 10,
    "J": 11,
    "Q": 12,
    "K": 13,
    "A": 14,
    "2": 15,
}
VALUE_NAME = {v: k for k, v in RANK_VALUE.items()}
SMALL, BIG, THREE_TWOS = 1, 2, 3  # joker-part units, weakest first

CardsIn = str | Iterable[str | Card]


@dataclass(frozen=True, slots=True)
class Shape:
    """A valid play, reduced to what comparison needs."""

    count: int  # physical cards
    units: int  # count, with bie3's three 2s standing for one joker
    rank: int | None  # natural rank value (2 = 15); None for jokers only
    naturals: int  # cards of the natural part, filler 2s included
    jokers: tuple[int, ...]  # joker part, strongest first (SMALL, BIG, THREE_TWOS)
    twos: int  # physical 2s in the play
    big: int
    small: int

    @property
    def rank_name(self) -> str | None:
        return None if self.rank is None else VALUE_NAME[self.rank]


def cards_of(cards: CardsIn) -> list[Card]:
    """Accept a notation string or a list of strings/Cards (the shared notation)."""
    return parse_cards(cards)


def analyse(cards: CardsIn, rules: Rules) -> Shape | str:
    """The play's ``Shape``, or a sentence saying why it is no legal set in this profile."""
    cs = cards_of(cards)
    if not cs:
        return "an empty play"
    big = sum(1 for c in cs if c.rank == "BJ")
    small = sum(1 for c in cs if c.rank == "SJ")
    twos = sum(1 for c in cs if c.rank == "2")
    ranks = sorted(
        {c.rank for c in cs if not c.is_joker and c.rank != "2"}, key=lambda r: RANK_VALUE[r]
    )
    if len(ranks) > 1:
        return f"mixes ranks {' and '.join(ranks)} (不同点数牌不可混合发出, L64)"
    attached = big + small + (twos if ranks else 0)
    if ranks and attached:
        if ranks[0] == "3" and rules.bie3.enabled:
            return "3s with attachments (憋3: 3不许挂2，不许挂王, L100)"
        if ranks[0] == "4" and rules.sets.fours_bare:
            return "4s with attachments (4既不能贴2，也不能挂花, L28)"
    super_jokers = 0
    if ranks and twos:
        if rules.sets.tieqian:
            pass
        elif rules.sets.three_twos_beat_big and twos % 3 == 0:
            super_jokers = twos // 3
        else:
            return "2s attached to a set (贴钱) are not allowed in this profile"
    jokers = tuple([THREE_TWOS] * super_jokers + [BIG] * big + [SMALL] * small)
    if ranks:
        rank: int | None = RANK_VALUE[ranks[0]]
        naturals = sum(1 for c in cs if c.rank == ranks[0]) + (0 if super_jokers else twos)
    elif twos:
        rank, naturals = RANK_VALUE["2"], twos
    else:
        rank, naturals = None, 0
    units = naturals + len(jokers)
    return Shape(len(cs), units, rank, naturals, jokers, twos, big, small)


def valid_set(play: CardsIn, rules: Rules) -> bool:
    """Is ``play`` one legal set in this profile (one rank, attachments as allowed)?"""
    return isinstance(analyse(play, rules), Shape)


def _dominates(p: tuple[int, ...], q: tuple[int, ...]) -> bool:
    """The joker part ``p`` is higher than ``q``: at least as many, each at least as big, and
    more or bigger somewhere (C6: 「必须在两个方面都大过此牌」, L248)."""
    if not q:
        return True
    if len(p) < len(q) or any(a < b for a, b in zip(p, q, strict=False)):
        return False
    return len(p) > len(q) or any(a > b for a, b in zip(p, q, strict=False))


def two_big_kill(prev: Shape, play: Shape) -> bool:
    """两大灭一大: one big joker (alone or attached) killed by two big jokers; the natural parts
    keep their size and the killer's is not lower (the seeds leave that size open, §5.2)."""
    if prev.big != 1 or prev.small or play.big != 2 or play.small or len(play.jokers) != 2:
        return False
    if prev.naturals != play.naturals:
        return False
    return prev.rank is None or (play.rank is not None and play.rank >= prev.rank)


def gap(prev: Shape, play: Shape, rules: Rules) -> str | None:
    """Why the sheets cannot decide whether ``play`` beats ``prev`` (§5.2), or None. The
    referee asks the human referee instead of ruling on these."""
    if prev.big and prev.small and play.big and play.small:
        return "both joker parts mix big and small jokers: the seeds do not compare them (C6)"
    kill = rules.sets.two_big_kill_one != "off" and prev.big == 1 and not prev.small
    if kill and play.big == 2 and len(play.jokers) == 2 and prev.naturals != play.naturals:
        return "两大灭一大 with another number of natural cards: not stated (L206, §5.2)"
    return None


def beats_shape(prev: Shape, play: Shape, rules: Rules) -> bool:
    """``play`` beats ``prev`` under the profile's comparison (C6, §3.1)."""
    bare_twos = play.rank == RANK_VALUE["2"] and not play.jokers and play.naturals % 3 == 0
    if rules.sets.three_twos_beat_big and bare_twos:
        k = play.naturals // 3  # bare 2s: also readable as jokers above 大花 (L248)
        alt = Shape(play.count, k, None, 0, (THREE_TWOS,) * k, play.twos, 0, 0)
        if _beats(prev, alt, rules):
            return True
    return _beats(prev, play, rules)


def _beats(prev: Shape, play: Shape, rules: Rules) -> bool:
    if rules.sets.joker_compare == "dead_big" and prev.big:
        return False  # 「发牌均为死牌」(L62)
    if rules.sets.two_big_kill_one != "off" and two_big_kill(prev, play):
        return True
    if play.units != prev.units:
        return False
    if not _dominates(play.jokers, prev.jokers):
        return False
    if rules.sets.joker_compare == "dead_big" and prev.small and play.big < prev.small:
        return False  # 「且大花不得少于小花数量」(L62)
    if prev.rank is None:
        return play.rank is None
    return play.rank is None or play.rank > prev.rank


def beats(prev: CardsIn, play: CardsIn, rules: Rules) -> bool:
    """Does ``play`` beat ``prev``? False when either is no legal set."""
    a, b = analyse(prev, rules), analyse(play, rules)
    return isinstance(a, Shape) and isinstance(b, Shape) and beats_shape(a, b, rules)


def gouji_shape(s: Shape, rules: Rules) -> bool:
    """够级 by the thresholds (C7): any joker; else the natural part's count reaches its rank's
    minimum (filler 2s count toward it)."""
    if s.jokers:
        return True
    if s.rank is None:
        return False
    need = rules.gouji.table.get(VALUE_NAME[s.rank])
    return need is not None and s.naturals >= need


def is_gouji(play: CardsIn, rules: Rules) -> bool:
    """Is ``play`` a 够级 set (only the 对头 may answer it, burns aside)?"""
    s = analyse(play, rules)
    return isinstance(s, Shape) and gouji_shape(s, rules)


def kaidian_kind(s: Shape, rules: Rules) -> str | None:
    """Which 开点 column of §3.3 a 够级 set falls in; None when it is not 够级."""
    if not gouji_shape(s, rules):
        return None
    if s.big:
        return "big_joker"
    if s.small or THREE_TWOS in s.jokers:
        return "small_joker"
    if s.rank == RANK_VALUE["2"]:
        return "single_two" if s.naturals == 1 else "multi_twos"
    if s.twos:
        return "with_twos"
    return "pure"


def opens_point(s: Shape, rules: Rules) -> bool:
    """Can this set open the point (开点) in this profile, if it stands?"""
    kind = kaidian_kind(s, rules)
    return kind is not None and kind in rules.kaidian.sets


def holds_gouji(cards: Counter[str], rules: Rules) -> bool:
    """Could cards of these ranks (counts by rank, jokers as BJ/SJ) make a 够级 set? A joker
    or a 2 alone is one; else a rank reaching its threshold (2s fill in where 贴钱 is allowed)."""
    if cards["BJ"] or cards["SJ"] or cards["2"]:
        return True
    return any(
        cards[rank] >= need
        for rank, need in rules.gouji.table.items()
        if rank not in ("joker", "2")
    )
